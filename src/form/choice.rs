//! Choices from the user's own enums: the [`FormChoice`] trait and the fields
//! it gives (a single choice, and a multi-choice for a `Vec`).

use super::field::Field;
use super::fields::FieldType;

/// A type whose values are the options of a choice: usually a unit-only enum
/// with `#[derive(FormChoice)]` (feature `derive`), whose wire values follow
/// its serde `rename`/`rename_all`.
///
/// As the type of a field, `T` is a required single choice, `Option<T>` an
/// optional one, and `Vec<T>` a multi-choice.
///
/// ```
/// use mrtr_guard::{Field, FormChoice};
/// use mrtr_guard::form::FieldType;
///
/// enum Speed {
///     Standard,
///     Express,
/// }
///
/// impl FormChoice for Speed {
///     fn options() -> &'static [(&'static str, Option<&'static str>)] {
///         &[("standard", Some("Standard (5 days)")), ("express", Some("Express (1 day)"))]
///     }
/// }
///
/// let by_hand = Field::choice("speed")
///     .titled_option("standard", "Standard (5 days)")
///     .titled_option("express", "Express (1 day)")
///     .required();
/// assert_eq!(<Speed as FieldType>::field("speed"), by_hand);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a choice",
    label = "not an enum with `#[derive(FormChoice)]`",
    note = "a choice is an enum of unit variants with `#[derive(FormChoice)]`"
)]
pub trait FormChoice {
    /// The options in the order they are offered, as (wire value, display
    /// title). Give every option a title or none: the form profile does not
    /// mix the two (the builder reports it).
    fn options() -> &'static [(&'static str, Option<&'static str>)];
}

impl<T: FormChoice> FieldType for T {
    fn field(name: &str) -> Field {
        offer::<T>(Field::choice(name)).required()
    }
}

impl<T: FormChoice> FieldType for Vec<T> {
    fn field(name: &str) -> Field {
        offer::<T>(Field::multi_choice(name)).required()
    }
}

/// `field` with the options of `T`.
fn offer<T: FormChoice>(field: Field) -> Field {
    T::options()
        .iter()
        .fold(field, |field, &(value, title)| match title {
            Some(title) => field.titled_option(value, title),
            None => field.option(value),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    enum Size {}

    impl FormChoice for Size {
        fn options() -> &'static [(&'static str, Option<&'static str>)] {
            &[("s", None), ("m", None)]
        }
    }

    #[test]
    fn a_vec_of_choices_is_a_required_multi_choice() {
        assert_eq!(
            <Vec<Size> as FieldType>::field("sizes"),
            Field::multi_choice("sizes").options(["s", "m"]).required()
        );
        assert_eq!(
            <Option<Size> as FieldType>::field("size"),
            Field::choice("size").options(["s", "m"])
        );
    }
}
