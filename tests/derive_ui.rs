//! The derive's compile errors (feature `derive`): one file per misuse in
//! `tests/ui/`, its expected error beside it (`.stderr`). After a deliberate
//! change, `TRYBUILD=overwrite cargo test --features derive --test derive_ui`
//! rewrites them; read the diff.
#![cfg(feature = "derive")]

#[test]
fn misuse_is_a_compile_error_at_the_setting() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
