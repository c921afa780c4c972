//! String formats of the form profile ([`Format`]), one small file each. Every check caps
//! the length before it parses, and looks at bytes only (non-ASCII input is
//! refused by all four formats).

mod cursor;
mod date;
mod email;
mod uri;

/// A string format of the MCP form profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// An RFC 5321 mailbox (`local@domain`), no display name.
    Email,
    /// An RFC 3986 absolute URI (a scheme is required; a fragment is allowed).
    Uri,
    /// An RFC 3339 `full-date` (`2024-02-29`).
    Date,
    /// An RFC 3339 `date-time` (`2024-02-29T12:00:00Z`).
    DateTime,
}

impl Format {
    /// The wire name: `email`, `uri`, `date` or `date-time`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Email => "email",
            Self::Uri => "uri",
            Self::Date => "date",
            Self::DateTime => "date-time",
        }
    }

    /// The format with this wire name, if the profile has it.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "email" => Some(Self::Email),
            "uri" => Some(Self::Uri),
            "date" => Some(Self::Date),
            "date-time" => Some(Self::DateTime),
            _ => None,
        }
    }

    /// Whether `s` has this format.
    pub(crate) fn check(self, s: &str) -> bool {
        match self {
            Self::Email => email::is_email(s),
            Self::Uri => uri::is_uri(s),
            Self::Date => date::is_date(s),
            Self::DateTime => date::is_date_time(s),
        }
    }
}
