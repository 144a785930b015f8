//! No module imports one that imports it back (the developers' guide): in each crate's library
//! or binary code (test modules left out), the references between its modules, by file and by
//! folder, form no cycle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Module = Vec<String>;

/// The module path of every source file under `src` (`a/mod.rs` and `a.rs` are `a`), test files
/// (`tests.rs`) left out.
fn modules(src: &Path, dir: &Path, out: &mut BTreeMap<Module, PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            modules(src, &path, out);
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if !name.ends_with(".rs") || name == "tests.rs" {
            continue;
        }
        let rel = path.strip_prefix(src).unwrap().with_extension("");
        let mut parts: Module = rel
            .iter()
            .map(|p| p.to_string_lossy().to_string())
            .collect();
        if matches!(
            parts.last().map(String::as_str),
            Some("mod" | "lib" | "main")
        ) {
            parts.pop();
        }
        out.insert(parts, path);
    }
}

/// The code of a file without its test modules (clippy keeps them last) and its `//` comments.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]\nmod ").next().unwrap_or_default();
    text.lines()
        .map(|l| l.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The paths that follow `crate::` or `super::` in `code`, with `{a, b::c}` groups expanded
/// (one level), as segments relative to the crate root.
fn references(module: &Module, code: &str) -> Vec<Module> {
    let mut out = Vec::new();
    for (root, base) in [
        ("crate::", Vec::new()),
        ("super::", module[..module.len().saturating_sub(1)].to_vec()),
    ] {
        let mut rest = code;
        while let Some(i) = rest.find(root) {
            let before = rest[..i].chars().last();
            rest = &rest[i + root.len()..];
            if before.is_some_and(is_ident) {
                continue;
            }
            let mut path = base.clone();
            let mut s = rest;
            loop {
                let end = s.find(|c: char| !is_ident(c)).unwrap_or(s.len());
                if end == 0 {
                    break;
                }
                path.push(s[..end].to_string());
                s = &s[end..];
                if let Some(t) = s.strip_prefix("::") {
                    s = t;
                } else {
                    break;
                }
            }
            if let Some(group) = s.strip_prefix('{') {
                let inner = group.split('}').next().unwrap_or_default();
                for item in inner.split(',') {
                    let mut p = path.clone();
                    p.extend(
                        item.trim()
                            .split("::")
                            .take_while(|x| !x.is_empty() && x.chars().all(is_ident))
                            .map(str::to_string),
                    );
                    out.push(p);
                }
            } else {
                out.push(path);
            }
        }
    }
    out
}

/// A cycle in `graph`, if any (as the modules along it).
fn cycle(graph: &BTreeMap<Module, BTreeSet<Module>>) -> Option<Vec<Module>> {
    fn visit(
        v: &Module,
        graph: &BTreeMap<Module, BTreeSet<Module>>,
        state: &mut BTreeMap<Module, u8>,
        stack: &mut Vec<Module>,
    ) -> Option<Vec<Module>> {
        state.insert(v.clone(), 1);
        stack.push(v.clone());
        for w in graph.get(v).into_iter().flatten() {
            match state.get(w).copied().unwrap_or(0) {
                0 => {
                    if let Some(c) = visit(w, graph, state, stack) {
                        return Some(c);
                    }
                }
                1 => {
                    let at = stack.iter().position(|x| x == w).unwrap();
                    return Some(stack[at..].to_vec());
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(v.clone(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for v in graph.keys() {
        if !state.contains_key(v) {
            if let Some(c) = visit(v, graph, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

/// The module graph of one crate: by file, and by folder (two modules' references collapsed
/// to the children of their closest common parent).
fn graphs(src: &Path) -> [BTreeMap<Module, BTreeSet<Module>>; 2] {
    let mut mods = BTreeMap::new();
    modules(src, src, &mut mods);
    assert!(
        mods.len() > 3,
        "{} modules under {}",
        mods.len(),
        src.display()
    );
    let mut by_file: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (m, path) in &mods {
        let text = code(&std::fs::read_to_string(path).unwrap());
        for r in references(m, &text) {
            // The longest prefix of the path that is a module; a module's own ancestors (its
            // `super`, the crate root) are where it is declared, not an import.
            let Some(t) = (1..=r.len())
                .rev()
                .map(|k| &r[..k])
                .find(|p| mods.contains_key(*p))
            else {
                continue;
            };
            if t != m.as_slice() && !m.starts_with(t) && !t.starts_with(m) {
                by_file.entry(m.clone()).or_default().insert(t.to_vec());
            }
        }
    }
    let mut by_folder: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (a, targets) in &by_file {
        for b in targets {
            let k = a.iter().zip(b).take_while(|(x, y)| x == y).count();
            if k < a.len() && k < b.len() {
                by_folder
                    .entry(a[..=k].to_vec())
                    .or_default()
                    .insert(b[..=k].to_vec());
            }
        }
    }
    [by_file, by_folder]
}

#[test]
fn no_module_imports_one_that_imports_it_back() {
    // The repository: the folder that holds this tests package.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    for krate in ["engine", "tables", "solver", "cli"] {
        for (kind, g) in ["file", "folder"]
            .iter()
            .zip(graphs(&root.join(krate).join("src")))
        {
            if let Some(c) = cycle(&g) {
                let names: Vec<String> = c.iter().map(|m| m.join("::")).collect();
                panic!("{krate}: a cycle of {kind}s: {}", names.join(" -> "));
            }
        }
    }
}

/// The check finds a cycle where there is one.
#[test]
fn a_cycle_is_found() {
    let m = |s: &str| -> Module { s.split("::").map(str::to_string).collect() };
    let refs = references(
        &m("a::b"),
        "use crate::{c::d, e};\nfn f() { super::g::h(); crate::a::b::x(); }",
    );
    assert_eq!(refs, vec![m("c::d"), m("e"), m("a::b::x"), m("a::g::h")]);
    let mut g: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    g.entry(m("x")).or_default().insert(m("y"));
    g.entry(m("y")).or_default().insert(m("z"));
    assert_eq!(cycle(&g), None);
    g.entry(m("z")).or_default().insert(m("x"));
    assert_eq!(cycle(&g).map(|c| c.len()), Some(3));
}
