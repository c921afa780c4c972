//! Forms (issue 3).
