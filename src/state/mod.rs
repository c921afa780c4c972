//! requestState codec.
