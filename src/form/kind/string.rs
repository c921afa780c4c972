//! String fields (`type: "string"`, `minLength`, `maxLength`, `format`): emit,
//! parse and check.

use serde_json::{Map, Value};

use super::keywords::{Keywords, only};
use crate::form::error::FormError;
use crate::form::format::Format;
use crate::form::numbers::count;
use crate::form::report::Reason;
use crate::form::value::Checked;

/// A text field: lengths in Unicode code points, an optional format.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StringKind {
    pub(crate) min_length: Option<u64>,
    pub(crate) max_length: Option<u64>,
    pub(crate) format: Option<Format>,
}

impl StringKind {
    /// The keywords a text property may carry.
    const KEYWORDS: &[&str] = &["minLength", "maxLength", "format"];

    pub(crate) fn new(format: Option<Format>) -> Self {
        Self {
            min_length: None,
            max_length: None,
            format,
        }
    }

    pub(crate) fn emit(&self, out: &mut Keywords) {
        out.push(("type", "string".into()));
        if let Some(n) = self.min_length {
            out.push(("minLength", n.into()));
        }
        if let Some(n) = self.max_length {
            out.push(("maxLength", n.into()));
        }
        if let Some(fmt) = self.format {
            out.push(("format", fmt.as_str().into()));
        }
    }

    pub(crate) fn parse(name: &str, obj: &Map<String, Value>) -> Result<Self, FormError> {
        only(name, obj, Self::KEYWORDS)?;
        let length = |keyword| {
            obj.get(keyword)
                .map(|v| count(v).ok_or_else(|| FormError::bad(name, keyword)))
                .transpose()
        };
        let (min_length, max_length) = (length("minLength")?, length("maxLength")?);
        let format = match obj.get("format") {
            None => None,
            Some(v) => {
                let s = v.as_str().ok_or_else(|| FormError::bad(name, "format"))?;
                Some(
                    Format::from_name(s).ok_or_else(|| FormError::UnknownFormat {
                        field: name.to_owned(),
                        format: s.to_owned(),
                    })?,
                )
            }
        };
        Ok(Self {
            min_length,
            max_length,
            format,
        })
    }

    /// Checks the definition: `minLength <= maxLength`.
    pub(crate) fn compile(&self, name: &str) -> Result<(), FormError> {
        match (self.min_length, self.max_length) {
            (Some(lo), Some(hi)) if lo > hi => Err(FormError::MinAboveMax {
                field: name.to_owned(),
                keyword: "minLength",
            }),
            _ => Ok(()),
        }
    }

    /// Type, then length, then format.
    pub(crate) fn check<'v>(&self, v: &'v Value) -> Result<Checked<'v>, Reason> {
        let s = v.as_str().ok_or(Reason::WrongType)?;
        check_length(s, self.min_length, self.max_length)?;
        if let Some(fmt) = self.format
            && !fmt.check(s)
        {
            return Err(Reason::BadFormat);
        }
        Ok(Checked::Str(s))
    }
}

impl StringKind {
    /// What is wrong, in words a user understands (never the value).
    pub(crate) fn explain(&self, reason: Reason) -> String {
        let n = |bound: Option<u64>| bound.unwrap_or_default();
        match (reason, self.format) {
            (Reason::TooShort, _) if n(self.min_length) <= 1 => "must not be empty".into(),
            (Reason::TooShort, _) => format!("must be at least {} characters", n(self.min_length)),
            (Reason::TooLong, _) if n(self.max_length) == 1 => "must be at most 1 character".into(),
            (Reason::TooLong, _) => format!("must be at most {} characters", n(self.max_length)),
            (Reason::BadFormat, Some(Format::Email | Format::EmailRfc5321)) => {
                "not a valid email address".into()
            }
            (Reason::BadFormat, Some(Format::Uri)) => {
                "not a valid URI (such as https://example.com)".into()
            }
            (Reason::BadFormat, Some(Format::Date)) => "not a valid date (YYYY-MM-DD)".into(),
            (Reason::BadFormat, Some(Format::DateTime)) => {
                "not a valid date and time (YYYY-MM-DDThh:mm:ssZ)".into()
            }
            (_, None) => "must be text".into(),
            (_, Some(Format::Email | Format::EmailRfc5321)) => "must be an email address".into(),
            (_, Some(Format::Uri)) => "must be a URI".into(),
            (_, Some(Format::Date)) => "must be a date".into(),
            (_, Some(Format::DateTime)) => "must be a date and time".into(),
        }
    }
}

/// Length in Unicode code points, counted only as far as a bound needs.
fn check_length(s: &str, min: Option<u64>, max: Option<u64>) -> Result<(), Reason> {
    if min.is_none() && max.is_none() {
        return Ok(());
    }
    // Each code point is 1 to 4 bytes: decide from the byte length when possible.
    let bytes = u64::try_from(s.len()).unwrap_or(u64::MAX);
    let need_count = min.is_some_and(|lo| bytes >= lo && bytes / 4 < lo)
        || max.is_some_and(|hi| bytes > hi && bytes / 4 <= hi);
    if min.is_some_and(|lo| bytes < lo) {
        return Err(Reason::TooShort);
    }
    if max.is_some_and(|hi| bytes / 4 > hi) {
        return Err(Reason::TooLong);
    }
    if need_count {
        let n = u64::try_from(s.chars().count()).unwrap_or(u64::MAX);
        if min.is_some_and(|lo| n < lo) {
            return Err(Reason::TooShort);
        }
        if max.is_some_and(|hi| n > hi) {
            return Err(Reason::TooLong);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_count_code_points() {
        assert_eq!(check_length("💩💩", Some(2), Some(2)), Ok(()));
        assert_eq!(check_length("💩💩💩", None, Some(2)), Err(Reason::TooLong));
        assert_eq!(check_length("é", Some(2), None), Err(Reason::TooShort));
        assert_eq!(check_length("", Some(1), None), Err(Reason::TooShort));
        assert_eq!(check_length("abc", Some(0), Some(3)), Ok(()));
        assert_eq!(
            check_length(&"a".repeat(100), None, Some(10)),
            Err(Reason::TooLong)
        );
    }
}
