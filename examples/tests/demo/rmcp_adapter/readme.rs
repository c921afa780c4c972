//! The README's and docs/RMCP.md's `rmcp` snippets are the code
//! `macros.rs` runs, line for line, with the counts the documents state; the
//! README's `[dependencies]` are the ones the demo builds with.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    reason = "test code: a panic is a failing test"
)]

/// The lines the README counts: non-blank, not a `//` comment, trimmed.
pub(super) fn counted(text: &str) -> Vec<&str> {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with("// "))
        .collect()
}

/// The text of `source` (a file of this folder) between
/// `// README: {name} (begin)` and `(end)`.
pub(super) fn region<'a>(source: &'a str, name: &str) -> &'a str {
    let begin = format!("// README: {name} (begin)");
    let end = format!("// README: {name} (end)");
    let start = source.find(&begin).unwrap() + begin.len();
    let stop = start + source[start..].find(&end).unwrap();
    &source[start..stop]
}

/// The count a document states after `marker`, and the code block that
/// follows it.
fn doc_block<'a>(doc: &'a str, marker: &str) -> (usize, &'a str) {
    let at = doc.find(marker).unwrap_or_else(|| panic!("no {marker:?}"));
    let rest = &doc[at + marker.len()..];
    let stated = rest
        .trim_start_matches(", ")
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let start = rest.find("```rust,ignore\n").unwrap() + "```rust,ignore\n".len();
    let stop = start + rest[start..].find("\n```\n").unwrap();
    (stated, &rest[start..stop])
}

/// The README shows the mrtr-guard tool; docs/RMCP.md the same tool on
/// `rmcp`'s `request-state`; both as `macros.rs` runs them.
#[test]
fn the_readme_shows_the_code_this_file_runs_and_counts_it() {
    let readme = include_str!("../../../../README.md");
    let rmcp_doc = include_str!("../../../../docs/RMCP.md");
    let source = include_str!("macros.rs");
    let snippets: [(&str, &str, &[&str]); 2] = [
        (
            readme,
            "snippet: mrtr-guard",
            &["form", "field", "init", "tool"],
        ),
        (
            rmcp_doc,
            "snippet: rmcp request-state",
            &["rmcp form", "rmcp tool"],
        ),
    ];
    let mut counts = Vec::new();
    for (doc, marker, regions) in snippets {
        let (stated, block) = doc_block(doc, marker);
        let shown = counted(block);
        let run: Vec<&str> = regions
            .iter()
            .flat_map(|name| counted(region(source, name)))
            .collect();
        assert_eq!(shown, run, "{marker}");
        assert_eq!(shown.len(), stated, "{marker}: the README's count");
        assert!(doc.contains(&format!("**{stated} lines**")), "{marker}");
        counts.push(stated);
    }
    assert!(
        counts[0] <= 15,
        "the mrtr-guard ShipOrder is {} lines",
        counts[0]
    );
    // Each document names the other's count as it stands.
    assert!(rmcp_doc.contains(&format!("**{} lines**", counts[0])));
    assert!(readme.contains(&format!("({} lines)", counts[1])));
}

/// The README's `[dependencies]` block is what the demo builds with: each
/// crate at the demo's version requirement, each feature it names enabled
/// in the demo's manifest (and, for mrtr-guard, one of its features).
#[test]
fn the_readme_dependencies_are_the_ones_the_demo_builds_with() {
    let readme = include_str!("../../../../README.md");
    let demo = include_str!("../../../Cargo.toml");
    let root = include_str!("../../../../Cargo.toml");
    let at = readme.find("```toml\n[dependencies]\n").unwrap() + "```toml\n[dependencies]\n".len();
    let block = &readme[at..at + readme[at..].find("```").unwrap()];
    let quoted = |text: &str| -> Vec<String> {
        text.split('"')
            .skip(1)
            .step_by(2)
            .map(str::to_owned)
            .collect()
    };
    let field = |line: &str, key: &str| -> Option<String> {
        let at = line.find(&format!("{key} = "))? + key.len() + 3;
        let rest = &line[at..];
        let end = if rest.starts_with('[') {
            rest.find(']')? + 1
        } else {
            rest[1..].find('"')? + 2
        };
        Some(rest[..end].to_owned())
    };
    let mut names = Vec::new();
    for line in block.lines().filter(|line| !line.trim().is_empty()) {
        let name = line.split(" = ").next().unwrap().trim();
        names.push(name.to_owned());
        let demo_line = demo
            .lines()
            .find(|demo_line| demo_line.starts_with(&format!("{name} = ")))
            .unwrap_or_else(|| panic!("{name} is not a dependency of the demo"));
        let version = quoted(&field(line, "version").unwrap()).remove(0);
        let features = field(line, "features")
            .map(|f| quoted(&f))
            .unwrap_or_default();
        let demo_features = field(demo_line, "features")
            .map(|f| quoted(&f))
            .unwrap_or_default();
        if name == "mrtr-guard" {
            let package = root
                .lines()
                .find(|line| line.starts_with("version = "))
                .unwrap();
            assert!(quoted(package)[0].starts_with(&version), "{line}");
            for feature in &features {
                assert!(
                    root.contains(&format!("\n{feature} = [")),
                    "{feature}: not a feature"
                );
            }
        } else {
            assert_eq!(
                quoted(&field(demo_line, "version").unwrap())[0],
                version,
                "{name}"
            );
            assert_eq!(
                line.contains("default-features = false"),
                demo_line.contains("default-features = false"),
                "{name}"
            );
        }
        for feature in &features {
            assert!(demo_features.contains(feature), "{name}: {feature}");
        }
    }
    for needed in ["mrtr-guard", "rmcp", "axum", "tokio", "serde"] {
        assert!(names.iter().any(|name| name == needed), "{needed}");
    }
}

/// The README's whole server is `examples/src/bin/minimal_server.rs`, byte
/// for byte, between its two markers (`over_http/minimal.rs` runs it).
#[test]
fn the_readme_shows_the_minimal_server_whole() {
    let readme = include_str!("../../../../README.md");
    let source = include_str!("../../../src/bin/minimal_server.rs");
    let begin = "<!-- file: examples/src/bin/minimal_server.rs (begin";
    let end = "\n```\n<!-- file: examples/src/bin/minimal_server.rs (end) -->";
    let at = readme.find(begin).unwrap();
    let open = "```rust,ignore\n";
    let start = at + readme[at..].find(open).unwrap() + open.len();
    let stop = start + readme[start..].find(end).unwrap() + 1;
    assert_eq!(&readme[start..stop], source);
    assert!(source.lines().count() <= 100, "one screen");
}
