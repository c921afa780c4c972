//! Whether each `#[form(...)]` setting applies to its field's type, and
//! whether its bounds make sense: decided here from the type's name where
//! the macro can tell it, left to the compiler where it cannot.

use proc_macro2::{Group, Span, TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::{Error, Expr, ExprLit, ExprUnary, Lit, Result, Type, UnOp};

use crate::names::Errors;
use crate::settings::{FieldSettings, Number, Setting};
use crate::shape::Shape;

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
pub(crate) fn check(s: &FieldSettings, ty: &Type) -> Result<TokenStream> {
    let shape = Shape::of(ty);
    let present = [
        ("min_length", s.min_length.map(|x| x.span), Applies::Text),
        ("max_length", s.max_length.map(|x| x.span), Applies::Text),
        ("format", s.format.map(|x| x.span), Applies::Text),
        ("minimum", s.minimum.map(|x| x.span), Applies::Number),
        ("maximum", s.maximum.map(|x| x.span), Applies::Number),
        ("min_items", s.min_items.map(|x| x.span), Applies::Items),
        ("max_items", s.max_items.map(|x| x.span), Applies::Items),
        (
            "refuse_duplicates",
            s.refuse_duplicates.map(|x| x.span),
            Applies::Items,
        ),
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
    errors.keep(default_fits(s));
    errors.finish()?;
    Ok(checks)
}

/// A literal default within the field's own bounds and lengths (its type
/// the compiler checks): a default the form would refuse is a compile error
/// rather than a start-up one.
fn default_fits(s: &FieldSettings) -> Result<()> {
    let Some(default) = &s.default else {
        return Ok(());
    };
    let span = default.value.span();
    let Some(value) = default.value.one() else {
        return Ok(());
    };
    if let Some(n) = number_literal(value) {
        let v = n.as_f64();
        if let Some(lo) = s.minimum.filter(|lo| v < lo.value.as_f64()) {
            return Err(Error::new(
                span,
                format!("the default is below `minimum` ({})", show(lo.value)),
            ));
        }
        if let Some(hi) = s.maximum.filter(|hi| v > hi.value.as_f64()) {
            return Err(Error::new(
                span,
                format!("the default is above `maximum` ({})", show(hi.value)),
            ));
        }
    }
    if let Expr::Lit(ExprLit {
        lit: Lit::Str(text),
        ..
    }) = value
    {
        let len = u64::try_from(text.value().chars().count()).unwrap_or(u64::MAX);
        if let Some(lo) = s.min_length.filter(|lo| len < lo.value) {
            return Err(Error::new(
                span,
                format!("the default is shorter than `min_length` ({})", lo.value),
            ));
        }
        if let Some(hi) = s.max_length.filter(|hi| len > hi.value) {
            return Err(Error::new(
                span,
                format!("the default is longer than `max_length` ({})", hi.value),
            ));
        }
    }
    Ok(())
}

/// `3`, `-3`, `2.5` written as the expression.
fn number_literal(expr: &Expr) -> Option<Number> {
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Int(i), ..
        }) => i.base10_parse().ok().map(Number::Int),
        Expr::Lit(ExprLit {
            lit: Lit::Float(f), ..
        }) => f.base10_parse().ok().map(Number::Float),
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_),
            expr,
            ..
        }) => match number_literal(expr)? {
            Number::Int(i) => Some(Number::Int(i.checked_neg()?)),
            Number::Float(f) => Some(Number::Float(-f)),
        },
        Expr::Group(g) => number_literal(&g.expr),
        Expr::Paren(p) => number_literal(&p.expr),
        _ => None,
    }
}

fn show(n: Number) -> String {
    match n {
        Number::Int(i) => i.to_string(),
        Number::Float(f) => f.to_string(),
    }
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
