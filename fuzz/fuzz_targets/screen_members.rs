//! The screen's members (`ScreenLayer` reads each member it checks from its
//! own bytes, found by one pass that builds no tree) against the same paths
//! in `parse_strict`'s tree of the same bytes, on arbitrary bytes.
//!
//! The first input byte picks the depth cap (mod 4: 2, 8, the default 32,
//! 200); the rest is the body.
//!
//! Properties: nothing panics; the screen refuses the body as JSON exactly
//! when `parse_strict` does; otherwise each member it reads (`id`,
//! `method`, `params` and the params' `name`, `uri`, `requestState`,
//! `inputResponses`, `arguments`, `_meta`) is the tree's value at that path,
//! and absent where the tree has none, whatever the escapes in the names,
//! the duplicates deeper down or the shape of the document.
//!
//! `RUSTC_BOOTSTRAP=1 cargo fuzz run screen_members` (see CONTRIBUTING.md).

#![no_main]

use libfuzzer_sys::fuzz_target;
use mrtr_guard::json::{Limits, parse_strict};
use mrtr_guard::tower::screened_members;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, body)) = data.split_first() else {
        return;
    };
    let depth = [2, 8, 32, 200][usize::from(pick % 4)];
    let limits = Limits::default().with_max_depth(depth);
    let tree = parse_strict(body, &limits);
    let read = screened_members(body, &limits);
    match (&tree, &read) {
        (Err(_), Err(_)) => {}
        (Ok(tree), Ok(read)) => {
            for (path, value) in read {
                let expected = path.iter().try_fold(tree, |node, name| node.get(*name));
                assert_eq!(value.as_ref(), expected, "{path:?}");
            }
        }
        _ => panic!(
            "parse_strict {:?}, the screen {read:?}",
            tree.as_ref().map(drop)
        ),
    }
});
