//! `#[form(...)]`: the settings a field or a variant takes, parsed with the
//! span of each key so that a mistake is reported where it was written.

use proc_macro2::{Literal, Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::meta::ParseNestedMeta;
use syn::parse::Parse;
use syn::spanned::Spanned;
use syn::{Attribute, Error, Expr, Lit, LitStr, Result, Token};

/// A setting's value and where its key was written.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Setting<T> {
    pub(crate) value: T,
    pub(crate) span: Span,
}

/// A number as written: `3`, `-3`, `2.5`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Number {
    Int(i128),
    Float(f64),
}

impl Number {
    pub(crate) fn as_f64(self) -> f64 {
        match self {
            #[expect(clippy::cast_precision_loss, reason = "bounds are checked within 2^53")]
            Self::Int(i) => i as f64,
            Self::Float(f) => f,
        }
    }

    /// The value as a whole number, when it is one.
    pub(crate) fn whole(self) -> Option<i128> {
        match self {
            Self::Int(i) => Some(i),
            // Whole and within ±2^64, so exact.
            #[expect(clippy::cast_possible_truncation, reason = "whole, and range-checked")]
            Self::Float(f) if f.fract() == 0.0 && f.abs() <= 1.9e19 => Some(f as i128),
            Self::Float(_) => None,
        }
    }
}

/// A string format of the MCP form profile, as the `format` setting names it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Format {
    Email,
    Uri,
    Date,
    DateTime,
}

/// A default as written: one expression, or `[a, b]` (the items of a
/// multi-choice), kept with its span.
#[derive(Clone)]
pub(crate) enum Written {
    One(Expr),
    Items(Vec<Expr>, Span),
}

impl Written {
    /// `[a, b]` is read here: `syn` without its `full` feature parses no
    /// array expression.
    fn parse(input: syn::parse::ParseStream<'_>) -> Result<Self> {
        if input.peek(syn::token::Bracket) {
            let content;
            let bracket = syn::bracketed!(content in input);
            let items = content.parse_terminated(Expr::parse, Token![,])?;
            return Ok(Self::Items(
                items.into_iter().collect(),
                bracket.span.join(),
            ));
        }
        Ok(Self::One(input.parse()?))
    }

    pub(crate) fn span(&self) -> Span {
        match self {
            Self::One(expr) => expr.span(),
            Self::Items(_, span) => *span,
        }
    }

    /// The one expression, if it is not a list.
    pub(crate) fn one(&self) -> Option<&Expr> {
        match self {
            Self::One(expr) => Some(expr),
            Self::Items(..) => None,
        }
    }
}

/// `syn` is built without `Debug`.
impl std::fmt::Debug for Written {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Written(..)")
    }
}

/// The settings of one field.
#[derive(Debug, Default)]
pub(crate) struct FieldSettings {
    pub(crate) title: Option<Setting<String>>,
    pub(crate) min_length: Option<Setting<u64>>,
    pub(crate) max_length: Option<Setting<u64>>,
    pub(crate) minimum: Option<Setting<Number>>,
    pub(crate) maximum: Option<Setting<Number>>,
    pub(crate) min_items: Option<Setting<u64>>,
    pub(crate) max_items: Option<Setting<u64>>,
    pub(crate) format: Option<Setting<Format>>,
    pub(crate) description: Option<Setting<String>>,
    /// The expression as written; the compiler checks its type.
    pub(crate) default: Option<Setting<Written>>,
    pub(crate) refuse_duplicates: Option<Setting<()>>,
    pub(crate) drop_if_invalid: Option<Setting<()>>,
}

const FIELD_KEYS: &str = "title, description, default, min_length, max_length, format, \
     minimum, maximum, min_items, max_items, refuse_duplicates, drop_if_invalid";

impl FieldSettings {
    /// The settings in every `#[form(...)]` on a field.
    pub(crate) fn parse(attrs: &[Attribute]) -> Result<Self> {
        let mut s = Self::default();
        for_each_setting(attrs, |meta| match key(&meta).as_str() {
            "title" => put(&mut s.title, &meta, title(&meta)?),
            "description" => put(&mut s.description, &meta, text(&meta, "description")?),
            "default" => put(&mut s.default, &meta, Written::parse(meta.value()?)?),
            "refuse_duplicates" => put(&mut s.refuse_duplicates, &meta, flag(&meta)?),
            "drop_if_invalid" => put(&mut s.drop_if_invalid, &meta, flag(&meta)?),
            "min_length" => put(&mut s.min_length, &meta, count(&meta)?),
            "max_length" => put(&mut s.max_length, &meta, count(&meta)?),
            "minimum" => put(&mut s.minimum, &meta, number(&meta)?),
            "maximum" => put(&mut s.maximum, &meta, number(&meta)?),
            "min_items" => put(&mut s.min_items, &meta, count(&meta)?),
            "max_items" => put(&mut s.max_items, &meta, count(&meta)?),
            "format" => put(&mut s.format, &meta, format(&meta)?),
            _ => Err(meta.error(format!("unknown form setting; a field takes {FIELD_KEYS}"))),
        })?;
        Ok(s)
    }

    /// The builder calls that apply these settings to a field.
    pub(crate) fn calls(&self) -> Vec<TokenStream> {
        let mut calls = Vec::new();
        if let Some(t) = &self.title {
            let t = &t.value;
            calls.push(quote!(.title(#t)));
        }
        if let Some(d) = &self.description {
            let d = &d.value;
            calls.push(quote!(.description(#d)));
        }
        for (name, count) in [
            ("min_length", self.min_length),
            ("max_length", self.max_length),
            ("min_items", self.min_items),
            ("max_items", self.max_items),
        ] {
            if let Some(n) = count {
                let (method, n) = (
                    syn::Ident::new(name, n.span),
                    Literal::u64_suffixed(n.value),
                );
                calls.push(quote!(.#method(#n)));
            }
        }
        for (name, bound) in [("minimum", self.minimum), ("maximum", self.maximum)] {
            if let Some(b) = bound {
                let (method, v) = (syn::Ident::new(name, b.span), float(b.value.as_f64()));
                calls.push(quote!(.#method(#v)));
            }
        }
        if let Some(f) = self.format {
            let f = match f.value {
                Format::Email => quote!(Email),
                Format::Uri => quote!(Uri),
                Format::Date => quote!(Date),
                Format::DateTime => quote!(DateTime),
            };
            calls.push(quote!(.format(::mrtr_guard::form::Format::#f)));
        }
        for (name, flag) in [
            ("refuse_duplicates", self.refuse_duplicates),
            ("drop_if_invalid", self.drop_if_invalid),
        ] {
            if let Some(f) = flag {
                let method = syn::Ident::new(name, f.span);
                calls.push(quote!(.#method()));
            }
        }
        calls
    }

    /// `.default(..)` for a field of type `ty`: a call that type-checks only
    /// when the value fits the field, the mismatch reported at the value. An
    /// array (the items of a multi-choice) is passed as a slice.
    pub(crate) fn default_call(&self, ty: &syn::Type) -> Option<TokenStream> {
        let written = &self.default.as_ref()?.value;
        let span = written.span();
        let value = match written {
            Written::Items(items, _) => quote_spanned!(span=> &[#(#items),*]),
            Written::One(value) => quote!(#value),
        };
        Some(quote_spanned! {span=>
            .default(::mrtr_guard::__private::default::<#ty>(#value))
        })
    }
}

/// The title in `#[form(title = "...")]` on an enum variant, its only setting.
pub(crate) fn variant_title(attrs: &[Attribute]) -> Result<Option<Setting<String>>> {
    let mut found = None;
    for_each_setting(attrs, |meta| match key(&meta).as_str() {
        "title" => put(&mut found, &meta, title(&meta)?),
        _ => Err(meta.error("unknown form setting; a variant takes only title")),
    })?;
    Ok(found)
}

/// Refuses `#[form(...)]` on the type itself: every setting is per field or
/// per variant.
pub(crate) fn refuse_on_type(attrs: &[Attribute]) -> Result<()> {
    for_each_setting(attrs, |meta| {
        Err(meta.error("form settings go on a field or a variant, not on the type"))
    })
}

fn for_each_setting(
    attrs: &[Attribute],
    mut f: impl FnMut(ParseNestedMeta<'_>) -> Result<()>,
) -> Result<()> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("form"))
        .try_for_each(|a| a.parse_nested_meta(&mut f))
}

fn key(meta: &ParseNestedMeta<'_>) -> String {
    meta.path
        .get_ident()
        .map(ToString::to_string)
        .unwrap_or_default()
}

fn put<T>(slot: &mut Option<Setting<T>>, meta: &ParseNestedMeta<'_>, value: T) -> Result<()> {
    if slot.is_some() {
        return Err(meta.error("this setting is given twice"));
    }
    *slot = Some(Setting {
        value,
        span: meta.path.span(),
    });
    Ok(())
}

fn title(meta: &ParseNestedMeta<'_>) -> Result<String> {
    text(meta, "title")
}

/// A non-blank string literal; `what` names it in the error.
fn text(meta: &ParseNestedMeta<'_>, what: &str) -> Result<String> {
    let lit: LitStr = meta.value()?.parse()?;
    let text = lit.value();
    if text.trim().is_empty() {
        return Err(Error::new(
            lit.span(),
            format!("a {what} must not be blank"),
        ));
    }
    Ok(text)
}

/// A setting written as a bare word, `#[form(refuse_duplicates)]`.
fn flag(meta: &ParseNestedMeta<'_>) -> Result<()> {
    if meta.input.peek(Token![=]) {
        return Err(meta.error("this setting takes no value: write it alone"));
    }
    Ok(())
}

fn count(meta: &ParseNestedMeta<'_>) -> Result<u64> {
    let input = meta.value()?;
    let lit: syn::LitInt = input
        .parse()
        .map_err(|e| Error::new(e.span(), "expected a whole number literal of 0 or more"))?;
    lit.base10_parse()
}

fn number(meta: &ParseNestedMeta<'_>) -> Result<Number> {
    let input = meta.value()?;
    let minus: Option<Token![-]> = input.parse()?;
    let sign = if minus.is_some() { -1 } else { 1 };
    match input.parse()? {
        Lit::Int(lit) => Ok(Number::Int(
            lit.base10_parse::<i128>()?.saturating_mul(sign),
        )),
        Lit::Float(lit) => {
            let value = lit.base10_parse::<f64>()?;
            if !value.is_finite() {
                return Err(Error::new(lit.span(), "a bound must be a finite number"));
            }
            Ok(Number::Float(if sign < 0 { -value } else { value }))
        }
        other => Err(Error::new(other.span(), "expected a number literal")),
    }
}

fn format(meta: &ParseNestedMeta<'_>) -> Result<Format> {
    let lit: LitStr = meta.value()?.parse()?;
    match lit.value().as_str() {
        "email" => Ok(Format::Email),
        "uri" => Ok(Format::Uri),
        "date" => Ok(Format::Date),
        "date-time" => Ok(Format::DateTime),
        _ => Err(Error::new(
            lit.span(),
            "unknown format; the form profile has \"email\", \"uri\", \"date\" and \"date-time\"",
        )),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negative_bounds_keep_their_sign() {
        assert_eq!(float(-2.5).to_string(), "- 2.5f64");
        assert_eq!(float(3.0).to_string(), "3f64");
    }
}
