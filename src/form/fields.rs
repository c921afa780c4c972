//! Forms from the user's own types: the [`FormFields`] trait, the
//! [`FieldType`] mapping from Rust types to fields, and the
//! [`form_fields!`](crate::form_fields) macro that writes the impl.

use crate::form::field::Field;

/// A type whose fields describe a form.
///
/// Usually written by [`form_fields!`](crate::form_fields); implement it by
/// hand for full control. Accepted answers bind back into the type with
/// [`Answers::bind`](crate::form::Answers::bind).
pub trait FormFields {
    /// The fields of the form, in the order they reach the client.
    fn form_fields() -> Vec<Field>;
}

/// The field that holds a value of this Rust type.
///
/// Plain types give a required field; `Option<T>` gives the same field,
/// optional. Integer types (up to `i64` and `u64`) carry their own range as
/// `minimum`/`maximum`, so an accepted answer always binds. `Vec<String>` is a multi-choice whose
/// options must be configured.
///
/// MCP forms are flat: there is no field for a struct or a map. Ask for a
/// nested struct's parts as fields of this form, or with a form of its own
/// (several forms in one round, or one per round).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a form field type",
    label = "not text, a number, a yes/no or a choice",
    note = "MCP forms are flat: a field is a `String`, `bool`, integer, float, an enum with \
            `#[derive(FormChoice)]` or a `Vec` of one; a struct or a map is not one field",
    note = "ask for a nested struct's fields in this struct, or with a form of its own \
            (several forms in one round, or one per round); or `#[serde(skip)]` the field"
)]
pub trait FieldType {
    /// The field named `name` for this type.
    fn field(name: &str) -> Field;
}

impl FieldType for String {
    fn field(name: &str) -> Field {
        Field::string(name).required()
    }
}

impl FieldType for bool {
    fn field(name: &str) -> Field {
        Field::boolean(name).required()
    }
}

impl FieldType for f64 {
    fn field(name: &str) -> Field {
        Field::number(name).required()
    }
}

impl FieldType for f32 {
    fn field(name: &str) -> Field {
        Field::number(name)
            .minimum(f32::MIN)
            .maximum(f32::MAX)
            .required()
    }
}

macro_rules! int_field {
    ($($t:ty),*) => {$(
        impl FieldType for $t {
            fn field(name: &str) -> Field {
                Field::integer(name)
                    .set_int_bounds(Some(i128::from(<$t>::MIN)), Some(i128::from(<$t>::MAX)))
                    .required()
            }
        }
    )*};
}
int_field!(i8, i16, i32, i64, u8, u16, u32, u64);

impl FieldType for Vec<String> {
    fn field(name: &str) -> Field {
        Field::multi_choice(name).required()
    }
}

impl<T: FieldType> FieldType for Option<T> {
    fn field(name: &str) -> Field {
        T::field(name).optional()
    }
}

/// Implements [`FormFields`] for a struct from a list of its fields.
///
/// Each entry is `rust_name: Type`, optionally `rust_name as "wireName": Type`
/// when serde renames it, optionally followed by `=> |f| f.setting(..)` to
/// adjust the field. The macro checks at compile time that each named field
/// exists with that type; fields left out of the list are not asked.
///
/// ```
/// use mrtr_guard::{Field, Form, form_fields};
/// use serde::Deserialize;
///
/// #[derive(Deserialize)]
/// #[serde(rename_all = "camelCase")]
/// struct Shipping {
///     tracking_number: String,
///     quantity: u8,
///     gift_note: Option<String>,
///     #[serde(skip)]
///     internal_id: u64,
/// }
///
/// form_fields!(Shipping {
///     tracking_number as "trackingNumber": String => |f: Field| f.max_length(40),
///     quantity: u8 => |f: Field| f.minimum(1),
///     gift_note as "giftNote": Option<String>,
/// });
///
/// let form = Form::of::<Shipping>("Ship it").build()?;
/// assert_eq!(form.fields().len(), 3);
/// # Ok::<(), mrtr_guard::form::FormError>(())
/// ```
#[macro_export]
macro_rules! form_fields {
    ($ty:ty { $( $field:ident $(as $wire:literal)? : $fty:ty $(=> $edit:expr)? ),* $(,)? }) => {
        impl $crate::form::FormFields for $ty {
            fn form_fields() -> ::std::vec::Vec<$crate::form::Field> {
                fn __mrtr_guard_field_types(v: &$ty) {
                    $( let _: &$fty = &v.$field; )*
                }
                let _ = __mrtr_guard_field_types;
                ::std::vec![ $( {
                    let field = <$fty as $crate::form::FieldType>::field($crate::form_fields!(@name $field $($wire)?));
                    $( let field = ($edit)(field); )?
                    field
                } ),* ]
            }
        }
    };
    (@name $field:ident) => { ::core::stringify!($field) };
    (@name $field:ident $wire:literal) => { $wire };
}
