//! `#[derive(FormFields)]`: one field per named struct field the answer may
//! carry, in declaration order.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{
    Attribute, Data, DataStruct, DeriveInput, Error, Expr, ExprLit, Field, Fields, Lit, Meta,
    Result, Token, Type,
};

use crate::case::Case;
use crate::check::check;
use crate::names::{Errors, check_unique, wire};
use crate::serde_attrs::{Container, FIELD_REFUSES, Member, STRUCT_REFUSES};
use crate::settings::{FieldSettings, refuse_on_type};
use crate::shape::{Shape, is_option};

/// Why a map is not a field, and what to do instead.
const FLAT: &str = "MCP forms are flat: a field is one text, number, yes/no or choice, \
     so a map cannot be a field; ask for each entry as a field of its own, or with \
     several forms (in one round or in several)";

/// An `impl FormFields` with no fields, beside the errors of a derive that
/// failed: the type still implements the trait, so that the mistake is
/// reported once, where it was made, and not again wherever the type is used.
pub(crate) fn fallback(input: &DeriveInput) -> TokenStream {
    crate::empty_impl(
        input,
        quote!(::mrtr_guard::FormFields),
        quote! {
            fn form_fields() -> ::std::vec::Vec<::mrtr_guard::Field> {
                ::std::vec::Vec::new()
            }
        },
    )
}

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
                .push(syn::parse_quote!(#ty: ::mrtr_guard::form::FieldType));
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
        if Shape::of(&field.ty) == Shape::Map {
            return Err(Error::new_spanned(&field.ty, FLAT));
        }
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
        let optional = serde.default || container.default;
        if let Some(drop) = &settings.drop_if_invalid {
            let shape = Shape::of(&field.ty);
            if !optional && !is_option(&field.ty) && shape != Shape::Other {
                return Err(Error::new(
                    drop.span,
                    "`drop_if_invalid` applies to optional fields (`Option<T>` or \
                     `#[serde(default)]`): an invalid answer to a required field is always \
                     asked again",
                ));
            }
        }
        Ok(Some(Self {
            ty: &field.ty,
            wire: wire(serde.rename, ident, container.rename_all, Case::field),
            span: ident.span(),
            settings,
            description: description(&field.attrs),
            optional,
            checks,
        }))
    }

    /// `{ checks; <T as FieldType>::field("wire").setting(..)... }`
    fn expr(&self) -> TokenStream {
        let (ty, wire, checks) = (self.ty, &self.wire, &self.checks);
        let mut calls = Vec::new();
        if let Some(d) = self
            .description
            .as_ref()
            .filter(|_| self.settings.description.is_none())
        {
            calls.push(quote!(.description(#d)));
        }
        calls.extend(self.settings.calls());
        calls.extend(self.settings.default_call(ty));
        if self.optional {
            calls.push(quote!(.optional()));
        }
        let field =
            quote_spanned!(ty.span()=> <#ty as ::mrtr_guard::form::FieldType>::field(#wire));
        quote!({ #checks #field #(#calls)* })
    }
}

/// The doc comment as one text: lines trimmed (a bare `///` is an empty
/// line), a paragraph's lines joined with spaces, paragraphs with a blank
/// line.
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
}
