//! `#[derive(FormFields)]` and `#[derive(FormChoice)]` for
//! [mrtr-guard](https://docs.rs/mrtr-guard) forms: the MCP elicitation form
//! for a struct, and the options of a choice for an enum, read from the
//! types and their serde attributes.
//!
//! Use them through mrtr-guard's feature `derive`, which re-exports both
//! beside the traits they implement (`mrtr_guard::{FormFields, FormChoice}`).
//! The generated code names `::mrtr_guard`, so the dependency must keep that
//! name. mrtr-guard's docs/GUIDE.md, section "Forms from your types", has an example
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
/// **Settings**, in `#[form(...)]` on a field:
///
/// | setting | applies to |
/// |---|---|
/// | `title = "..."` | any field |
/// | `description = "..."` (replaces the doc comment) | any field |
/// | `default = value` | text, boolean, number and choice fields (below) |
/// | `min_length = n`, `max_length = n` | `String` |
/// | `format = "email"`, `"uri"`, `"date"`, `"date-time"` | `String` |
/// | `minimum = x`, `maximum = x` | integers (whole, in the type's range) and floats |
/// | `min_items = n`, `max_items = n` | `Vec` |
/// | `refuse_duplicates` | `Vec` |
/// | `drop_if_invalid` | optional fields |
///
/// `default` is what the client may pre-fill, written as the field's Rust
/// value: `"text"` for a `String`, `true`, `4`, `-0.5` for the booleans and
/// numbers (a literal of the field's own type: `4.0` for an `f64`),
/// `Speed::NextDay` for a `#[derive(FormChoice)]` enum, `[Role::Admin]` for a
/// `Vec` of one (`["a"]` for a `Vec<String>`); the same for `Option<T>`. The
/// compiler checks it against the field's type, at the value; a literal
/// outside the field's `minimum`/`maximum` or lengths is refused by the macro,
/// anything else the field would refuse (a bad `format`, a variant serde
/// skips) by the form's build.
///
/// `drop_if_invalid`: in a round, an invalid answer to this optional field is
/// dropped and the rest accepted, instead of the form being asked again (the
/// default, so that nothing the user typed is lost unseen). For answers that
/// are only hints; see `Field::drop_if_invalid`.
///
/// A required `Vec` field accepts `[]` (the key is there, nothing picked),
/// as JSON Schema's `required` means; add `min_items = 1` to need a pick.
///
/// Left out, on purpose: `options`/`titled_option` (a choice's options come
/// from its `FormChoice` enum, so the answer binds to a variant; a
/// `Vec<String>` multi-choice gets its options from
/// `FormBuilder::configure`), `required`/`optional` (the type says it:
/// `Option<T>`, `#[serde(default)]`), the form's message and
/// `drop_invalid_optional` (per form, on `Form::of::<T>(message)`, so one type
/// can back several forms).
///
/// A setting on the wrong type, an unknown setting or format, a minimum above
/// its maximum, or a `HashMap`/`BTreeMap` field is one compile error, at the
/// mistake. The type is read from its name: for a type the macro cannot tell
/// (an alias, a struct of yours), the compiler checks instead
/// (`` `Alias` is not a text field ``, `` `Room` is not a form field type ``).
/// MCP forms are flat: a nested struct or a map is not a field; ask for it
/// with a form of its own (several forms in one round, or one per round). A
/// failed derive still implements the trait, so the error is not repeated
/// where the type is used.
///
/// ```ignore
/// #[derive(Deserialize, FormFields)]
/// #[serde(rename_all = "camelCase")]
/// struct Shipping {
///     /// As printed on the label.
///     #[form(title = "Tracking number", max_length = 40)]
///     tracking_number: String,
///     #[form(minimum = 1, maximum = 10, default = 1)]
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

/// `impl <trait_path> for <the input type> { <items> }`, with the input's
/// generics: the fallback impls of a derive that failed.
fn empty_impl(
    input: &DeriveInput,
    trait_path: proc_macro2::TokenStream,
    items: proc_macro2::TokenStream,
) -> proc_macro2::TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    quote::quote! {
        #[automatically_derived]
        impl #impl_generics #trait_path for #ident #ty_generics #where_clause { #items }
    }
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
