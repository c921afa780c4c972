//! The `#[serde(...)]` attributes that decide what a form asks and under
//! which names: `rename`, `rename_all`, `skip`, `default`. Attributes that
//! change the wire shape beyond what a flat form can follow are refused;
//! the rest are serde's business and are left alone.

use syn::punctuated::Punctuated;
use syn::{Attribute, Error, Expr, ExprLit, Lit, LitStr, Meta, MetaNameValue, Result, Token};

use crate::case::Case;

/// The serde attributes of a struct or an enum.
#[derive(Debug, Default)]
pub(crate) struct Container {
    pub(crate) rename_all: Option<Case>,
    /// `#[serde(default)]`: every field may be left out.
    pub(crate) default: bool,
}

/// The serde attributes of a field or a variant.
#[derive(Debug, Default)]
pub(crate) struct Member {
    pub(crate) rename: Option<String>,
    /// `skip`, `skip_deserializing` (and `other`, for a variant): not asked.
    pub(crate) skip: bool,
    pub(crate) default: bool,
}

/// Container attributes a struct cannot have.
pub(crate) const STRUCT_REFUSES: &[&str] = &["transparent", "from", "try_from"];
/// Container attributes an enum cannot have.
pub(crate) const ENUM_REFUSES: &[&str] = &["tag", "content", "untagged", "from", "try_from"];
/// Field attributes refused.
pub(crate) const FIELD_REFUSES: &[&str] = &["flatten"];
/// Variant attributes refused.
pub(crate) const VARIANT_REFUSES: &[&str] = &["untagged"];

impl Container {
    /// Reads `#[serde(...)]` on a type, refusing the names in `refuses`.
    pub(crate) fn parse(attrs: &[Attribute], refuses: &[&str]) -> Result<Self> {
        let mut c = Self::default();
        for meta in serde_metas(attrs, refuses)? {
            match name(&meta).as_str() {
                "rename_all" => {
                    if let Some(lit) = deserialize_name(&meta)? {
                        c.rename_all = Some(case(&lit)?);
                    }
                }
                "default" => c.default = true,
                _ => {}
            }
        }
        Ok(c)
    }
}

impl Member {
    /// Reads `#[serde(...)]` on a field or a variant, refusing the names in
    /// `refuses`.
    pub(crate) fn parse(attrs: &[Attribute], refuses: &[&str]) -> Result<Self> {
        let mut m = Self::default();
        for meta in serde_metas(attrs, refuses)? {
            match name(&meta).as_str() {
                "rename" => m.rename = deserialize_name(&meta)?.map(|lit| lit.value()),
                "skip" | "skip_deserializing" | "other" => m.skip = true,
                "default" => m.default = true,
                _ => {}
            }
        }
        Ok(m)
    }
}

/// Every item of every `#[serde(...)]`, the refused ones reported.
fn serde_metas(attrs: &[Attribute], refuses: &[&str]) -> Result<Vec<Meta>> {
    let mut metas = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        metas.extend(attr.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)?);
    }
    if let Some(meta) = metas.iter().find(|m| refuses.contains(&name(m).as_str())) {
        return Err(Error::new_spanned(
            meta.path(),
            format!(
                "#[serde({})] changes the shape of the data beyond what a flat form can ask",
                name(meta)
            ),
        ));
    }
    Ok(metas)
}

fn name(meta: &Meta) -> String {
    meta.path()
        .get_ident()
        .map(ToString::to_string)
        .unwrap_or_default()
}

/// The name used when deserializing: `key = "x"`, or
/// `key(deserialize = "x")`; `None` for `key(serialize = "x")` alone.
fn deserialize_name(meta: &Meta) -> Result<Option<LitStr>> {
    match meta {
        Meta::NameValue(nv) => string(&nv.value).map(Some),
        Meta::List(list) => {
            let items =
                list.parse_args_with(Punctuated::<MetaNameValue, Token![,]>::parse_terminated)?;
            items
                .iter()
                .find(|nv| nv.path.is_ident("deserialize"))
                .map(|nv| string(&nv.value))
                .transpose()
        }
        Meta::Path(path) => Err(Error::new_spanned(path, "expected a name in quotes")),
    }
}

/// A string literal, also as a `macro_rules!` fragment (an invisible group).
fn string(expr: &Expr) -> Result<LitStr> {
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Str(lit), ..
        }) => Ok(lit.clone()),
        Expr::Group(group) => string(&group.expr),
        other => Err(Error::new_spanned(other, "expected a name in quotes")),
    }
}

fn case(lit: &LitStr) -> Result<Case> {
    Case::from_name(&lit.value()).ok_or_else(|| {
        Error::new(
            lit.span(),
            format!("unknown rename_all rule; serde has {}", Case::names()),
        )
    })
}
