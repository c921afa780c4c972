//! `#[derive(FormFields)]`: one field per named struct field the answer may
//! carry, in declaration order.

use proc_macro2::{Group, Literal, Span, TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{
    Attribute, Data, DataStruct, DeriveInput, Error, Expr, ExprLit, Field, Fields, Lit, Meta,
    Result, Token, Type,
};

use crate::case::Case;
use crate::names::{Errors, check_unique, wire};
use crate::serde_attrs::{Container, FIELD_REFUSES, Member, STRUCT_REFUSES};
use crate::settings::{FieldSettings, Format, Setting, refuse_on_type};
use crate::shape::Shape;

/// The `impl FormFields` for `input`.
pub(crate) fn expand(input: &DeriveInput) -> Result<TokenStream> {
    let fields = named_fields(input)?;
    refuse_on_type(&input.attrs)?;
    let container = Container::parse(&input.attrs, STRUCT_REFUSES)?;
    let mut errors = Errors::default();
    let asked: Vec<Asked<'_>> = fields
        .iter()
        .filter_map(|f| errors.keep(Asked::parse(f, &container)).flatten())
        .collect();
    errors.finish()?;
    check_unique(
        asked.iter().map(|a| (a.wire.as_str(), a.span)),
        "field name",
    )?;

    let ident = &input.ident;
    let mut generics = input.generics.clone();
    if generics.type_params().next().is_some() {
        let clause = generics.make_where_clause();
        for a in &asked {
            let ty = a.ty;
            clause
                .predicates
                .push(syn::parse_quote!(#ty: ::mrtr_guard::FieldType));
        }
    }
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let exprs = asked.iter().map(Asked::expr);
    Ok(quote! {
        #[automatically_derived]
        impl #impl_generics ::mrtr_guard::FormFields for #ident #ty_generics #where_clause {
            fn form_fields() -> ::std::vec::Vec<::mrtr_guard::Field> {
                ::std::vec![#(#exprs),*]
            }
        }
    })
}

fn named_fields(input: &DeriveInput) -> Result<&Punctuated<Field, Token![,]>> {
    const NAMED: &str =
        "FormFields needs a struct with named fields: a form is an object of named answers";
    match &input.data {
        Data::Struct(DataStruct {
            fields: Fields::Named(named),
            ..
        }) => Ok(&named.named),
        Data::Struct(DataStruct {
            fields: Fields::Unnamed(unnamed),
            ..
        }) => Err(Error::new_spanned(unnamed, NAMED)),
        Data::Struct(s) => Err(Error::new(s.struct_token.span, NAMED)),
        Data::Enum(e) => Err(Error::new(
            e.enum_token.span,
            "FormFields needs a struct with named fields; for an enum of options, derive FormChoice",
        )),
        Data::Union(u) => Err(Error::new(u.union_token.span, NAMED)),
    }
}

/// A struct field the form asks for.
struct Asked<'a> {
    ty: &'a Type,
    wire: String,
    /// Where the field is named, for the duplicate-name error.
    span: Span,
    settings: FieldSettings,
    description: Option<String>,
    optional: bool,
    /// Checks the compiler makes where the macro cannot tell the type.
    checks: TokenStream,
}

impl<'a> Asked<'a> {
    /// The field as asked, or `None` when serde skips it.
    fn parse(field: &'a Field, container: &Container) -> Result<Option<Self>> {
        let mut errors = Errors::default();
        let settings = errors.keep(FieldSettings::parse(&field.attrs));
        let serde = errors.keep(Member::parse(&field.attrs, FIELD_REFUSES));
        let checks = settings
            .as_ref()
            .and_then(|s| errors.keep(check(s, &field.ty)));
        errors.finish()?;
        let (Some(settings), Some(serde), Some(checks), Some(ident)) =
            (settings, serde, checks, &field.ident)
        else {
            return Err(Error::new_spanned(field, "a named field was expected"));
        };
        if serde.skip {
            return Ok(None);
        }
        Ok(Some(Self {
            ty: &field.ty,
            wire: wire(serde.rename, ident, container.rename_all, Case::field),
            span: ident.span(),
            settings,
            description: description(&field.attrs),
            optional: serde.default || container.default,
            checks,
        }))
    }

    /// `{ checks; <T as FieldType>::field("wire").setting(..)... }`
    fn expr(&self) -> TokenStream {
        let (ty, wire, checks) = (self.ty, &self.wire, &self.checks);
        let s = &self.settings;
        let mut calls = Vec::new();
        if let Some(t) = &s.title {
            let t = &t.value;
            calls.push(quote!(.title(#t)));
        }
        if let Some(d) = &self.description {
            calls.push(quote!(.description(#d)));
        }
        for (name, count) in [
            ("min_length", s.min_length),
            ("max_length", s.max_length),
            ("min_items", s.min_items),
            ("max_items", s.max_items),
        ] {
            if let Some(n) = count {
                let (method, n) = (
                    syn::Ident::new(name, n.span),
                    Literal::u64_suffixed(n.value),
                );
                calls.push(quote!(.#method(#n)));
            }
        }
        for (name, bound) in [("minimum", s.minimum), ("maximum", s.maximum)] {
            if let Some(b) = bound {
                let (method, v) = (syn::Ident::new(name, b.span), float(b.value.as_f64()));
                calls.push(quote!(.#method(#v)));
            }
        }
        if let Some(f) = s.format {
            let f = match f.value {
                Format::Email => quote!(Email),
                Format::Uri => quote!(Uri),
                Format::Date => quote!(Date),
                Format::DateTime => quote!(DateTime),
            };
            calls.push(quote!(.format(::mrtr_guard::Format::#f)));
        }
        if self.optional {
            calls.push(quote!(.optional()));
        }
        let field = quote_spanned!(ty.span()=> <#ty as ::mrtr_guard::FieldType>::field(#wire));
        quote!({ #checks #field #(#calls)* })
    }
}

/// An `f64` literal, the sign as its own token.
fn float(v: f64) -> TokenStream {
    let magnitude = Literal::f64_suffixed(v.abs());
    if v.is_sign_negative() {
        quote!(-#magnitude)
    } else {
        quote!(#magnitude)
    }
}

/// What a setting applies to.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Applies {
    Text,
    Number,
    Items,
}

impl Applies {
    fn accepts(self, shape: Shape) -> bool {
        match self {
            Self::Text => shape == Shape::Text,
            Self::Number => matches!(shape, Shape::Integer(_) | Shape::Float),
            Self::Items => shape == Shape::List,
        }
    }

    fn fields(self) -> &'static str {
        match self {
            Self::Text => "String fields",
            Self::Number => "integer and float fields",
            Self::Items => "Vec fields (a multi-choice)",
        }
    }

    /// A call that compiles only when `ty` takes the setting; the type is
    /// respanned to the setting so that the error points at it.
    fn compiler_check(self, ty: &Type, span: Span) -> TokenStream {
        let check = match self {
            Self::Text => quote!(text),
            Self::Number => quote!(number),
            Self::Items => quote!(items),
        };
        let ty = respan(ty.to_token_stream(), span);
        quote_spanned!(span=> ::mrtr_guard::__private::#check::<#ty>();)
    }
}

/// `tokens`, every one of them at `span`.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|token| match token {
            TokenTree::Group(g) => {
                let mut group = Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                TokenTree::Group(group)
            }
            mut other => {
                other.set_span(span);
                other
            }
        })
        .collect()
}

/// Checks that each setting applies to the field's type and that the bounds
/// make sense; gives the checks left to the compiler.
fn check(s: &FieldSettings, ty: &Type) -> Result<TokenStream> {
    let shape = Shape::of(ty);
    let present = [
        ("min_length", s.min_length.map(|x| x.span), Applies::Text),
        ("max_length", s.max_length.map(|x| x.span), Applies::Text),
        ("format", s.format.map(|x| x.span), Applies::Text),
        ("minimum", s.minimum.map(|x| x.span), Applies::Number),
        ("maximum", s.maximum.map(|x| x.span), Applies::Number),
        ("min_items", s.min_items.map(|x| x.span), Applies::Items),
        ("max_items", s.max_items.map(|x| x.span), Applies::Items),
    ];
    let mut errors = Errors::default();
    let mut checks = TokenStream::new();
    let mut checked: Vec<Applies> = Vec::new();
    for (name, span, applies) in present {
        let Some(span) = span else { continue };
        if shape == Shape::Other {
            if !checked.contains(&applies) {
                checked.push(applies);
                checks.extend(applies.compiler_check(ty, span));
            }
        } else if !applies.accepts(shape) {
            let message = format!(
                "`{name}` applies to {}; this is {}",
                applies.fields(),
                shape.describe()
            );
            errors.push(Error::new(span, message));
        }
    }
    errors.keep(in_order(
        s.min_length,
        s.max_length,
        "min_length",
        "max_length",
    ));
    errors.keep(in_order(s.min_items, s.max_items, "min_items", "max_items"));
    errors.keep(bounds(s, shape));
    errors.finish()?;
    Ok(checks)
}

fn in_order(lo: Option<Setting<u64>>, hi: Option<Setting<u64>>, l: &str, h: &str) -> Result<()> {
    match (lo, hi) {
        (Some(lo), Some(hi)) if lo.value > hi.value => Err(Error::new(
            lo.span,
            format!("`{l}` ({}) is above `{h}` ({})", lo.value, hi.value),
        )),
        _ => Ok(()),
    }
}

/// The largest integer bound a JSON number keeps exactly (2^53).
const EXACT: i128 = 1 << 53;

/// `minimum`/`maximum`: in order, and on an integer field whole numbers its
/// type holds.
fn bounds(s: &FieldSettings, shape: Shape) -> Result<()> {
    if let (Some(lo), Some(hi)) = (s.minimum, s.maximum)
        && lo.value.as_f64() > hi.value.as_f64()
    {
        return Err(Error::new(lo.span, "`minimum` is above `maximum`"));
    }
    let Shape::Integer(range) = shape else {
        return Ok(());
    };
    let (lo, hi) = (range.min.max(-EXACT), range.max.min(EXACT));
    let mut errors = Errors::default();
    for (name, bound) in [("minimum", s.minimum), ("maximum", s.maximum)] {
        let Some(Setting { value, span }) = bound else {
            continue;
        };
        if !matches!(value.whole(), Some(v) if (lo..=hi).contains(&v)) {
            let message = format!(
                "`{name}` on a {} field must be a whole number from {lo} to {hi}",
                range.name
            );
            errors.push(Error::new(span, message));
        }
    }
    errors.finish()
}

/// The doc comment as one text (a bare `///` is an empty line): lines trimmed, a paragraph's lines joined
/// with spaces, paragraphs with a blank line.
fn description(attrs: &[Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter_map(doc_text)
        .flat_map(|text| {
            text.split('\n')
                .map(|l| l.trim().to_owned())
                .collect::<Vec<_>>()
        })
        .collect();
    let paragraphs: Vec<String> = lines
        .split(String::is_empty)
        .filter(|p| !p.is_empty())
        .map(|p| p.join(" "))
        .collect();
    (!paragraphs.is_empty()).then(|| paragraphs.join("\n\n"))
}

fn doc_text(attr: &Attribute) -> Option<String> {
    match &attr.meta {
        Meta::NameValue(nv) if nv.path.is_ident("doc") => match &nv.value {
            Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn docs_become_one_description() {
        let field: syn::FieldsNamed = syn::parse_quote!({
            /// The number printed
            ///   on the label.
            ///
            /// Ask the carrier.
            #[doc = ""]
            n: String,
            /**  Block
                 comment  */
            m: String,
            o: String,
        });
        let d: Vec<Option<String>> = field.named.iter().map(|f| description(&f.attrs)).collect();
        assert_eq!(
            d,
            [
                Some("The number printed on the label.\n\nAsk the carrier.".to_owned()),
                Some("Block comment".to_owned()),
                None
            ]
        );
    }

    #[test]
    fn negative_bounds_keep_their_sign() {
        assert_eq!(float(-2.5).to_string(), "- 2.5f64");
        assert_eq!(float(3.0).to_string(), "3f64");
    }
}
