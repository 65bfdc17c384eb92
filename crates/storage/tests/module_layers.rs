//! Module layers: reads the crate's own source and fails when a module names one in a
//! layer above its own, when any modules import each other in a cycle, or when a module
//! has no layer (docs/architecture.md, "Storage layers"). So the pager, which deals in
//! pages, can never again know B-tree nodes: the trees sit on the pages, not the other
//! way round. The binding's modules (native/src) are read too, for cycles: it has no
//! Rust tests of its own, and its files sit in one flat layer.
//!
//! A module is a top-level file of `src/` or a folder of it. What it names is every
//! `crate::x` path (`crate::{x, y}` too), `super::x` from a top-level file and
//! `super::super::x` from a file one folder down (one more `super` per folder deeper);
//! comments and the unit tests at the end of a file (`#[cfg(test)]`) do not count.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Lowest first. A module may name modules of its own layer and the layers below, and
/// every module has a layer: a new one is placed here (and in docs/architecture.md).
const LAYERS: &[(&str, &[&str])] = &[
    ("base", &["corruption_log", "encoding", "error", "limits", "panics", "progress", "vfs"]),
    ("log", &["commit", "wal"]),
    ("pages", &["page"]),
    ("space", &["space"]),
    ("pager", &["pager"]),
    ("trees", &["btree"]),
    ("record", &["meta"]),
    ("versions", &["versions"]),
    ("checkpoint", &["checkpoint"]),
    ("database", &["database"]),
    ("testing", &["decoders"]),
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|(_, modules)| modules.contains(&module))
}

fn layer_name(layer: Option<usize>) -> &'static str {
    layer.and_then(|layer| LAYERS.get(layer)).map_or("no layer", |(name, _)| name)
}

#[test]
fn every_module_has_a_layer() {
    let graph = module_graph(&src_dir());
    let unplaced: Vec<&String> = graph.keys().filter(|module| layer_of(module).is_none()).collect();
    assert!(unplaced.is_empty(), "modules with no layer (place each in LAYERS): {unplaced:?}");
    let gone: Vec<&str> = LAYERS.iter().flat_map(|(_, modules)| modules.iter().copied()).filter(|m| !graph.contains_key(*m)).collect();
    assert!(gone.is_empty(), "LAYERS names modules the source does not have: {gone:?}");
}

#[test]
fn no_module_names_one_in_a_layer_above_its_own() {
    let graph = module_graph(&src_dir());
    assert!(graph.contains_key("pager") && graph.contains_key("btree"), "the source was read: {:?}", graph.keys());
    let mut wrong = Vec::new();
    for (module, names) in &graph {
        for (named, file) in names {
            // A module with no layer fails `every_module_has_a_layer`; here it is the top.
            let rank = |m: &str| layer_of(m).unwrap_or(LAYERS.len());
            if rank(named) > rank(module) {
                wrong.push(format!(
                    "{file}: `{module}` ({}) names `{named}` ({})",
                    layer_name(layer_of(module)),
                    layer_name(layer_of(named))
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "modules naming a higher layer:\n{}", wrong.join("\n"));
}

#[test]
fn no_modules_import_each_other_in_a_cycle() {
    let graph = module_graph(&src_dir());
    if let Some(cycle) = find_cycle(&edges(&graph)) {
        panic!("import cycle: {}", cycle.join(" -> "));
    }
}

#[test]
fn the_binding_imports_no_modules_in_a_cycle() {
    let graph = module_graph(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../native/src"));
    assert!(graph.contains_key("engine") && graph.contains_key("tasks"), "the binding's source was read: {:?}", graph.keys());
    if let Some(cycle) = find_cycle(&edges(&graph)) {
        panic!("import cycle in native/src: {}", cycle.join(" -> "));
    }
}

#[test]
fn the_reader_finds_every_form_of_a_module_path() {
    let source = "//! crate::commented\nuse crate::{alpha, beta::{x, y}};\nuse super::gamma;\nfn f() { crate::delta::g(); }\n/// crate::doc\n#[cfg(test)]\nmod tests { use crate::epsilon; }\n";
    let names = names_in(source, 0);
    assert_eq!(names, ["alpha", "beta", "delta", "gamma"].map(String::from).into_iter().collect::<BTreeSet<_>>());
    assert_eq!(names_in("use super::super::zeta;\nuse super::inner;", 1), BTreeSet::from(["zeta".to_string()]));
    assert_eq!(names_in("use super::super::super::eta;\nuse super::super::sibling;", 2), BTreeSet::from(["eta".to_string()]));
    let depth = |path: &str| depth_of(&path.split('/').map(String::from).collect::<Vec<_>>());
    assert_eq!([depth("x.rs"), depth("x/mod.rs"), depth("x/y.rs"), depth("x/y/mod.rs"), depth("x/y/z.rs")], [0, 0, 1, 1, 2]);
    let cycle = find_cycle(&BTreeMap::from([("a", BTreeSet::from(["b"])), ("b", BTreeSet::from(["a"]))]));
    assert!(cycle.is_some_and(|c| c.len() == 3), "a two-module cycle is found");
    assert!(find_cycle(&BTreeMap::from([("a", BTreeSet::from(["b"])), ("b", BTreeSet::new())])).is_none());
}

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Module → the modules it names, each with one file that names it.
fn module_graph(src: &Path) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut graph: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let files = rust_files(src);
    // `crate::Error` and the like name what lib.rs re-exports, not a module.
    let modules: BTreeSet<String> = files
        .iter()
        .map(|path| path.strip_prefix(src).expect("under src").iter().next().expect("a part").to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    for path in files {
        let relative = path.strip_prefix(src).expect("under src").to_path_buf();
        let parts: Vec<String> = relative.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        if parts == ["lib.rs"] {
            continue;
        }
        let module = parts[0].trim_end_matches(".rs").to_string();
        let source = fs::read_to_string(&path).expect("read source");
        let entry = graph.entry(module.clone()).or_default();
        for named in names_in(&source, depth_of(&parts)) {
            if named != module && modules.contains(&named) {
                entry.entry(named).or_insert_with(|| relative.display().to_string());
            }
        }
    }
    graph
}

/// Module → the modules it names that the source has.
fn edges(graph: &BTreeMap<String, BTreeMap<String, String>>) -> BTreeMap<&str, BTreeSet<&str>> {
    graph
        .iter()
        .map(|(m, names)| (m.as_str(), names.keys().map(String::as_str).filter(|n| graph.contains_key(*n)).collect()))
        .collect()
}

/// How many `super`s below the crate a file's own module is: src/x.rs and src/x/mod.rs
/// 0 (`super` is the crate), src/x/y.rs and src/x/y/mod.rs 1, src/x/y/z.rs 2.
fn depth_of(parts: &[String]) -> usize {
    let folders = parts.len() - 1;
    if parts.last().is_some_and(|p| p == "mod.rs") { folders.saturating_sub(1) } else { folders }
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).expect("read src") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// The crate-level modules a file names, outside comments and its unit tests.
fn names_in(source: &str, depth: usize) -> BTreeSet<String> {
    let mut code = String::new();
    let lines: Vec<&str> = source.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let test_module = lines.get(i + 1).is_some_and(|next| next.trim_start().starts_with("mod "));
        if line.trim_start().starts_with("#[cfg(test)]") && test_module {
            break;
        }
        code.push_str(line.split("//").next().unwrap_or(""));
        code.push('\n');
    }
    let mut prefixes = vec!["crate::".to_string()];
    prefixes.push(format!("{}::", vec!["super"; depth + 1].join("::")));
    let mut names = BTreeSet::new();
    for prefix in &prefixes {
        let mut rest = code.as_str();
        while let Some(at) = rest.find(prefix.as_str()) {
            let before = rest[..at].chars().last();
            rest = &rest[at + prefix.len()..];
            // `super::super::x` also contains `super::x`: only whole paths count.
            if before.is_some_and(|c| c == ':' || c.is_alphanumeric() || c == '_') {
                continue;
            }
            if let Some(group) = rest.strip_prefix('{') {
                names.extend(group_heads(group));
            } else {
                names.insert(ident(rest).to_string());
            }
        }
    }
    names.remove("");
    names
}

/// The first segment of each path in `a, b::{c, d}, e}`: a, b, e.
fn group_heads(group: &str) -> Vec<String> {
    let mut heads = Vec::new();
    let mut depth = 0;
    let mut expect_head = true;
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => expect_head = true,
            c if expect_head && (c.is_alphanumeric() || c == '_') => {
                heads.push(ident(&group[i..]).to_string());
                expect_head = false;
            }
            _ => {}
        }
    }
    heads
}

fn ident(text: &str) -> &str {
    let end = text.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(text.len());
    &text[..end]
}

/// A cycle as the modules along it, the first repeated at the end.
fn find_cycle<'a>(edges: &BTreeMap<&'a str, BTreeSet<&'a str>>) -> Option<Vec<&'a str>> {
    fn visit<'a>(
        node: &'a str,
        edges: &BTreeMap<&'a str, BTreeSet<&'a str>>,
        path: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) -> Option<Vec<&'a str>> {
        if let Some(at) = path.iter().position(|&n| n == node) {
            let mut cycle = path[at..].to_vec();
            cycle.push(node);
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node);
        for &next in edges.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, edges, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node);
        None
    }
    let mut done = BTreeSet::new();
    edges.keys().find_map(|&start| visit(start, edges, &mut Vec::new(), &mut done))
}
