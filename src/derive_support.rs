//! What the code `#[derive(FormFields)]` writes refers to: checks for field
//! types the macro cannot classify by name (an alias, a path). Not public
//! API; it may change in any release.

use crate::form::FormChoice;

/// A type whose field takes `min_length`, `max_length` and `format`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a text field",
    label = "`min_length`, `max_length` and `format` apply to `String` fields only"
)]
pub trait Text {}

impl Text for String {}
impl<T: Text> Text for Option<T> {}

/// A type whose field takes `minimum` and `maximum`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a number field",
    label = "`minimum` and `maximum` apply to integer and float fields only"
)]
pub trait Number {}

macro_rules! number {
    ($($t:ty),*) => {$( impl Number for $t {} )*};
}
number!(i8, i16, i32, i64, u8, u16, u32, u64, f32, f64);
impl<T: Number> Number for Option<T> {}

/// A type whose field takes `min_items` and `max_items`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a multi-choice field",
    label = "`min_items` and `max_items` apply to `Vec` fields only"
)]
pub trait Items {}

impl Items for Vec<String> {}
impl<T: FormChoice> Items for Vec<T> {}
impl<T: Items> Items for Option<T> {}

/// Compiles only when `T` is a text field.
pub fn text<T: Text>() {}

/// Compiles only when `T` is a number field.
pub fn number<T: Number>() {}

/// Compiles only when `T` is a multi-choice field.
pub fn items<T: Items>() {}

/// The wire value of a `#[derive(FormChoice)]` enum's variant (`None` for a
/// variant serde skips), for `#[form(default = ...)]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no wire values for a `default`",
    label = "a choice's `default` needs an enum with `#[derive(FormChoice)]`",
    note = "for a hand-written `FormChoice`, set the default with the builder: `.configure(name, |f| f.default(..))`"
)]
pub trait ChoiceValue {
    /// The variant's wire value, if it is offered.
    fn wire_value(&self) -> Option<&'static str>;
}

/// A field type that takes `#[form(default = ...)]`, and what the default is
/// written as: a string literal for `String`, a literal of the type itself
/// for `bool` and the numbers, a variant for a choice, an array of variants
/// (or of strings, for `Vec<String>`) for a multi-choice.
#[diagnostic::on_unimplemented(
    message = "`{Self}` takes no `default` in `#[form(...)]`",
    label = "`default` applies to text, boolean, number and choice fields"
)]
pub trait FormDefault {
    /// What the default is written as.
    type Input;
    /// The default as the schema carries it.
    fn json(value: Self::Input) -> serde_json::Value;
}

impl FormDefault for String {
    type Input = &'static str;
    fn json(value: &'static str) -> serde_json::Value {
        value.into()
    }
}

macro_rules! default_as_itself {
    ($($t:ty),*) => {$(
        impl FormDefault for $t {
            type Input = $t;
            fn json(value: $t) -> serde_json::Value {
                value.into()
            }
        }
    )*};
}
default_as_itself!(bool, i8, i16, i32, i64, u8, u16, u32, u64, f32, f64);

impl<T: FormDefault> FormDefault for Option<T> {
    type Input = T::Input;
    fn json(value: T::Input) -> serde_json::Value {
        T::json(value)
    }
}

impl<T: ChoiceValue> FormDefault for T {
    type Input = T;
    /// A variant that is not offered gives `null`, which the form's build
    /// refuses (`FormError::DefaultWrongType`).
    fn json(value: T) -> serde_json::Value {
        value
            .wire_value()
            .map_or(serde_json::Value::Null, Into::into)
    }
}

impl<T: ChoiceValue + 'static> FormDefault for Vec<T> {
    type Input = &'static [T];
    fn json(value: &'static [T]) -> serde_json::Value {
        value
            .iter()
            .map(<T as ChoiceValue>::wire_value)
            .map(|v| v.map_or(serde_json::Value::Null, Into::into))
            .collect()
    }
}

impl FormDefault for Vec<String> {
    type Input = &'static [&'static str];
    fn json(value: &'static [&'static str]) -> serde_json::Value {
        value.iter().copied().map(serde_json::Value::from).collect()
    }
}

/// The schema default of a field of type `T`: compiles only when `value`
/// fits `T`, the mismatch reported at the value.
pub fn default<T: FormDefault>(value: T::Input) -> serde_json::Value {
    T::json(value)
}
