//! `#[derive(FormFields)]` and `#[derive(FormChoice)]` for
//! [mrtr-guard](https://docs.rs/mrtr-guard) forms: the MCP elicitation form
//! for a struct, and the options of a choice for an enum, read from the
//! types and their serde attributes.
//!
//! Use them through mrtr-guard's feature `derive`, which re-exports both
//! beside the traits they implement (`mrtr_guard::{FormFields, FormChoice}`).
//! The generated code names `::mrtr_guard`, so the dependency must keep that
//! name. mrtr-guard's README, section "Forms from your types", has an example
//! that runs.
#![forbid(unsafe_code)]

mod case;
mod check;
mod choice;
mod fields;
mod names;
mod serde_attrs;
mod settings;
mod shape;

use proc_macro::TokenStream;
use syn::DeriveInput;

/// Implements `mrtr_guard::FormFields` for a struct with named fields: one
/// form field per struct field, in declaration order.
///
/// **Types.** `String` is a text field; `bool` a yes/no field; `i8` to `i64`
/// and `u8` to `u64` integer fields bounded by their type's range; `f32` and
/// `f64` number fields; a `#[derive(FormChoice)]` enum a single choice and a
/// `Vec` of one a multi-choice. `Option<T>` is the field of `T`, optional;
/// every other field is required. Any type with a `mrtr_guard::form::FieldType`
/// implementation works.
///
/// **serde.** The wire name is the field's `#[serde(rename = "...")]`, else
/// its name under the struct's `#[serde(rename_all = "...")]` (every serde
/// rule). A field with `#[serde(skip)]` or `#[serde(skip_deserializing)]` is
/// not asked; `#[serde(default)]`, on the field or the struct, makes it
/// optional. `flatten`, `transparent`, `from` and `try_from` are refused.
///
/// **Text.** A field's doc comment is its description (lines joined,
/// paragraphs kept); the title defaults to the wire name made readable.
///
/// **Settings**, in `#[form(...)]` on a field, literals only:
///
/// | setting | applies to |
/// |---|---|
/// | `title = "..."` | any field |
/// | `min_length = n`, `max_length = n` | `String` |
/// | `format = "email"`, `"uri"`, `"date"`, `"date-time"` | `String` |
/// | `minimum = x`, `maximum = x` | integers (whole, in the type's range) and floats |
/// | `min_items = n`, `max_items = n` | `Vec` |
///
/// A setting on the wrong type, an unknown setting or format, or a minimum
/// above its maximum is a compile error at the setting. The type is read from
/// its name: for a type the macro cannot tell (an alias), the compiler checks
/// the setting instead (`` `Alias` is not a text field ``).
///
/// ```ignore
/// #[derive(Deserialize, FormFields)]
/// #[serde(rename_all = "camelCase")]
/// struct Shipping {
///     /// As printed on the label.
///     #[form(title = "Tracking number", max_length = 40)]
///     tracking_number: String,
///     #[form(minimum = 1, maximum = 10)]
///     quantity: u8,
///     gift_note: Option<String>,
/// }
/// ```
#[proc_macro_derive(FormFields, attributes(form, serde))]
pub fn derive_form_fields(input: TokenStream) -> TokenStream {
    derive(input, fields::expand, fields::fallback)
}

/// Implements `mrtr_guard::FormChoice` for an enum of unit variants: each
/// variant is an option, in declaration order.
///
/// The wire value is the variant's `#[serde(rename = "...")]`, else its name
/// under the enum's `#[serde(rename_all = "...")]`. Variants with
/// `#[serde(skip)]`, `skip_deserializing` or `other` are not offered.
/// `#[form(title = "...")]` on a variant gives the option a display title:
/// title every offered variant or none. A variant with fields, and `tag`,
/// `content`, `untagged`, `from` or `try_from` on the enum, are compile
/// errors.
///
/// ```ignore
/// #[derive(Deserialize, FormChoice)]
/// #[serde(rename_all = "kebab-case")]
/// enum Speed {
///     #[form(title = "Standard (5 days)")]
///     Standard,
///     #[form(title = "Next day")]
///     NextDay,
/// }
/// ```
#[proc_macro_derive(FormChoice, attributes(form, serde))]
pub fn derive_form_choice(input: TokenStream) -> TokenStream {
    derive(input, choice::expand, choice::fallback)
}

/// `expand` on the parsed input. Errors become `compile_error!`s at their
/// spans, beside `fallback`'s impl of the trait: one error per mistake, none
/// where the type is used.
fn derive(
    input: TokenStream,
    expand: fn(&DeriveInput) -> syn::Result<proc_macro2::TokenStream>,
    fallback: fn(&DeriveInput) -> proc_macro2::TokenStream,
) -> TokenStream {
    let input = match syn::parse::<DeriveInput>(input) {
        Ok(input) => input,
        Err(error) => return error.into_compile_error().into(),
    };
    match expand(&input) {
        Ok(tokens) => tokens.into(),
        Err(error) => {
            let mut tokens = error.into_compile_error();
            tokens.extend(fallback(&input));
            tokens.into()
        }
    }
}
