//! Build-time errors of a [`Form`](crate::form::Form).

use std::fmt;

use crate::form::report::Reason;
use crate::json::JsonError;

/// Why a form could not be built or a `requestedSchema` could not be parsed.
///
/// Every variant that concerns one property names it (`field`); a schema-level
/// problem has `field: None`. Messages are written for the server developer:
/// the schema is server-authored, never client input.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FormError {
    /// The elicitation message is empty or only whitespace.
    BlankMessage,
    /// A field has an empty wire name.
    EmptyFieldName,
    /// Two fields share one wire name.
    DuplicateField {
        /// The repeated name.
        field: String,
    },
    /// A field title was set to an empty or whitespace-only string.
    BlankTitle {
        /// The field.
        field: String,
    },
    /// A lower bound is above the upper bound (`minLength`/`maxLength`,
    /// `minimum`/`maximum` or `minItems`/`maxItems`).
    MinAboveMax {
        /// The field.
        field: String,
        /// The lower bound keyword, e.g. `minLength`.
        keyword: &'static str,
    },
    /// A choice offers the same value twice.
    DuplicateOption {
        /// The field.
        field: String,
        /// The repeated value.
        option: String,
    },
    /// A choice offers the empty string.
    EmptyOption {
        /// The field.
        field: String,
    },
    /// A titled option has an empty or whitespace-only title.
    BlankOptionTitle {
        /// The field.
        field: String,
        /// The value whose title is blank.
        option: String,
    },
    /// A choice has no options.
    NoOptions {
        /// The field.
        field: String,
    },
    /// A choice mixes titled and untitled options.
    MixedOptions {
        /// The field.
        field: String,
    },
    /// The default is not of the field's type.
    DefaultWrongType {
        /// The field.
        field: String,
    },
    /// The default (or one of its items) is not an offered option.
    DefaultNotOffered {
        /// The field.
        field: String,
    },
    /// The default is of the right type but the field itself would refuse it
    /// (length, bounds, format, item count, duplicate items).
    DefaultRejected {
        /// The field.
        field: String,
        /// The reason the validator gives.
        reason: Reason,
    },
    /// A string field names a `format` outside `email`, `uri`, `date`, `date-time`.
    UnknownFormat {
        /// The field.
        field: String,
        /// The format that was asked for.
        format: String,
    },
    /// A builder setting that does not apply to the field's kind (e.g.
    /// `minLength` on a boolean).
    NotApplicable {
        /// The field.
        field: String,
        /// The keyword that does not apply.
        keyword: &'static str,
    },
    /// A nested object (`type: "object"` or `properties` inside a property).
    Nested {
        /// The field.
        field: String,
    },
    /// A `$ref` anywhere in the schema.
    Ref {
        /// The field, or `None` at the top level.
        field: Option<String>,
    },
    /// An array that is not a multi-select enum (`items` without `enum` or `anyOf`).
    ArrayNotMultiSelect {
        /// The field.
        field: String,
    },
    /// A `type` outside the profile (`null`, a list of types, ...).
    UnsupportedType {
        /// The field, or `None` at the top level.
        field: Option<String>,
    },
    /// A keyword outside the profile.
    UnsupportedKeyword {
        /// The field, or `None` at the top level.
        field: Option<String>,
        /// The keyword.
        keyword: String,
    },
    /// A keyword the profile needs is absent.
    MissingKeyword {
        /// The field, or `None` at the top level.
        field: Option<String>,
        /// The keyword.
        keyword: &'static str,
    },
    /// A keyword has a value of the wrong shape (e.g. a negative `minLength`,
    /// a fractional bound on an integer field, a non-string `enum` item).
    BadKeywordValue {
        /// The field, or `None` at the top level.
        field: Option<String>,
        /// The keyword.
        keyword: &'static str,
    },
    /// `required` names a property that does not exist.
    RequiredUnknown {
        /// The name in `required`.
        field: String,
    },
    /// The `requestedSchema` is not a JSON object.
    SchemaNotObject,
    /// The `requestedSchema` text is not strict JSON
    /// ([`Form::from_requested_schema_json`](crate::form::Form::from_requested_schema_json)).
    Json(JsonError),
    /// An override or exclusion names a field the form does not have.
    UnknownField {
        /// The name.
        field: String,
    },
    /// [`Field::drop_if_invalid`](crate::form::Field::drop_if_invalid) on a
    /// required field: there is nothing to drop, a required answer that is
    /// invalid is always asked again.
    DropOnRequired {
        /// The field.
        field: String,
    },
}

impl FormError {
    /// A keyword of property `field` has a value of the wrong shape.
    pub(crate) fn bad(field: &str, keyword: &'static str) -> Self {
        Self::BadKeywordValue {
            field: Some(field.to_owned()),
            keyword,
        }
    }
}

impl fmt::Display for FormError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::BlankMessage => f.write_str("the elicitation message is blank"),
            Self::EmptyFieldName => f.write_str("a field has an empty name"),
            Self::DuplicateField { field } => write!(f, "field {field:?} is declared twice"),
            Self::BlankTitle { field } => write!(f, "field {field:?}: the title is blank"),
            Self::MinAboveMax { field, keyword } => {
                write!(f, "field {field:?}: {keyword} is above its upper bound")
            }
            Self::DuplicateOption { field, option } => {
                write!(f, "field {field:?}: option {option:?} is offered twice")
            }
            Self::EmptyOption { field } => write!(f, "field {field:?}: an option is empty"),
            Self::BlankOptionTitle { field, option } => {
                write!(f, "field {field:?}: option {option:?} has a blank title")
            }
            Self::NoOptions { field } => write!(f, "field {field:?}: a choice needs options"),
            Self::MixedOptions { field } => {
                write!(
                    f,
                    "field {field:?}: options are either all titled or all untitled"
                )
            }
            Self::DefaultWrongType { field } => {
                write!(f, "field {field:?}: the default is not of the field's type")
            }
            Self::DefaultNotOffered { field } => {
                write!(f, "field {field:?}: the default is not an offered option")
            }
            Self::DefaultRejected { field, reason } => {
                write!(
                    f,
                    "field {field:?}: the default is refused by the field ({reason})"
                )
            }
            Self::UnknownFormat { field, format } => write!(
                f,
                "field {field:?}: format {format:?} is not one of email, uri, date, date-time"
            ),
            Self::NotApplicable { field, keyword } => {
                write!(
                    f,
                    "field {field:?}: {keyword} does not apply to this kind of field"
                )
            }
            Self::Nested { field } => write!(
                f,
                "field {field:?}: nested objects are outside the form profile"
            ),
            Self::Ref { field: Some(field) } => {
                write!(f, "field {field:?}: $ref is outside the form profile")
            }
            Self::Ref { field: None } => {
                f.write_str("requestedSchema: $ref is outside the form profile")
            }
            Self::ArrayNotMultiSelect { field } => write!(
                f,
                "field {field:?}: an array must be a multi-select enum (items with enum or anyOf)"
            ),
            Self::UnsupportedType { field: Some(field) } => write!(
                f,
                "field {field:?}: type must be string, number, integer, boolean or array"
            ),
            Self::UnsupportedType { field: None } => {
                f.write_str("requestedSchema: type must be \"object\"")
            }
            Self::UnsupportedKeyword {
                field: Some(field),
                keyword,
            } => {
                write!(
                    f,
                    "field {field:?}: keyword {keyword:?} is outside the form profile"
                )
            }
            Self::UnsupportedKeyword {
                field: None,
                keyword,
            } => write!(
                f,
                "requestedSchema: keyword {keyword:?} is outside the form profile"
            ),
            Self::MissingKeyword {
                field: Some(field),
                keyword,
            } => {
                write!(f, "field {field:?}: keyword {keyword:?} is missing")
            }
            Self::MissingKeyword {
                field: None,
                keyword,
            } => {
                write!(f, "requestedSchema: keyword {keyword:?} is missing")
            }
            Self::BadKeywordValue {
                field: Some(field),
                keyword,
            } => {
                write!(
                    f,
                    "field {field:?}: keyword {keyword:?} has a value of the wrong shape"
                )
            }
            Self::BadKeywordValue {
                field: None,
                keyword,
            } => write!(
                f,
                "requestedSchema: keyword {keyword:?} has a value of the wrong shape"
            ),
            Self::RequiredUnknown { field } => {
                write!(f, "required names {field:?}, which is not a property")
            }
            Self::SchemaNotObject => f.write_str("requestedSchema must be a JSON object"),
            Self::Json(e) => write!(f, "requestedSchema is not strict json: {e}"),
            Self::UnknownField { field } => write!(f, "the form has no field {field:?}"),
            Self::DropOnRequired { field } => write!(
                f,
                "field {field:?}: drop_if_invalid applies to optional fields; an invalid \
                 answer to a required field is always asked again"
            ),
        }
    }
}

impl std::error::Error for FormError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Json(e) => Some(e),
            _ => None,
        }
    }
}
