//! The screen's one pass (`check_strict`, no tree) refuses every body the
//! tree it replaced (`parse_strict`) refused, with the same error: each
//! hostile case on its own, and inside a `tools/call` wherever a client can
//! put it; and arbitrary edits of a real round-2 request.

use mrtr_guard::json::{JsonError, Limits, check_strict, parse_strict};
use proptest::prelude::*;

use super::case::every_case;

/// Both accept, or both refuse with the same kind of error.
fn agree(name: &str, bytes: &[u8], limits: &Limits) -> Result<(), String> {
    let checked = check_strict(bytes, limits);
    let parsed = parse_strict(bytes, limits).map(drop);
    let kind = |result: Result<(), JsonError>| result.map_err(|e| std::mem::discriminant(&e));
    if kind(checked) == kind(parsed) {
        Ok(())
    } else {
        Err(format!(
            "{name}: check_strict {checked:?}, parse_strict {parsed:?}"
        ))
    }
}

/// A round-2 `tools/call` with `fragment` at one of the places a client
/// fills (`at`, 0 to 6).
fn call_with(at: usize, fragment: &str) -> Vec<u8> {
    let slot = |n: usize| if n == at { fragment } else { "{}" };
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"ShipOrder","arguments":{args},"requestState":"s","inputResponses":{{"ship":{answer}}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","x":{meta}}},"other":{other}}},"extra":{extra}}}"#,
        id = if at == 0 { fragment } else { "1" },
        args = slot(1),
        answer = slot(2),
        meta = slot(3),
        other = slot(4),
        extra = slot(5),
    );
    if at == 6 {
        fragment.as_bytes().to_vec()
    } else {
        body.into_bytes()
    }
}

/// A real round-2 request, for the edits below.
const ROUND_2: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ShipOrder","arguments":{"orderId":42,"note":"fr\u00e9gile"},"inputResponses":{"ship":{"action":"accept","content":{"trackingNumber":"1Z999","n":-1.5e3}}},"requestState":"eyJhIjoxfQ","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}"#;

#[test]
fn every_hostile_case_is_refused_as_parse_strict_refuses_it() {
    let cases = every_case();
    let mut failures = Vec::new();
    let mut refused = 0;
    for (name, bytes, _, limits) in &cases {
        failures.extend(agree(name, bytes, limits).err());
        refused += usize::from(parse_strict(bytes, limits).is_err());
        // Inside a call: only cases that fit in one (not the 10 MB ones).
        let Ok(text) = std::str::from_utf8(bytes) else {
            continue;
        };
        if bytes.len() > 64 * 1024 {
            continue;
        }
        for at in 0..7 {
            let call = call_with(at, text);
            failures.extend(agree(&format!("{name} at {at}"), &call, &Limits::default()).err());
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    assert!(refused >= 20, "only {refused} refused cases");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Bytes replaced, inserted or removed anywhere in a real request.
    #[test]
    fn edits_of_a_real_request_are_refused_alike(
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..3, any::<u8>()), 1..4),
        depth in prop::sample::select(vec![2usize, 4, 32]),
    ) {
        let mut bytes = ROUND_2.as_bytes().to_vec();
        for (at, how, byte) in edits {
            let i = at.index(bytes.len());
            // Bytes JSON gives meaning to, more often than chance would.
            let meaningful = b"{}[]\",:\\u0e-+. \x01\xff\xc3a";
            let byte = meaningful[usize::from(byte) % meaningful.len()];
            match how {
                0 => bytes[i] = byte,
                1 => bytes.insert(i, byte),
                _ => { bytes.remove(i); }
            }
        }
        let limits = Limits::default().with_max_depth(depth);
        prop_assert_eq!(agree("edit", &bytes, &limits), Ok(()));
    }
}
