//! `check_strict` (the screen's one pass, no tree) against `parse_strict`
//! (the tree it replaces), on arbitrary bytes.
//!
//! The first input byte picks the depth cap (mod 4: 2, 8, the default 32,
//! 200); the rest is the document.
//!
//! Properties: nothing panics; both accept, or both refuse with the same
//! kind of error.
//!
//! `RUSTC_BOOTSTRAP=1 cargo fuzz run strict_check` (see CONTRIBUTING.md).

#![no_main]

use libfuzzer_sys::fuzz_target;
use mrtr_guard::json::{Limits, check_strict, parse_strict};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, doc)) = data.split_first() else {
        return;
    };
    let depth = [2, 8, 32, 200][usize::from(pick % 4)];
    let limits = Limits::default().with_max_depth(depth);
    let checked = check_strict(doc, &limits);
    let parsed = parse_strict(doc, &limits);
    match (&checked, &parsed) {
        (Ok(()), Ok(_)) => {}
        (Err(c), Err(p)) => assert_eq!(
            std::mem::discriminant(c),
            std::mem::discriminant(p),
            "{c:?} vs {p:?}"
        ),
        _ => panic!("check_strict {checked:?}, parse_strict {:?}", parsed.map(drop)),
    }
});
