//! The canonical form of a JSON value, for the arguments digest: RFC 8785's
//! JSON Canonicalization Scheme (JCS) with one change, exact integers.
//!
//! The digest of a tool call's arguments must not depend on how a client spelled
//! them: member order, whitespace, `1.0` against `1`, `\u00e9` against `é`. It
//! must depend on every value the handler sees. JCS fixes one spelling for every
//! JSON value:
//!
//! - objects have their members sorted by name, the names compared as sequences of
//!   UTF-16 code units (RFC 8785 §3.2.3), not as UTF-8 bytes;
//! - there is no whitespace;
//! - strings escape `"`, `\` and U+0000..U+001F only; `\b \t \n \f \r` take the
//!   short forms and the other controls `\u00xx` in lowercase hex; everything else,
//!   `/`, U+2028, U+2029 and all non-ASCII characters included, is written as
//!   UTF-8 (RFC 8785 §3.2.2.2);
//! - numbers are written as ECMAScript's `Number.prototype.toString` writes the
//!   IEEE-754 double they denote (RFC 8785 §3.2.2.3).
//!
//! The change: RFC 8785 first rounds every number to a double, so
//! `9007199254740993` and `9007199254740992` would share a form although
//! `serde_json` hands the handler two different integers. Here a number whose
//! value is an integer of magnitude below 10^21 is written as its exact decimal
//! digits: every `serde_json` integer (`u64`, `i64`), and every double from 2^53
//! up to 10^21 (each of those is an integer). Below 2^53 the digits are what
//! RFC 8785 writes anyway; from 10^21 on RFC 8785 writes an exponent (`1e+21`),
//! and a fraction always has a `.` or an `e-`, so digits alone never stand for
//! two values. Two numbers share a form exactly when their values are equal
//! (`0` and `-0` are).
//!
//! `serializer` walks the value (member order, strings, the structure);
//! `number` writes its numbers.

mod number;
mod serializer;

pub(crate) use serializer::canonical;
