//! Wire names: what a field or an option is called on the wire, checked
//! once for both derives.

use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::{Error, Ident, Result};

use crate::case::Case;

/// `rename` if given, else the Rust name (`r#type` → `type`) under
/// `rename_all` through `apply`.
pub(crate) fn wire(
    rename: Option<String>,
    ident: &Ident,
    rename_all: Option<Case>,
    apply: fn(Case, &str) -> String,
) -> String {
    rename.unwrap_or_else(|| {
        let name = ident.unraw().to_string();
        rename_all.map_or_else(|| name.clone(), |case| apply(case, &name))
    })
}

/// Every name non-empty and used once; `what` names them in the message.
pub(crate) fn check_unique<'a>(
    names: impl IntoIterator<Item = (&'a str, Span)>,
    what: &str,
) -> Result<()> {
    let mut seen: Vec<&str> = Vec::new();
    let mut errors = Errors::default();
    for (name, span) in names {
        if name.is_empty() {
            errors.push(Error::new(span, format!("the {what} is empty")));
        } else if seen.contains(&name) {
            errors.push(Error::new(
                span,
                format!("the {what} \"{name}\" is already used above"),
            ));
        }
        seen.push(name);
    }
    errors.finish()
}

/// Errors gathered so that one compile reports them all.
#[derive(Debug, Default)]
pub(crate) struct Errors(Option<Error>);

impl Errors {
    pub(crate) fn push(&mut self, error: Error) {
        match &mut self.0 {
            Some(first) => first.combine(error),
            None => self.0 = Some(error),
        }
    }

    /// The value, or keeps the error and gives `None`.
    pub(crate) fn keep<T>(&mut self, result: Result<T>) -> Option<T> {
        result.map_err(|e| self.push(e)).ok()
    }

    pub(crate) fn finish(self) -> Result<()> {
        self.0.map_or(Ok(()), Err)
    }
}
