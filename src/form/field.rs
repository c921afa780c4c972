//! One field of a form: its kind, bounds, options, title and default.

use serde_json::Value;

use crate::form::error::FormError;
use crate::form::format::Format;
use crate::form::kind::Kind;
use crate::form::kind::boolean::BooleanKind;
use crate::form::kind::choice::ChoiceKind;
use crate::form::kind::integer::IntegerKind;
use crate::form::kind::multi_choice::MultiChoiceKind;
use crate::form::kind::number::NumberKind;
use crate::form::kind::string::StringKind;
use crate::form::numbers::Bound;
use crate::form::option::ChoiceOption;
use crate::form::report::Reason;
use crate::form::title::humanize;
use crate::form::value::ref_to_json;

/// The kind of a field, one per shape of the MCP form profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FieldKind {
    /// Free text (`minLength`, `maxLength`).
    String,
    /// Text in `email` format.
    Email,
    /// Text in `uri` format.
    Uri,
    /// Text in `date` format.
    Date,
    /// Text in `date-time` format.
    DateTime,
    /// A whole number (`minimum`, `maximum`, inclusive) in
    /// `i64::MIN..=u64::MAX`, held exactly.
    Integer,
    /// Any JSON number (`minimum`, `maximum`, inclusive).
    Number,
    /// `true` or `false`.
    Boolean,
    /// One of the offered options.
    Choice,
    /// Distinct offered options (`minItems`, `maxItems`).
    MultiChoice,
}

/// A builder mistake kept until [`FormBuilder::build`](crate::form::FormBuilder::build)
/// reports it with the field's name.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Pending {
    NotApplicable(&'static str),
    BadValue(&'static str),
}

/// One field of a form, described once: the same value emits its property
/// schema and checks its answer.
///
/// Build one with a constructor named after its kind, chain settings, then
/// add it to a [`FormBuilder`](crate::form::FormBuilder). Settings that do not apply
/// to the kind (e.g. `min_length` on a boolean) are reported by `build`.
///
/// ```
/// use mrtr_guard::Field;
///
/// let qty = Field::integer("quantity").minimum(1).maximum(10).default(1).required();
/// let color = Field::choice("color").titled_option("#FF0000", "Red").titled_option("#00FF00", "Green");
/// # let _ = (qty, color);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) required: bool,
    pub(crate) default: Option<Value>,
    pub(crate) kind: Kind,
    pub(crate) pending: Option<Pending>,
    /// In a round, an invalid answer is dropped rather than asked again.
    pub(crate) drop_invalid: bool,
}

impl Field {
    /// A field of the given kind. Fields are optional until [`required`](Self::required).
    #[must_use]
    pub fn new(name: impl Into<String>, kind: FieldKind) -> Self {
        let text = |format| Kind::String(StringKind::new(format));
        let kind = match kind {
            FieldKind::String => text(None),
            FieldKind::Email => text(Some(Format::Email)),
            FieldKind::Uri => text(Some(Format::Uri)),
            FieldKind::Date => text(Some(Format::Date)),
            FieldKind::DateTime => text(Some(Format::DateTime)),
            FieldKind::Integer => Kind::Integer(IntegerKind::default()),
            FieldKind::Number => Kind::Number(NumberKind::default()),
            FieldKind::Boolean => Kind::Boolean(BooleanKind),
            FieldKind::Choice => Kind::Choice(ChoiceKind::default()),
            FieldKind::MultiChoice => Kind::MultiChoice(MultiChoiceKind::default()),
        };
        Self::of_kind(name, kind)
    }

    /// A field of an already-made kind (as a parsed schema gives it).
    pub(crate) fn of_kind(name: impl Into<String>, kind: Kind) -> Self {
        Self {
            name: name.into(),
            title: None,
            description: None,
            required: false,
            default: None,
            kind,
            pending: None,
            drop_invalid: false,
        }
    }

    /// A free-text field.
    #[must_use]
    pub fn string(name: impl Into<String>) -> Self {
        Self::new(name, FieldKind::String)
    }

    /// An email address field (`format: "email"`).
    #[must_use]
    pub fn email(name: impl Into<String>) -> Self {
        Self::new(name, FieldKind::Email)
    }

    /// A URI field (`format: "uri"`).
    #[must_use]
    pub fn uri(name: impl Into<String>) -> Self {
        Self::new(name, FieldKind::Uri)
    }

    /// A date field (`format: "date"`).
    #[must_use]
    pub fn date(name: impl Into<String>) -> Self {
        Self::new(name, FieldKind::Date)
    }

    /// A date-time field (`format: "date-time"`).
    #[must_use]
    pub fn date_time(name: impl Into<String>) -> Self {
        Self::new(name, FieldKind::DateTime)
    }

    /// A whole-number field.
    #[must_use]
    pub fn integer(name: impl Into<String>) -> Self {
        Self::new(name, FieldKind::Integer)
    }

    /// A number field.
    #[must_use]
    pub fn number(name: impl Into<String>) -> Self {
        Self::new(name, FieldKind::Number)
    }

    /// A yes/no field.
    #[must_use]
    pub fn boolean(name: impl Into<String>) -> Self {
        Self::new(name, FieldKind::Boolean)
    }

    /// A single choice; add options with [`option`](Self::option) or
    /// [`titled_option`](Self::titled_option).
    #[must_use]
    pub fn choice(name: impl Into<String>) -> Self {
        Self::new(name, FieldKind::Choice)
    }

    /// A multiple choice of distinct options.
    #[must_use]
    pub fn multi_choice(name: impl Into<String>) -> Self {
        Self::new(name, FieldKind::MultiChoice)
    }

    /// The answer must be present.
    #[must_use]
    pub fn required(mut self) -> Self {
        self.required = true;
        self
    }

    /// The answer may be absent (the default).
    #[must_use]
    pub fn optional(mut self) -> Self {
        self.required = false;
        self
    }

    /// The label shown to the user; defaults to the name made readable
    /// (`trackingNumber` → `Tracking Number`).
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// A longer help text.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// A value the client may pre-fill. It must be one the field accepts; the
    /// validator never fills a missing answer with it.
    #[must_use]
    pub fn default(mut self, value: impl Into<Value>) -> Self {
        self.default = Some(value.into());
        self
    }

    /// Minimum length in Unicode code points (text fields).
    #[must_use]
    pub fn min_length(mut self, n: u64) -> Self {
        match &mut self.kind {
            Kind::String(t) => t.min_length = Some(n),
            _ => self.pend(Pending::NotApplicable("minLength")),
        }
        self
    }

    /// Maximum length in Unicode code points (text fields).
    #[must_use]
    pub fn max_length(mut self, n: u64) -> Self {
        match &mut self.kind {
            Kind::String(t) => t.max_length = Some(n),
            _ => self.pend(Pending::NotApplicable("maxLength")),
        }
        self
    }

    /// Sets or replaces the format of a text field.
    #[must_use]
    pub fn format(mut self, f: Format) -> Self {
        match &mut self.kind {
            Kind::String(t) => t.format = Some(f),
            _ => self.pend(Pending::NotApplicable("format")),
        }
        self
    }

    /// Inclusive lower bound (integer and number fields): any integer up to
    /// 64 bits, or a float. On an integer field a float is rounded up
    /// (`0.5` is `1`), and the bound must land in `i64::MIN..=u64::MAX`.
    #[must_use]
    pub fn minimum(self, v: impl Into<Bound>) -> Self {
        self.bound(v.into(), true)
    }

    /// Inclusive upper bound (integer and number fields): any integer up to
    /// 64 bits, or a float. On an integer field a float is rounded down
    /// (`10.5` is `10`), and the bound must land in `i64::MIN..=u64::MAX`.
    #[must_use]
    pub fn maximum(self, v: impl Into<Bound>) -> Self {
        self.bound(v.into(), false)
    }

    /// Adds an untitled option (choice fields).
    #[must_use]
    pub fn option(self, value: impl Into<String>) -> Self {
        self.push_option(ChoiceOption {
            value: value.into(),
            title: None,
        })
    }

    /// Adds untitled options (choice fields).
    #[must_use]
    pub fn options<I, S>(self, values: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        values.into_iter().fold(self, Self::option)
    }

    /// Adds an option with a display title (choice fields): the client shows
    /// `title` and sends back `value`.
    #[must_use]
    pub fn titled_option(self, value: impl Into<String>, title: impl Into<String>) -> Self {
        self.push_option(ChoiceOption {
            value: value.into(),
            title: Some(title.into()),
        })
    }

    /// Minimum number of selected items (multi-choice fields).
    #[must_use]
    pub fn min_items(mut self, n: u64) -> Self {
        match &mut self.kind {
            Kind::MultiChoice(m) => m.min_items = Some(n),
            _ => self.pend(Pending::NotApplicable("minItems")),
        }
        self
    }

    /// Maximum number of selected items (multi-choice fields).
    #[must_use]
    pub fn max_items(mut self, n: u64) -> Self {
        match &mut self.kind {
            Kind::MultiChoice(m) => m.max_items = Some(n),
            _ => self.pend(Pending::NotApplicable("maxItems")),
        }
        self
    }

    /// Refuse an answer that picks an option twice (multi-choice fields).
    ///
    /// By default repeated items are removed, keeping the first of each, and
    /// the report lists the field under
    /// [`Report::deduplicated`](crate::form::Report::deduplicated). The MCP form
    /// profile has no `uniqueItems`, so this rule is not in the schema: a
    /// client cannot see it, and a parsed schema removes duplicates.
    #[must_use]
    pub fn refuse_duplicates(mut self) -> Self {
        match &mut self.kind {
            Kind::MultiChoice(m) => m.refuse_duplicates = true,
            _ => self.pend(Pending::NotApplicable("uniqueItems")),
        }
        self
    }

    /// In a [`Round`](crate::runtime::Round), drop an invalid answer to this
    /// optional field instead of asking the form again: the answer is accepted
    /// without it, and the report lists it (as [`Form::validate`] always does).
    ///
    /// By default a round asks again, saying what to correct (never the
    /// value), whenever any answered field is invalid, required or optional,
    /// so that nothing the user typed is lost without their knowing; the ask
    /// counts toward the three invalid answers in a row that end a flow. Use this for answers that are only hints, where
    /// going on without the value beats another question: a preferred time
    /// slot the server can pick itself, a referral code, a nickname with a
    /// fallback. On a required field [`build`](crate::form::FormBuilder::build)
    /// reports [`FormError::DropOnRequired`]. For every optional field of a
    /// form at once, see
    /// [`FormBuilder::drop_invalid_optional`](crate::form::FormBuilder::drop_invalid_optional).
    ///
    /// [`Form::validate`]: crate::form::Form::validate
    #[must_use]
    pub fn drop_if_invalid(mut self) -> Self {
        self.drop_invalid = true;
        self
    }

    /// Whether a round drops an invalid answer to this field rather than
    /// asking again ([`drop_if_invalid`](Self::drop_if_invalid)).
    #[must_use]
    pub fn drops_invalid(&self) -> bool {
        self.drop_invalid
    }

    /// The wire name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether the answer must be present.
    #[must_use]
    pub fn is_required(&self) -> bool {
        self.required
    }

    /// The kind of the field.
    #[must_use]
    pub fn kind(&self) -> FieldKind {
        match &self.kind {
            Kind::String(t) => match t.format {
                None => FieldKind::String,
                Some(Format::Email | Format::EmailRfc5321) => FieldKind::Email,
                Some(Format::Uri) => FieldKind::Uri,
                Some(Format::Date) => FieldKind::Date,
                Some(Format::DateTime) => FieldKind::DateTime,
            },
            Kind::Integer(_) => FieldKind::Integer,
            Kind::Number(_) => FieldKind::Number,
            Kind::Boolean(_) => FieldKind::Boolean,
            Kind::Choice(_) => FieldKind::Choice,
            Kind::MultiChoice(_) => FieldKind::MultiChoice,
        }
    }

    /// The options of a choice, as `(value, title)`; empty for other kinds.
    pub(crate) fn offered_options(&self) -> &[ChoiceOption] {
        self.kind.options()
    }

    fn pend(&mut self, p: Pending) {
        if self.pending.is_none() {
            self.pending = Some(p);
        }
    }

    fn bound(mut self, b: Bound, lower: bool) -> Self {
        let keyword = if lower { "minimum" } else { "maximum" };
        let ok = match &mut self.kind {
            Kind::Number(n) => {
                let v = Some(b.to_f64()).filter(|v| v.is_finite());
                let slot = if lower {
                    &mut n.minimum
                } else {
                    &mut n.maximum
                };
                *slot = v;
                v.is_some()
            }
            Kind::Integer(n) => {
                let v = b.to_int(lower);
                let slot = if lower {
                    &mut n.minimum
                } else {
                    &mut n.maximum
                };
                *slot = v;
                v.is_some()
            }
            _ => {
                self.pend(Pending::NotApplicable(keyword));
                return self;
            }
        };
        if !ok {
            self.pend(Pending::BadValue(keyword));
        }
        self
    }

    pub(crate) fn set_int_bounds(mut self, min: Option<i128>, max: Option<i128>) -> Self {
        match &mut self.kind {
            Kind::Integer(n) => {
                n.minimum = min;
                n.maximum = max;
            }
            _ => self.pend(Pending::NotApplicable("minimum")),
        }
        self
    }

    fn push_option(mut self, option: ChoiceOption) -> Self {
        match &mut self.kind {
            Kind::Choice(ChoiceKind { options })
            | Kind::MultiChoice(MultiChoiceKind { options, .. }) => {
                options.push(option);
            }
            _ => self.pend(Pending::NotApplicable("enum")),
        }
        self
    }

    /// Checks the field on its own and fills in the derived parts (title,
    /// canonical default). Called once by the form builder.
    pub(crate) fn compile(mut self) -> Result<Self, FormError> {
        if self.name.is_empty() {
            return Err(FormError::EmptyFieldName);
        }
        let field = || self.name.clone();
        match &self.pending {
            Some(Pending::NotApplicable(keyword)) => {
                return Err(FormError::NotApplicable {
                    field: field(),
                    keyword,
                });
            }
            Some(Pending::BadValue(keyword)) => {
                return Err(FormError::BadKeywordValue {
                    field: Some(field()),
                    keyword,
                });
            }
            None => {}
        }
        if self.drop_invalid && self.required {
            return Err(FormError::DropOnRequired { field: field() });
        }
        match &self.title {
            Some(t) if t.trim().is_empty() => return Err(FormError::BlankTitle { field: field() }),
            Some(_) => {}
            None => self.title = Some(humanize(&self.name)),
        }
        self.kind.compile(&self.name)?;
        if let Some(raw) = self.default.take() {
            self.default = Some(self.compile_default(&raw)?);
        }
        Ok(self)
    }

    fn compile_default(&self, raw: &Value) -> Result<Value, FormError> {
        let field = self.name.clone();
        match self.kind.check(raw) {
            // The default is the server's own: a repeated item is a mistake.
            Ok(value) if value.deduplicated() => Err(FormError::DefaultRejected {
                field,
                reason: Reason::DuplicateItem,
            }),
            Ok(value) => Ok(ref_to_json(&value.to_ref(self.offered_options()))),
            Err(Reason::WrongType | Reason::Null | Reason::NotAnInteger) => {
                Err(FormError::DefaultWrongType { field })
            }
            Err(Reason::NotOffered) => Err(FormError::DefaultNotOffered { field }),
            Err(reason) => Err(FormError::DefaultRejected { field, reason }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn misuse_is_reported_with_the_name() {
        let err = Field::boolean("ok").min_length(2).compile();
        assert_eq!(
            err,
            Err(FormError::NotApplicable {
                field: "ok".into(),
                keyword: "minLength"
            })
        );
        let err = Field::integer("n").minimum(f64::NAN).compile();
        assert_eq!(
            err,
            Err(FormError::BadKeywordValue {
                field: Some("n".into()),
                keyword: "minimum"
            })
        );
    }

    #[test]
    fn options_are_checked() {
        let e = |f: Field| f.compile().err();
        assert_eq!(
            e(Field::choice("c")),
            Some(FormError::NoOptions { field: "c".into() })
        );
        assert_eq!(
            e(Field::choice("c").option("")),
            Some(FormError::EmptyOption { field: "c".into() })
        );
        assert_eq!(
            e(Field::choice("c").option("a").option("a")),
            Some(FormError::DuplicateOption {
                field: "c".into(),
                option: "a".into()
            })
        );
        assert_eq!(
            e(Field::choice("c").titled_option("a", " ")),
            Some(FormError::BlankOptionTitle {
                field: "c".into(),
                option: "a".into()
            })
        );
        assert_eq!(
            e(Field::choice("c").titled_option("a", "A").option("b")),
            Some(FormError::MixedOptions { field: "c".into() })
        );
    }
}
