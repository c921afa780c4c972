//! The `form` module has no import cycle between its files.
//!
//! Reads every file under `src/form/`, collects the files each one refers to
//! (`use super::..`, `use crate::form::..`, a child module in a `mod.rs`, and
//! the same paths written inline), and checks that this file-level graph is
//! acyclic. A grouped path such as `super::{a, b}` counts as a reference to
//! the `mod.rs` it starts from, so the check can only over-count. Test code
//! (from the first `#[cfg(test)]` on) and comments are not read.
//!
//! `cargo test --test form_layers -- --nocapture` prints the files layer by
//! layer, each above everything it imports.

#![allow(
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    reason = "a test fails by panicking; indices come from the walk"
)]

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// A file's module path below `crate`, e.g. `["form", "kind", "string"]`.
type ModPath = Vec<String>;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`, with its module path.
fn walk(dir: &Path, prefix: &ModPath, out: &mut BTreeMap<ModPath, PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap_or_else(|e| panic!("{e}")).path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_owned();
        if path.is_dir() {
            let mut sub = prefix.clone();
            sub.push(name);
            walk(&path, &sub, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let mut module = prefix.clone();
            if name != "mod" {
                module.push(name);
            }
            out.insert(module, path);
        }
    }
}

/// The code of a file that is not test code, without comments.
fn code(path: &Path) -> String {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with("#[cfg(test)]") {
            break;
        }
        let line = line.split("//").next().unwrap_or_default();
        out.push_str(line);
        out.push('\n');
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The `::`-separated identifiers starting at `s`.
fn segments(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = s;
    loop {
        let end = rest.find(|c: char| !is_ident(c)).unwrap_or(rest.len());
        if end == 0 {
            break;
        }
        out.push(rest[..end].to_owned());
        match rest[end..].strip_prefix("::") {
            Some(r) => rest = r,
            None => break,
        }
    }
    out
}

/// The longest prefix of `path` that names a file of `files`.
fn resolve(path: &[String], files: &BTreeMap<ModPath, PathBuf>) -> Option<ModPath> {
    (1..=path.len())
        .rev()
        .map(|n| path[..n].to_vec())
        .find(|p| files.contains_key(p))
}

/// The files `module` refers to, and its references outside `form`.
fn references(
    module: &ModPath,
    path: &Path,
    files: &BTreeMap<ModPath, PathBuf>,
) -> (BTreeSet<ModPath>, Vec<String>) {
    let text = code(path);
    let is_mod_rs = path.file_name().is_some_and(|n| n == "mod.rs");
    let mut deps = BTreeSet::new();
    let mut outside = Vec::new();
    // Paths are runs of identifier characters and `:`; the separator before
    // each run is one character (`$crate::` is a macro's path, not ours).
    let mut start = 0;
    for token in text.split(|c: char| !is_ident(c) && c != ':') {
        let before = text[..start].chars().next_back();
        start += token.len() + 1;
        if !token.contains("::") || before == Some('$') {
            continue;
        }
        let full = segments(token.trim_start_matches(':'));
        let absolute: Option<ModPath> = match full.first().map(String::as_str) {
            Some("crate") => {
                if full.get(1).map(String::as_str) == Some("form") {
                    Some(full[1..].to_vec())
                } else if full.get(1).map(String::as_str) == Some("json") {
                    // The input floor, below every module.
                    None
                } else {
                    outside.push(full.join("::"));
                    None
                }
            }
            Some("super") => {
                let ups = full.iter().take_while(|s| *s == "super").count();
                // A `mod.rs` is its directory's module; `super` leaves it.
                let base_len = module
                    .len()
                    .checked_sub(ups)
                    .unwrap_or_else(|| panic!("{}: too many `super`", path.display()));
                let mut p = module[..base_len].to_vec();
                p.extend(full[ups..].iter().cloned());
                Some(p)
            }
            Some(first) if is_mod_rs => {
                let mut child = module.clone();
                child.push(first.to_owned());
                files.contains_key(&child).then(|| {
                    let mut p = module.clone();
                    p.extend(full.iter().cloned());
                    p
                })
            }
            _ => None,
        };
        if let Some(target) = absolute.and_then(|p| resolve(&p, files))
            && &target != module
        {
            deps.insert(target);
        }
    }
    (deps, outside)
}

fn name(m: &ModPath) -> String {
    m.join("::")
}

#[test]
fn form_files_import_each_other_without_a_cycle() {
    let mut files = BTreeMap::new();
    walk(&root().join("form"), &vec!["form".to_owned()], &mut files);
    assert!(files.len() > 10, "src/form/ not found");

    let mut graph = BTreeMap::new();
    for (module, path) in &files {
        let (deps, outside) = references(module, path, &files);
        assert!(
            outside.is_empty(),
            "{} refers outside `form` (or through a crate-root re-export): {outside:?}",
            path.display()
        );
        graph.insert(module.clone(), deps);
    }

    // Kahn's algorithm, layer by layer: a layer is every file whose imports
    // are all in lower layers.
    let mut placed: BTreeSet<ModPath> = BTreeSet::new();
    let mut layers: Vec<Vec<ModPath>> = Vec::new();
    while placed.len() < graph.len() {
        let layer: Vec<ModPath> = graph
            .iter()
            .filter(|(m, deps)| !placed.contains(*m) && deps.iter().all(|d| placed.contains(d)))
            .map(|(m, _)| m.clone())
            .collect();
        if layer.is_empty() {
            let stuck: Vec<String> = graph
                .iter()
                .filter(|(m, _)| !placed.contains(*m))
                .map(|(m, deps)| {
                    let open: Vec<String> = deps
                        .iter()
                        .filter(|d| !placed.contains(*d))
                        .map(name)
                        .collect();
                    format!("{} -> {open:?}", name(m))
                })
                .collect();
            panic!("import cycle among these files:\n{}", stuck.join("\n"));
        }
        placed.extend(layer.iter().cloned());
        layers.push(layer);
    }
    for (n, layer) in layers.iter().enumerate() {
        println!(
            "layer {n}: {}",
            layer.iter().map(name).collect::<Vec<_>>().join(", ")
        );
    }
    let edges: usize = graph.values().map(BTreeSet::len).sum();
    println!("{} files, {edges} imports, no cycle", graph.len());

    // The facade imports everything; nothing imports it.
    let facade = vec!["form".to_owned()];
    for (m, deps) in &graph {
        assert!(
            !deps.contains(&facade),
            "{} imports through src/form/mod.rs; import the file instead",
            name(m)
        );
    }
}

#[test]
fn the_facade_only_declares_and_re_exports() {
    let text = code(&root().join("form/mod.rs"));
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        assert!(
            line.starts_with("mod ")
                || line.starts_with("pub use ")
                || line.starts_with("pub(crate) use "),
            "src/form/mod.rs holds more than declarations and re-exports: {line:?}"
        );
    }
}
