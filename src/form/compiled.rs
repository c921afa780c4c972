//! [`Form`], a compiled form (immutable, `Send + Sync`, cheap to clone), and
//! [`FormBuilder`], the one way to make one.

use std::fmt;
use std::sync::{Arc, OnceLock};

use serde_json::Value;

use crate::form::error::FormError;
use crate::form::field::Field;
use crate::form::fields::FormFields;
use crate::form::schema::{self, RequestedSchema};

/// A compiled form: the elicitation message and its fields, checked once,
/// immutable, cheap to clone (`Arc` inside), `Send + Sync`.
///
/// Fields keep the order they were declared in (builder order, or the order
/// a type lists them), and reach the client in that order through
/// [`schema`](Self::schema). Two forms are equal when they have the same
/// message and the same fields in the same order.
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
    /// Indices into `fields`, sorted by wire name (for lookups).
    by_name: Vec<usize>,
    /// `schema::emit(&fields)`, made once at build.
    schema: RequestedSchema,
    /// `schema` as a `Value`, made once at build.
    schema_value: Value,
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
            drop_invalid_optional: false,
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
    /// Schemas made by other tools (pydantic's `model_json_schema()`, rmcp's
    /// `ElicitationSchema`) parse: annotations are read past — the
    /// top-level `title`, `description` and `$schema`, and `$comment`,
    /// `examples` and `x-*` keys on the schema, on a property and on a
    /// multi-choice's `items`. Every other keyword outside the profile is
    /// refused, since it would change what is valid (`pattern`,
    /// `exclusiveMinimum`, `uniqueItems`, `additionalProperties`, `$defs`, ...).
    ///
    /// The fields come in the order the `Value`'s `properties` map iterates:
    /// alphabetical, as a `serde_json::Value` sorts its keys. To keep the
    /// order a schema was written in, parse its text with
    /// [`from_requested_schema_json`](Self::from_requested_schema_json).
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

    /// Parses `requestedSchema` JSON text, as
    /// [`from_requested_schema`](Self::from_requested_schema) does, keeping
    /// the order in which the text lists its properties.
    ///
    /// ```
    /// use mrtr_guard::Form;
    ///
    /// let text = r#"{"type":"object","properties":{"teamSize":{"type":"integer"},"roles":{"type":"array","items":{"type":"string","enum":["admin"]}}}}"#;
    /// let form = Form::from_requested_schema_json("Your team", text)?;
    /// assert_eq!(form.fields()[0].name(), "teamSize");
    /// # Ok::<(), mrtr_guard::form::FormError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`FormError::Json`] when the text is not strict JSON (see
    /// [`parse_strict`](crate::json::parse_strict), default [`Limits`](crate::json::Limits)),
    /// then every error of [`from_requested_schema`](Self::from_requested_schema).
    pub fn from_requested_schema_json(
        message: impl Into<String>,
        text: &str,
    ) -> Result<Self, FormError> {
        schema::parse_text(text)?
            .into_iter()
            .fold(Self::builder(message), FormBuilder::field)
            .build()
    }

    /// The elicitation message.
    #[must_use]
    pub fn message(&self) -> &str {
        &self.inner.message
    }

    /// The fields, in declaration order.
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
    /// omitted when no field is required), as a `Value`, whose objects sort
    /// their keys: properties come out alphabetically. Send
    /// [`schema`](Self::schema) to keep declaration order.
    #[must_use]
    pub fn requested_schema(&self) -> Value {
        self.inner.schema_value.clone()
    }

    /// The `requestedSchema` with properties and `required` in declaration
    /// order: serialize it (or take [`RequestedSchema::to_json_string`]) so the
    /// client shows the fields in that order.
    #[must_use]
    pub fn schema(&self) -> &RequestedSchema {
        &self.inner.schema
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

    /// The position in [`fields`](Self::fields) of the field named `name`.
    pub(crate) fn index_of(&self, name: &str) -> Option<usize> {
        self.by_name().get(self.name_rank(name)?).copied()
    }

    /// Field positions sorted by wire name.
    pub(crate) fn by_name(&self) -> &[usize] {
        &self.inner.by_name
    }

    /// The place of `name` in [`by_name`](Self::by_name).
    pub(crate) fn name_rank(&self, name: &str) -> Option<usize> {
        self.by_name()
            .binary_search_by(|i| self.name_at(*i).cmp(name))
            .ok()
    }

    fn name_at(&self, i: usize) -> &str {
        self.inner.fields.get(i).map_or("", |f| f.name.as_str())
    }
}

/// Collects fields and builds a [`Form`]; every check runs in [`build`](Self::build).
///
/// Three ways to author a form, freely mixed: field by field
/// ([`field`](Self::field)), from a type ([`fields_of`](Self::fields_of) with
/// [`configure`](Self::configure) / [`exclude`](Self::exclude)), and from
/// runtime metadata ([`push`](Self::push) in a loop, [`Field::new`] with a
/// runtime [`FieldKind`](crate::form::FieldKind)).
///
/// ```
/// use mrtr_guard::{Field, Form};
/// use mrtr_guard::form::FieldKind;
///
/// let columns = [("city", FieldKind::String), ("zip", FieldKind::String), ("floor", FieldKind::Integer)];
/// let mut builder = Form::builder("Address");
/// for (name, kind) in columns {
///     builder.push(Field::new(name, kind).required());
/// }
/// let form = builder.build()?;
/// assert_eq!(form.fields().len(), 3);
/// # Ok::<(), mrtr_guard::form::FormError>(())
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct FormBuilder {
    message: String,
    fields: Vec<Field>,
    error: Option<FormError>,
    /// [`drop_invalid_optional`](Self::drop_invalid_optional).
    drop_invalid_optional: bool,
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

    /// In a [`Round`](crate::runtime::Round), drop an invalid answer to any
    /// optional field of this form instead of asking again: the rule of
    /// [`Form::validate`], for forms whose optional answers are only hints.
    /// Applies to the fields optional when the form is built; see
    /// [`Field::drop_if_invalid`] for one field, and for when to use it.
    pub fn drop_invalid_optional(mut self) -> Self {
        self.drop_invalid_optional = true;
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
    /// not apply to the field's kind, `drop_if_invalid` on a required field,
    /// and an unknown name given to `configure`/`exclude`.
    pub fn build(self) -> Result<Form, FormError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        if self.message.trim().is_empty() {
            return Err(FormError::BlankMessage);
        }
        let drop_optional = self.drop_invalid_optional;
        let fields = self
            .fields
            .into_iter()
            .map(|f| {
                if drop_optional && !f.required {
                    f.drop_if_invalid()
                } else {
                    f
                }
            })
            .map(Field::compile)
            .collect::<Result<Vec<_>, _>>()?;
        let mut by_name: Vec<usize> = (0..fields.len()).collect();
        let name = |i: &usize| fields.get(*i).map_or("", |f| f.name.as_str());
        by_name.sort_by(|a, b| name(a).cmp(name(b)));
        if let Some(dup) = by_name.windows(2).find_map(|w| match w {
            [a, b] if name(a) == name(b) => Some(name(a).to_owned()),
            _ => None,
        }) {
            return Err(FormError::DuplicateField { field: dup });
        }
        let schema = schema::emit(&fields);
        Ok(Form {
            inner: Arc::new(Inner {
                message: self.message,
                schema_value: schema.to_value(),
                schema,
                fields,
                by_name,
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
        assert_eq!(
            form.requested_schema(),
            schema::emit(form.fields()).to_value()
        );
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
