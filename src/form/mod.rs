//! Forms: one field list that emits the restricted `requestedSchema` and
//! validates the answers against the same fields.

mod choice;
mod error;
mod field;
mod fields;
mod schema;
mod title;

use std::fmt;
use std::sync::{Arc, OnceLock};

use serde_json::Value;

pub use choice::FormChoice;
pub use error::FormError;
pub(crate) use field::{Choice, Kind, exact_i64};
pub use field::{Field, FieldKind, Format};
pub use fields::{FieldType, FormFields};
pub(crate) use schema::number_json;

/// A compiled form: the elicitation message and its fields, checked once,
/// immutable, cheap to clone (`Arc` inside), `Send + Sync`.
///
/// Fields are kept sorted by wire name: a JSON object carries no order, and
/// the crate emits properties in that order so output is deterministic.
///
/// <div class="warning">
///
/// Form mode must not collect secrets (passwords, API keys, tokens, payment
/// credentials): the MCP spec requires URL-mode elicitation for those. A
/// "password" here would be a plain string field, visible to the client.
///
/// </div>
///
/// ```
/// use mrtr_guard::{Field, Form};
/// use serde_json::json;
///
/// let form = Form::builder("Where should we ship?")
///     .field(Field::string("trackingNumber").max_length(40).required())
///     .field(Field::email("email"))
///     .build()?;
/// assert_eq!(
///     form.requested_schema(),
///     json!({
///         "type": "object",
///         "properties": {
///             "email": {"type": "string", "title": "Email", "format": "email"},
///             "trackingNumber": {"type": "string", "title": "Tracking Number", "maxLength": 40}
///         },
///         "required": ["trackingNumber"]
///     })
/// );
/// # Ok::<(), mrtr_guard::FormError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Form {
    inner: Arc<Inner>,
}

struct Inner {
    message: String,
    fields: Vec<Field>,
    /// `schema::emit(&fields)`, made once at build.
    schema: Value,
    /// The digest the runtime records for this form's elicitation request,
    /// made on first use and kept (see [`Form::request_digest`]).
    request_digest: OnceLock<[u8; 32]>,
}

impl PartialEq for Inner {
    /// The message and the fields: what is cached from them is left out.
    fn eq(&self, other: &Self) -> bool {
        self.message == other.message && self.fields == other.fields
    }
}

impl fmt::Debug for Inner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Inner")
            .field("message", &self.message)
            .field("fields", &self.fields)
            .finish_non_exhaustive()
    }
}

impl Form {
    /// Starts a form with the message shown to the user.
    pub fn builder(message: impl Into<String>) -> FormBuilder {
        FormBuilder {
            message: message.into(),
            fields: Vec::new(),
            error: None,
        }
    }

    /// Starts a form with the fields of the user's type `T` (see [`FormFields`]);
    /// adjust them with [`FormBuilder::configure`] and [`FormBuilder::exclude`].
    pub fn of<T: FormFields>(message: impl Into<String>) -> FormBuilder {
        Self::builder(message).fields_of::<T>()
    }

    /// Parses a `requestedSchema` of the MCP form profile (including the
    /// deprecated `enumNames` shape, read as a titled single choice).
    ///
    /// # Errors
    ///
    /// Anything outside the profile, naming the keyword and the property, and
    /// every error [`FormBuilder::build`] reports.
    pub fn from_requested_schema(
        message: impl Into<String>,
        schema: &Value,
    ) -> Result<Self, FormError> {
        let fields = schema::parse(schema)?;
        fields
            .into_iter()
            .fold(Self::builder(message), FormBuilder::field)
            .build()
    }

    /// The elicitation message.
    #[must_use]
    pub fn message(&self) -> &str {
        &self.inner.message
    }

    /// The fields, sorted by wire name.
    #[must_use]
    pub fn fields(&self) -> &[Field] {
        &self.inner.fields
    }

    /// The field with this wire name.
    #[must_use]
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.index_of(name).and_then(|i| self.inner.fields.get(i))
    }

    /// The exact wire `requestedSchema`:
    /// `{"type":"object","properties":{..},"required":[..]}` (`required` is
    /// omitted when no field is required).
    #[must_use]
    pub fn requested_schema(&self) -> Value {
        self.inner.schema.clone()
    }

    /// The digest of this form's elicitation request, computed by
    /// `compute` the first time and returned from the cache after: a form
    /// is immutable, so its request, and the request's digest, never
    /// change. (The runtime owns the digest; the form only keeps it.)
    pub(crate) fn request_digest(&self, compute: impl FnOnce() -> [u8; 32]) -> [u8; 32] {
        *self.inner.request_digest.get_or_init(compute)
    }

    /// The `params` of a form-mode `elicitation/create` input request:
    /// `{"mode":"form","message":..,"requestedSchema":..}`.
    #[must_use]
    pub fn elicit_params(&self) -> Value {
        let mut params = serde_json::Map::new();
        params.insert("mode".into(), Value::from("form"));
        params.insert("message".into(), Value::from(self.message()));
        params.insert("requestedSchema".into(), self.requested_schema());
        Value::Object(params)
    }

    pub(crate) fn index_of(&self, name: &str) -> Option<usize> {
        self.inner
            .fields
            .binary_search_by(|f| f.name.as_str().cmp(name))
            .ok()
    }
}

/// Collects fields and builds a [`Form`]; every check runs in [`build`](Self::build).
///
/// Three ways to author a form, freely mixed: field by field
/// ([`field`](Self::field)), from a type ([`fields_of`](Self::fields_of) with
/// [`configure`](Self::configure) / [`exclude`](Self::exclude)), and from
/// runtime metadata ([`push`](Self::push) in a loop, [`Field::new`] with a
/// runtime [`FieldKind`]).
///
/// ```
/// use mrtr_guard::{Field, FieldKind, Form};
///
/// let columns = [("city", FieldKind::String), ("zip", FieldKind::String), ("floor", FieldKind::Integer)];
/// let mut builder = Form::builder("Address");
/// for (name, kind) in columns {
///     builder.push(Field::new(name, kind).required());
/// }
/// let form = builder.build()?;
/// assert_eq!(form.fields().len(), 3);
/// # Ok::<(), mrtr_guard::FormError>(())
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct FormBuilder {
    message: String,
    fields: Vec<Field>,
    error: Option<FormError>,
}

impl FormBuilder {
    /// Adds a field.
    pub fn field(mut self, field: Field) -> Self {
        self.fields.push(field);
        self
    }

    /// Adds a field in place (for loops over runtime metadata).
    pub fn push(&mut self, field: Field) -> &mut Self {
        self.fields.push(field);
        self
    }

    /// Adds every field the type `T` declares.
    pub fn fields_of<T: FormFields>(mut self) -> Self {
        self.fields.extend(T::form_fields());
        self
    }

    /// Changes the field already added under `name` (title, bounds, options, ...).
    /// Naming a field the builder does not have is reported by `build`.
    pub fn configure(mut self, name: &str, edit: impl FnOnce(Field) -> Field) -> Self {
        match self.fields.iter().position(|f| f.name == name) {
            Some(i) => {
                let old = self.fields.remove(i);
                self.fields.insert(i, edit(old));
            }
            None => self.fail(FormError::UnknownField {
                field: name.to_owned(),
            }),
        }
        self
    }

    /// Removes the field added under `name`. Naming a field the builder does
    /// not have is reported by `build`.
    pub fn exclude(mut self, name: &str) -> Self {
        let before = self.fields.len();
        self.fields.retain(|f| f.name != name);
        if self.fields.len() == before {
            self.fail(FormError::UnknownField {
                field: name.to_owned(),
            });
        }
        self
    }

    /// Checks everything and compiles the form.
    ///
    /// # Errors
    ///
    /// A blank message, and per field: an empty or duplicate name, a blank
    /// title, `min > max`, empty/duplicate/blank-titled/mixed options, a choice
    /// without options, a default the field would refuse, a setting that does
    /// not apply to the field's kind, and an unknown name given to
    /// `configure`/`exclude`.
    pub fn build(self) -> Result<Form, FormError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        if self.message.trim().is_empty() {
            return Err(FormError::BlankMessage);
        }
        let mut fields = self
            .fields
            .into_iter()
            .map(Field::compile)
            .collect::<Result<Vec<_>, _>>()?;
        fields.sort_by(|a, b| a.name.cmp(&b.name));
        if let Some(dup) = fields.windows(2).find_map(|w| match w {
            [a, b] if a.name == b.name => Some(a.name.clone()),
            _ => None,
        }) {
            return Err(FormError::DuplicateField { field: dup });
        }
        Ok(Form {
            inner: Arc::new(Inner {
                message: self.message,
                schema: schema::emit(&fields),
                fields,
                request_digest: OnceLock::new(),
            }),
        })
    }

    fn fail(&mut self, e: FormError) {
        if self.error.is_none() {
            self.error = Some(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send_sync<T: Send + Sync + Clone>() {}

    #[test]
    fn form_is_send_sync_clone() {
        assert_send_sync::<Form>();
    }

    #[test]
    fn request_digest_is_made_once_and_is_not_part_of_equality() {
        let build = || Form::builder("m").field(Field::boolean("ok")).build();
        let (form, twin) = (build().unwrap(), build().unwrap());
        let mut calls = 0;
        let mut digest = |byte| {
            form.request_digest(|| {
                calls += 1;
                [byte; 32]
            })
        };
        assert_eq!(digest(1), [1; 32]);
        assert_eq!(digest(2), [1; 32]);
        assert_eq!(calls, 1);
        // One has its digest cached, the other not: still equal.
        assert_eq!(form, twin);
        assert_eq!(form.clone().request_digest(|| [3; 32]), [1; 32]);
        assert_eq!(twin.request_digest(|| [3; 32]), [3; 32]);
        assert_eq!(form.requested_schema(), schema::emit(form.fields()));
    }

    #[test]
    fn build_errors_name_the_field() {
        assert_eq!(Form::builder("  ").build(), Err(FormError::BlankMessage));
        let dup = Form::builder("m")
            .field(Field::string("a"))
            .field(Field::number("a"))
            .build();
        assert_eq!(dup, Err(FormError::DuplicateField { field: "a".into() }));
        let empty = Form::builder("m").field(Field::string("")).build();
        assert_eq!(empty, Err(FormError::EmptyFieldName));
        let minmax = Form::builder("m")
            .field(Field::string("s").min_length(3).max_length(2))
            .build();
        assert_eq!(
            minmax,
            Err(FormError::MinAboveMax {
                field: "s".into(),
                keyword: "minLength"
            })
        );
        let unknown = Form::builder("m")
            .field(Field::string("s"))
            .exclude("t")
            .build();
        assert_eq!(unknown, Err(FormError::UnknownField { field: "t".into() }));
    }

    #[test]
    fn defaults_are_checked() {
        let wrong = Form::builder("m")
            .field(Field::integer("n").default("x"))
            .build();
        assert_eq!(
            wrong,
            Err(FormError::DefaultWrongType { field: "n".into() })
        );
        let not_offered = Form::builder("m")
            .field(Field::choice("c").option("a").default("b"))
            .build();
        assert_eq!(
            not_offered,
            Err(FormError::DefaultNotOffered { field: "c".into() })
        );
    }
}
