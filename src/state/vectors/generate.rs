//! The generator of `tests/vectors/*.json`: every file, and the vectors in
//! it in file order, from the arguments cases, the positive vectors and the
//! negative ones edited from them. Nothing here is a check: `check` holds
//! those, and compares the files with what this makes.

use serde::Serialize;

use super::arguments::arguments_cases;
use super::clock::{clock_negatives, time_overflow_negatives};
use super::edge::{edge_negatives, limit_negatives};
use super::file::{ARGUMENTS_FILE, ArgumentsFile, Vector, VectorFile};
use super::negative::negative;
use super::positive::{by_name, positives};
use super::tampered::{number_negatives, tampered_negatives};
use super::text::text_negatives;

/// Every vector file, as the generator makes it: (file name, text).
pub(super) fn files() -> Vec<(&'static str, String)> {
    let positives = positives();
    let negatives = negatives(&positives);
    let of_mode = |mode: &str| -> Vec<Vector> {
        positives
            .iter()
            .filter(|v| v.mode == mode)
            .cloned()
            .collect()
    };
    let cases = ArgumentsFile {
        description: "The arguments digest (docs/FORMAT.md §4.1): the texts of a case share one \
            canonical form and digest; no two cases share a digest."
            .to_owned(),
        cases: arguments_cases(),
    };
    vec![
        (ARGUMENTS_FILE, pretty(&cases)),
        (
            "negative.json",
            vector_file(
                "Negative vectors: each must fail to open, for the reason it names. See docs/FORMAT.md.",
                negatives,
            ),
        ),
        (
            "sealed.json",
            vector_file(
                "Positive known-answer vectors, sealed mode (XChaCha20-Poly1305). See docs/FORMAT.md.",
                of_mode("sealed"),
            ),
        ),
        (
            "signed.json",
            vector_file(
                "Positive known-answer vectors, signed mode (HMAC-SHA256). See docs/FORMAT.md.",
                of_mode("signed"),
            ),
        ),
    ]
}

fn vector_file(description: &str, vectors: Vec<Vector>) -> String {
    pretty(&VectorFile {
        description: description.to_owned(),
        vectors,
    })
}

/// Pretty JSON with a final newline, as the files are checked in.
fn pretty(value: &impl Serialize) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap();
    text.push('\n');
    text
}

/// The negative vectors of both modes, in file order, edited from `positives`.
fn negatives(positives: &[Vector]) -> Vec<Vector> {
    let by_name = |name: &str| by_name(positives, name);
    let mut negatives = Vec::new();
    for (mode, other) in [("sealed", "signed"), ("signed", "sealed")] {
        let base = by_name(&format!("{mode}-basic"));
        negatives.extend(negatives_for(base, by_name(&format!("{other}-basic"))));
        // The carried-answers vector is round 3.
        let round3 = by_name(&format!("{mode}-carried-answers-unicode"));
        negatives.push(negative(
            round3,
            "round-cap",
            "a round-3 token; the verifier allows 2 rounds",
            "too_many_rounds",
            |v| {
                v.policy.max_rounds = 2;
            },
        ));
        negatives.extend(time_overflow_negatives(
            base,
            by_name(&format!("{mode}-latest-times")),
        ));
        negatives.extend(number_negatives(
            by_name(&format!("{mode}-big-integer")),
            by_name(&format!("{mode}-number-forms")),
        ));
    }
    for mode in ["sealed", "signed"] {
        negatives.extend(edge_negatives(mode, positives));
    }
    for mode in ["sealed", "signed"] {
        negatives.extend(limit_negatives(by_name(&format!("{mode}-basic"))));
    }
    negatives
}

fn negatives_for(base: &Vector, other_mode: &Vector) -> Vec<Vector> {
    [
        tampered_negatives(base, other_mode),
        clock_negatives(base),
        text_negatives(base),
    ]
    .concat()
}
