//! String formats of the form profile ([`Format`]), one small file each:
//! `email` (both profiles), `uri`, and `date` (`date` and `date-time`), the
//! parsers written on `cursor` (a cursor over ASCII bytes). Every check caps
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
    /// An email address as a person types it: `local@domain.tld`, the local
    /// part RFC 5321's dot-string (letters, digits, ``!#$%&'*+-/=?^_`{|}~``,
    /// single dots between), the domain at least two labels of letters,
    /// digits and inner hyphens; at most 254 bytes, 64 before the `@`. No
    /// quoted local part, address literal (`ada@[127.0.0.1]`) or single-label
    /// domain (`ada@localhost`): RFC 5321 allows them, a form's user never
    /// means them, and mail code downstream mishandles them. Wire name
    /// `email`.
    Email,
    /// RFC 5321's whole `Mailbox` grammar, for a server that needs it:
    /// [`Email`](Self::Email) plus quoted local parts, address literals and
    /// single-label domains. Sent as `email` too, so a form parsed back from
    /// its schema checks the default [`Email`](Self::Email).
    EmailRfc5321,
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
            Self::Email | Self::EmailRfc5321 => "email",
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
            Self::EmailRfc5321 => email::is_rfc5321_mailbox(s),
            Self::Uri => uri::is_uri(s),
            Self::Date => date::is_date(s),
            Self::DateTime => date::is_date_time(s),
        }
    }
}
