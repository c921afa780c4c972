//! Binding accepted answers into the user's serde type, without going
//! through `serde_json::Value` and without ever putting a value in an error.

use std::fmt;

use serde::de::value::{SeqDeserializer, StrDeserializer};
use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, Visitor};
use serde::forward_to_deserialize_any;

use crate::form::value::AnswerRef;

/// Accepted answers do not fit the user's type. Names the field; never holds
/// the value (serde's own messages quote values, so they are not kept).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BindError {
    field: Option<String>,
    kind: BindErrorKind,
}

/// What did not fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum BindErrorKind {
    /// The type needs a field the answers do not have.
    Missing,
    /// The answer's type does not fit the field's type.
    WrongType,
    /// The answer's value is refused by the type (unknown enum variant, ...).
    InvalidValue,
    /// The type refuses a field the answers have (`deny_unknown_fields`).
    Unknown,
    /// The type's own `Deserialize` refused the answers.
    Custom,
}

impl BindError {
    /// The field that did not fit, when known.
    #[must_use]
    pub fn field(&self) -> Option<&str> {
        self.field.as_deref()
    }

    /// What did not fit.
    #[must_use]
    pub fn kind(&self) -> BindErrorKind {
        self.kind
    }

    fn new(kind: BindErrorKind) -> Self {
        Self { field: None, kind }
    }

    fn in_field(mut self, name: &str) -> Self {
        if self.field.is_none() {
            self.field = Some(name.to_owned());
        }
        self
    }
}

impl fmt::Display for BindError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            BindErrorKind::Missing => "is missing",
            BindErrorKind::WrongType => "has a type the target does not take",
            BindErrorKind::InvalidValue => "has a value the target refuses",
            BindErrorKind::Unknown => "is not a field of the target",
            BindErrorKind::Custom => "is refused by the target type",
        };
        match &self.field {
            Some(name) => write!(f, "answers do not bind: field {name:?} {what}"),
            None => write!(f, "answers do not bind: the answers {what}"),
        }
    }
}

impl std::error::Error for BindError {}

impl de::Error for BindError {
    fn custom<T: fmt::Display>(_msg: T) -> Self {
        Self::new(BindErrorKind::Custom)
    }

    fn invalid_type(_unexp: de::Unexpected<'_>, _exp: &dyn de::Expected) -> Self {
        Self::new(BindErrorKind::WrongType)
    }

    fn invalid_value(_unexp: de::Unexpected<'_>, _exp: &dyn de::Expected) -> Self {
        Self::new(BindErrorKind::InvalidValue)
    }

    fn invalid_length(_len: usize, _exp: &dyn de::Expected) -> Self {
        Self::new(BindErrorKind::InvalidValue)
    }

    fn unknown_variant(_variant: &str, _expected: &'static [&'static str]) -> Self {
        Self::new(BindErrorKind::InvalidValue)
    }

    fn unknown_field(field: &str, _expected: &'static [&'static str]) -> Self {
        Self::new(BindErrorKind::Unknown).in_field(field)
    }

    fn missing_field(field: &'static str) -> Self {
        Self::new(BindErrorKind::Missing).in_field(field)
    }
}

/// Accepted answers, as `(name, answer)` entries, read as a map.
pub(crate) struct AnswersDeserializer<'a> {
    entries: EntryIter<'a>,
}

impl<'a> AnswersDeserializer<'a> {
    pub(crate) fn new(entries: impl Iterator<Item = (&'a str, AnswerRef<'a>)> + 'a) -> Self {
        Self {
            entries: Box::new(entries),
        }
    }
}

impl<'de> de::Deserializer<'de> for AnswersDeserializer<'de> {
    type Error = BindError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, BindError> {
        visitor.visit_map(Entries {
            iter: self.entries,
            current: None,
        })
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

type EntryIter<'a> = Box<dyn Iterator<Item = (&'a str, AnswerRef<'a>)> + 'a>;

struct Entries<'a> {
    iter: EntryIter<'a>,
    current: Option<(&'a str, AnswerRef<'a>)>,
}

impl<'de> MapAccess<'de> for Entries<'de> {
    type Error = BindError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, BindError> {
        let Some((name, value)) = self.iter.next() else {
            return Ok(None);
        };
        self.current = Some((name, value));
        seed.deserialize(de::value::BorrowedStrDeserializer::<BindError>::new(name))
            .map(Some)
            .map_err(|e| e.in_field(name))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, BindError> {
        let (name, value) = self
            .current
            .take()
            .ok_or_else(|| BindError::new(BindErrorKind::Custom))?;
        seed.deserialize(One(value)).map_err(|e| e.in_field(name))
    }
}

/// One answer value.
struct One<'a>(AnswerRef<'a>);

impl<'de> de::Deserializer<'de> for One<'de> {
    type Error = BindError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, BindError> {
        match self.0 {
            AnswerRef::Str(s) => visitor.visit_borrowed_str(s),
            AnswerRef::Int(i) => match (i64::try_from(i), u64::try_from(i)) {
                (Ok(v), _) => visitor.visit_i64(v),
                (_, Ok(v)) => visitor.visit_u64(v),
                _ => visitor.visit_i128(i),
            },
            AnswerRef::Num(n) => visitor.visit_f64(n),
            AnswerRef::Bool(b) => visitor.visit_bool(b),
            AnswerRef::Strings(list) => {
                let items = list
                    .into_iter()
                    .map(de::value::BorrowedStrDeserializer::<BindError>::new);
                visitor.visit_seq(SeqDeserializer::new(items))
            }
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, BindError> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, BindError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, BindError> {
        match self.0 {
            AnswerRef::Str(s) => {
                let d: StrDeserializer<'_, BindError> = s.into_deserializer();
                visitor.visit_enum(d)
            }
            other => One(other).deserialize_any(visitor),
        }
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}
