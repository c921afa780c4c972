//! Crate errors.
