//! The crate's files import each other along its layers, without a cycle.
//!
//! Reads every file under `src/` (every feature: `cfg` is not evaluated),
//! collects the files each one refers to (`super::..`, `self::..`,
//! `crate::..`, `mrtr_guard::..` in the binary, a child module of a `mod.rs`
//! or `lib.rs`, `mod` declarations, each path of a `use` group, and the same
//! paths written inline), and checks the file-level graph:
//!
//! - it is acyclic;
//! - no file imports through the `mod.rs` of a module it is inside, nor
//!   through `lib.rs`: files of one module import each other by file path,
//!   and only code outside a module goes through its index (the binary, a
//!   crate of its own, may use the root re-exports);
//! - module-level edges follow `json -> wire -> state, form -> task,
//!   runtime -> handoff -> tower -> rmcp -> bin`, with `metrics` below them
//!   all and `redis` (the backend wing) on `state` and `task` alone
//!   ([`ALLOWED`], printed on failure);
//! - a backend's contract folders ([`CONTRACTS`]) import its client, never
//!   each other;
//! - no `mod.rs` defines items beyond declarations and re-exports
//!   ([`NOT_YET_AN_INDEX`] lists the exceptions, each with its reason);
//! - the files only a `#[cfg(test)] mod` declaration includes, test-only
//!   code kept in `src/`, are exactly those [`TEST_ONLY_IN_SRC`] lists, each
//!   with its reason.
//!
//! A path resolves to the longest prefix that names a file, so a re-exported
//! name counts as a reference to the `mod.rs` that re-exports it: the check
//! can only over-count. Inline test code (a `#[cfg(test)]` item, the inline
//! test module) and comments are not read. The test-only files are read like
//! the others and keep to the same rules; nothing outside them imports them.
//!
//! `cargo test --test layers -- --nocapture` prints the files layer by
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

/// A file's module path below the crate root, e.g. `["form", "kind", "string"]`;
/// `[]` is `lib.rs`, `["bin", "mrtr-guard"]` the binary.
type ModPath = Vec<String>;

/// Which top-level modules each one may import, the order of the layers:
/// `json -> wire -> state, form -> task, runtime -> handoff -> tower -> rmcp
/// -> bin`. The root (`lib.rs`) declares and re-exports everything;
/// `derive_support` (`mrtr_guard::__private`, for the derive's generated
/// code) sits on `form`.
const ALLOWED: &[(&str, &[&str])] = &[
    // The metric names and their recording functions: a floor of their own,
    // which every layer that counts something records through.
    ("metrics", &[]),
    ("json", &[]),
    ("wire", &["json"]),
    ("state", &["metrics", "json", "wire"]),
    ("form", &["json", "wire"]),
    ("derive_support", &["json", "wire", "form"]),
    ("connect", &["metrics", "json", "wire", "state", "form"]),
    (
        "runtime",
        &["metrics", "json", "wire", "state", "form", "connect"],
    ),
    // Where tasks are kept: sealed records (state's keys) under ids.
    ("task", &["json", "wire", "state"]),
    // The Redis client and the contracts it implements: the replay guard
    // (state's) and the task store (task's); nothing above them.
    ("redis", &["state", "task", "connect"]),
    // What the mount's layers hand each other (the principal, the raw
    // arguments, the call id, the task offer): defined once, below both the
    // screen that derives most of them and the adapter that reads them.
    ("handoff", &["json", "wire", "runtime"]),
    (
        "tower",
        &[
            "metrics", "json", "wire", "state", "form", "runtime", "handoff",
        ],
    ),
    // The rmcp server builder mounts rmcp behind tower's `ScreenLayer`.
    (
        "rmcp",
        &[
            "metrics", "json", "wire", "state", "form", "runtime", "handoff", "tower", "task",
            "connect",
        ],
    ),
    (
        "bin",
        &[
            "metrics", "json", "wire", "state", "form", "runtime", "handoff", "rmcp", "tower",
            "task", "connect", "lib.rs",
        ],
    ),
];

/// Each backend wing and the folders in it, one per contract it implements:
/// each imports the wing's client (the files beside them), none another.
const CONTRACTS: &[(&str, &[&str])] = &[("redis", &["replay", "task", "connect"])];

/// `mod.rs` files that still define items, and why.
const NOT_YET_AN_INDEX: &[(&str, &str)] = &[(
    "form/format/mod.rs",
    "the Format enum is the module's one type, and what its files are dispatched from; a file of its own would be format/format.rs",
)];

/// Test-only code kept in `src/`: each file, or folder (ending in `/`), that
/// only a `#[cfg(test)] mod` declaration includes, and why it is not under
/// `tests/`.
const TEST_ONLY_IN_SRC: &[(&str, &str)] = &[(
    "state/vectors/",
    "the known-answer vectors' generator and checks mint tokens through the codec's \
     crate-private internals with fixed nonces: minting with fixed nonces must never become API",
)];

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
            if name != "mod" && !(prefix.is_empty() && name == "lib") {
                module.push(name);
            }
            out.insert(module, path);
        }
    }
}

fn is_mod_rs(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| n == "mod.rs" || n == "lib.rs")
}

fn relative(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// The code of a file that is not test code, without comments, and the
/// modules it declares only for tests.
fn code(path: &Path) -> (String, Vec<String>) {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = String::new();
    let mut test_only = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim_start().starts_with("#[cfg(test)]") {
            // Skip further attributes, then look at what is test-only.
            while lines
                .peek()
                .is_some_and(|l| l.trim_start().starts_with("#["))
            {
                let attribute = lines.next().unwrap_or_default();
                // A multi-line attribute ends with `)]`.
                if !attribute.trim_end().ends_with(']') {
                    for l in lines.by_ref() {
                        if l.trim_end().ends_with(")]") {
                            break;
                        }
                    }
                }
            }
            let item = lines.next().unwrap_or_default().trim();
            let Some(module) = ["mod ", "pub(super) mod ", "pub(crate) mod "]
                .iter()
                .find_map(|p| item.strip_prefix(p))
            else {
                continue;
            };
            if let Some(name) = module.strip_suffix(';') {
                test_only.push(name.to_owned());
                continue;
            }
            break; // the inline test module, last in the file
        }
        let line = line.split("//").next().unwrap_or_default();
        out.push_str(line);
        out.push('\n');
    }
    (out, test_only)
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn skip_ws(s: &[char], i: &mut usize) {
    while *i < s.len() && s[*i].is_whitespace() {
        *i += 1;
    }
}

fn ident(s: &[char], i: &mut usize) -> Option<String> {
    let start = *i;
    while *i < s.len() && is_ident(s[*i]) {
        *i += 1;
    }
    (*i > start).then(|| s[start..*i].iter().collect())
}

/// One path of a `use` tree starting at `i`, every leaf of a `{..}` group
/// expanded, appended to `out`. Returns whether it had a `::`.
fn tree(s: &[char], i: &mut usize, prefix: &[String], out: &mut Vec<Vec<String>>) -> bool {
    let mut path = prefix.to_vec();
    let mut separated = false;
    loop {
        skip_ws(s, i);
        match ident(s, i) {
            Some(segment) if segment == "self" && !path.is_empty() => {}
            Some(segment) => path.push(segment),
            None => break,
        }
        skip_ws(s, i);
        if s.get(*i) == Some(&':') && s.get(*i + 1) == Some(&':') {
            *i += 2;
            separated = true;
            skip_ws(s, i);
            match s.get(*i) {
                Some('{') => {
                    *i += 1;
                    loop {
                        skip_ws(s, i);
                        match s.get(*i) {
                            None => return true,
                            Some('}') => {
                                *i += 1;
                                return true;
                            }
                            Some(',') => *i += 1,
                            _ => {
                                let before = *i;
                                tree(s, i, &path, out);
                                if *i == before {
                                    *i += 1; // `*`, `as`, anything else
                                }
                            }
                        }
                    }
                }
                Some('*') => {
                    *i += 1;
                    break;
                }
                _ => continue,
            }
        } else {
            break;
        }
    }
    if path.len() > prefix.len() || separated {
        out.push(path);
    }
    separated
}

/// Every `::` path in `text`, groups expanded.
fn paths(text: &str) -> Vec<Vec<String>> {
    let s: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let prev = i.checked_sub(1).map(|p| s[p]);
        let starts = is_ident(s[i])
            && !prev.is_some_and(|p| is_ident(p) || p == '$' || p == ':' || p == '\'');
        if !starts {
            i += 1;
            continue;
        }
        let mut found = Vec::new();
        let start = i;
        if tree(&s, &mut i, &[], &mut found) {
            out.extend(found);
        }
        if i == start {
            i += 1;
        }
    }
    out
}

/// The longest prefix of `path` that names a file of `files`.
fn resolve(path: &[String], files: &BTreeMap<ModPath, PathBuf>) -> Option<ModPath> {
    (0..=path.len())
        .rev()
        .map(|n| path[..n].to_vec())
        .find(|p| files.contains_key(p))
}

fn is_bin(module: &ModPath) -> bool {
    module.first().is_some_and(|m| m == "bin")
}

/// The files `module` refers to.
fn references(
    module: &ModPath,
    path: &Path,
    files: &BTreeMap<ModPath, PathBuf>,
) -> (BTreeSet<ModPath>, Vec<String>) {
    let (text, test_only) = code(path);
    let index = is_mod_rs(path);
    let mut deps = BTreeSet::new();
    for line in text.lines() {
        let line = line.trim();
        let declared = line
            .strip_prefix("pub(crate) mod ")
            .or_else(|| line.strip_prefix("pub mod "))
            .or_else(|| line.strip_prefix("mod "))
            .and_then(|r| r.strip_suffix(';'));
        if let Some(name) = declared {
            let mut child = module.clone();
            child.push(name.to_owned());
            deps.insert(child);
        }
    }
    // `#[path = "derive_support.rs"] pub mod __private;`
    let derive_support = vec!["derive_support".to_owned()];
    deps.remove(&vec!["__private".to_owned()]);
    if module.is_empty() {
        deps.insert(derive_support.clone());
    }
    for full in paths(&text) {
        let absolute: Option<ModPath> = match full.first().map(String::as_str) {
            Some("crate") if is_bin(module) => None,
            Some("crate") => Some(full[1..].to_vec()),
            Some("mrtr_guard") if is_bin(module) => Some(full[1..].to_vec()),
            Some("self") => {
                let mut p = module.clone();
                p.extend(full[1..].iter().cloned());
                Some(p)
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
            Some(first) if index => {
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
    for name in &test_only {
        let mut child = module.clone();
        child.push(name.clone());
        deps.remove(&child);
    }
    (deps, test_only)
}

fn name(m: &ModPath) -> String {
    if m.is_empty() {
        "lib.rs".to_owned()
    } else {
        m.join("::")
    }
}

/// The top-level module a file belongs to, as [`ALLOWED`] names it.
fn layer(m: &ModPath) -> String {
    m.first().map_or_else(|| "lib.rs".to_owned(), Clone::clone)
}

struct Graph {
    files: BTreeMap<ModPath, PathBuf>,
    edges: BTreeMap<ModPath, BTreeSet<ModPath>>,
    /// The files only a `#[cfg(test)] mod` includes: the module it declares
    /// and every module below it.
    test_only: BTreeSet<ModPath>,
}

fn graph() -> Graph {
    let mut files = BTreeMap::new();
    walk(&root(), &Vec::new(), &mut files);
    assert!(files.len() > 60, "src/ not found");
    let mut edges = BTreeMap::new();
    let mut declared = BTreeSet::new();
    for (module, path) in &files {
        let (deps, tests) = references(module, path, &files);
        for t in tests {
            let mut m = module.clone();
            m.push(t);
            declared.insert(m);
        }
        edges.insert(module.clone(), deps);
    }
    let test_only = files
        .keys()
        .filter(|m| declared.iter().any(|d| m.starts_with(d)))
        .cloned()
        .collect();
    Graph {
        files,
        edges,
        test_only,
    }
}

#[test]
fn the_crate_files_import_each_other_without_a_cycle() {
    let Graph { edges: graph, .. } = graph();
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
}

#[test]
fn no_file_imports_through_an_index_it_is_inside() {
    let Graph { files, edges, .. } = graph();
    let mut bad = Vec::new();
    for (m, deps) in &edges {
        for d in deps {
            let index = files.get(d).is_some_and(|p| is_mod_rs(p));
            let inside = m.len() > d.len() && m[..d.len()] == d[..];
            if index && inside && !is_bin(m) {
                bad.push(format!("{} imports through {}", name(m), name(d)));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "import the file, not its module's index:\n{}",
        bad.join("\n")
    );
}

#[test]
fn modules_import_only_the_layers_below_them() {
    let Graph { edges, .. } = graph();
    let allowed: BTreeMap<&str, &[&str]> = ALLOWED.iter().copied().collect();
    let mut bad = BTreeSet::new();
    for (m, deps) in &edges {
        let from = layer(m);
        if from == "lib.rs" {
            continue;
        }
        let Some(may) = allowed.get(from.as_str()) else {
            panic!("{}: module `{from}` is not in ALLOWED", name(m));
        };
        for d in deps {
            let to = layer(d);
            if to != from && !may.contains(&to.as_str()) {
                bad.insert(format!("{from} -> {to} ({} -> {})", name(m), name(d)));
            }
        }
    }
    let table: Vec<String> = ALLOWED
        .iter()
        .map(|(m, may)| format!("  {m} may import {may:?}"))
        .collect();
    assert!(
        bad.is_empty(),
        "edges against the layer order:\n{}\nallowed:\n{}",
        bad.into_iter().collect::<Vec<_>>().join("\n"),
        table.join("\n")
    );
}

#[test]
fn a_backend_s_contracts_import_its_client_not_each_other() {
    let Graph { files, edges, .. } = graph();
    let mut bad = Vec::new();
    for (wing, contracts) in CONTRACTS {
        for contract in *contracts {
            let folder = [(*wing).to_owned(), (*contract).to_owned()];
            assert!(
                files.keys().any(|m| m.starts_with(&folder)),
                "{}: no such folder",
                folder.join("::")
            );
            for (m, deps) in &edges {
                if !m.starts_with(&folder) {
                    continue;
                }
                for d in deps {
                    let other = contracts.iter().any(|c| {
                        c != contract && d.starts_with(&[(*wing).to_owned(), (*c).to_owned()])
                    });
                    if other {
                        bad.push(format!("{} imports {}", name(m), name(d)));
                    }
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "a contract's folder imports another contract's:\n{}",
        bad.join("\n")
    );
}

#[test]
fn every_mod_rs_only_declares_and_re_exports() {
    let Graph { files, .. } = graph();
    let exceptions: BTreeMap<&str, &str> = NOT_YET_AN_INDEX.iter().copied().collect();
    let mut bad = Vec::new();
    let mut seen = BTreeSet::new();
    for path in files.values() {
        if path.file_name().is_none_or(|n| n != "mod.rs") {
            continue;
        }
        let file = relative(path);
        if exceptions.contains_key(file.as_str()) {
            seen.insert(file);
            continue;
        }
        let (text, _) = code(path);
        // Statements end with `;`; attributes stand alone.
        let mut statement = String::new();
        for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
            if statement.is_empty() && line.starts_with("#[") {
                continue;
            }
            statement.push_str(line);
            statement.push(' ');
            if !line.ends_with(';') {
                continue;
            }
            let ok = [
                "mod ",
                "pub mod ",
                "pub(crate) mod ",
                "pub use ",
                "pub(crate) use ",
            ]
            .iter()
            .any(|p| statement.starts_with(p));
            if !ok {
                bad.push(format!("{file}: {}", statement.trim()));
            }
            statement.clear();
        }
        if !statement.trim().is_empty() {
            bad.push(format!("{file}: {}", statement.trim()));
        }
    }
    assert!(
        bad.is_empty(),
        "a mod.rs holds more than declarations and re-exports:\n{}",
        bad.join("\n")
    );
    for file in exceptions.keys() {
        assert!(
            seen.contains(*file),
            "{file} is listed in NOT_YET_AN_INDEX but is no longer there or is an index: \
             drop it from the list"
        );
    }
}

#[test]
fn test_only_code_in_src_is_listed() {
    let Graph {
        files, test_only, ..
    } = graph();
    let covers = |entry: &str, file: &str| {
        file == entry || (entry.ends_with('/') && file.starts_with(entry))
    };
    let mut bad = Vec::new();
    for (m, path) in &files {
        let file = relative(path);
        let listed = TEST_ONLY_IN_SRC
            .iter()
            .any(|(entry, _)| covers(entry, &file));
        match (test_only.contains(m), listed) {
            (true, false) => bad.push(format!(
                "{file} is test-only code in src/: move it to tests/, or list it in \
                 TEST_ONLY_IN_SRC with the reason it stays"
            )),
            (false, true) => bad.push(format!(
                "{file} is listed in TEST_ONLY_IN_SRC but not reached only through a \
                 `#[cfg(test)] mod`: it is built into the library"
            )),
            _ => {}
        }
    }
    for (entry, reason) in TEST_ONLY_IN_SRC {
        if !files.values().any(|path| covers(entry, &relative(path))) {
            bad.push(format!(
                "{entry} is listed in TEST_ONLY_IN_SRC but is no longer there: drop it"
            ));
        }
        assert!(!reason.trim().is_empty(), "{entry}: give the reason");
    }
    assert!(
        bad.is_empty(),
        "test-only code in src/ against TEST_ONLY_IN_SRC:\n{}",
        bad.join("\n")
    );
    println!("{} test-only files in src/, all listed", test_only.len());
}
