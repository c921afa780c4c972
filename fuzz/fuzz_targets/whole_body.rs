//! One reading of every value: whatever the screen passes (`check_strict`,
//! the one pass every `POST` body of `ScreenLayer` goes through), the
//! screen's tree (`parse_strict`) and `serde_json::Value`, as `rmcp` and a
//! handler read the same bytes, hold the same value.
//!
//! `serde_json` here has the `raw_value` feature on (this crate turns it
//! on, and features unify), under which `Value` reads an object whose first
//! key is `"$serde_json::private::RawValue"` as the JSON text of its string:
//! the key the screen refuses in every object. The first input byte picks
//! the depth cap (mod 4: 2, 8, the default 32, 200); the rest is the body.
//! The corpus seeds carry the token in an answer, a `tasks/update`, a nested
//! argument and `_meta`.
//!
//! Properties: nothing panics; a body `check_strict` passes parses with
//! `parse_strict` and with `serde_json::from_slice::<Value>` to equal values.
//!
//! `RUSTC_BOOTSTRAP=1 cargo fuzz run whole_body` (see CONTRIBUTING.md).

#![no_main]

use libfuzzer_sys::fuzz_target;
use mrtr_guard::json::{Limits, check_strict, parse_strict};
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, body)) = data.split_first() else {
        return;
    };
    let depth = [2, 8, 32, 200][usize::from(pick % 4)];
    let limits = Limits::default().with_max_depth(depth);
    if check_strict(body, &limits).is_err() {
        return;
    }
    let tree = parse_strict(body, &limits).expect("the screen passed it: the tree parses it");
    // serde_json's own recursion limit (128) is above every cap but 200.
    let Ok(read) = serde_json::from_slice::<Value>(body) else {
        assert!(depth > 127, "serde_json refused a body within its recursion limit");
        return;
    };
    assert_eq!(tree, read, "the screen's tree and serde_json's Value differ");
});
