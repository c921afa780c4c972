//! `mrtr_guard::form`: building forms (by hand and, with feature `derive`,
//! from types), the schemas other tools produce, the validator on hostile and
//! arbitrary input, what each string format accepts, the
//! JSON-Schema-Test-Suite subset, and the user-facing messages. One module per concern.

mod builder;
#[cfg(feature = "derive")]
mod derive;
mod formats;
mod interop;
mod json_schema_suite;
mod messages;
mod validate_hostile;
mod validate_props;
