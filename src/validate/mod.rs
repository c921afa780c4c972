//! Strict validator (issue 3).
