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
