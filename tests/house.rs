//! The code's shape, kept: no source file past ~600 lines outside its tests, no two modules
//! that import each other (directly or round a longer circle), and every folder's module
//! starts by saying what lives there.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `src/`.
fn sources() -> Vec<PathBuf> {
    common::files_under("src", "rs")
}

/// The module path of a file: `src/player/window/mod.rs` is `["player", "window"]`.
fn module_of(path: &Path) -> Vec<String> {
    let relative = path.strip_prefix(common::repo_path("src")).unwrap().with_extension("");
    let mut parts: Vec<String> = relative.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        parts.pop();
    }
    parts
}

/// A file's text before its inline `#[cfg(test)] mod tests { ... }`, if it has one.
fn without_tests(text: &str) -> &str {
    text.find("#[cfg(test)]\nmod tests {").map_or(text, |at| &text[..at])
}

#[test]
fn no_source_file_is_past_600_lines_outside_its_tests() {
    let long: Vec<String> = sources()
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n != "tests.rs"))
        .filter_map(|p| {
            let lines = without_tests(&std::fs::read_to_string(&p).unwrap()).lines().count();
            (lines > 600).then(|| format!("{} ({lines} lines)", p.display()))
        })
        .collect();
    assert!(long.is_empty(), "split by responsibility: {long:?}");
}

#[test]
fn every_folder_says_what_lives_there() {
    let silent: Vec<String> = sources()
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n == "mod.rs" || n == "lib.rs"))
        .filter(|p| !std::fs::read_to_string(p).unwrap().starts_with("//!"))
        .map(|p| p.display().to_string())
        .collect();
    assert!(silent.is_empty(), "no `//!` line at the top: {silent:?}");
}

/// The paths a file names (`crate::a::b`, `super::c`, `self::d`), as module paths: the
/// longest prefix of each that is a module.
fn imports(module: &[String], text: &str, modules: &BTreeSet<Vec<String>>) -> BTreeSet<Vec<String>> {
    let mut found = BTreeSet::new();
    let bytes = text.as_bytes();
    for start in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(at) = text[from..].find(start).map(|i| i + from) {
            from = at + start.len();
            // Only at the start of a path (not `my_crate::`).
            if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
                continue;
            }
            let path: Vec<&str> = text[at..]
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
                .next()
                .unwrap_or_default()
                .split("::")
                .filter(|s| !s.is_empty())
                .collect();
            let mut base: Vec<String> = match path.first() {
                Some(&"crate") => Vec::new(),
                _ => module.to_vec(),
            };
            let mut rest = &path[1..];
            if path.first() == Some(&"super") {
                base.pop();
                while rest.first() == Some(&"super") {
                    base.pop();
                    rest = &rest[1..];
                }
            }
            let full: Vec<String> = base.into_iter().chain(rest.iter().map(|s| s.to_string())).collect();
            if let Some(n) = (0..=full.len()).rev().find(|&n| modules.contains(&full[..n].to_vec())) {
                found.insert(full[..n].to_vec());
            }
        }
    }
    found
}

#[test]
fn no_two_modules_import_each_other() {
    let files = sources();
    let modules: BTreeSet<Vec<String>> = files.iter().map(|p| module_of(p)).collect();
    // Edges between siblings: a file under folder X naming something under its sibling Y is
    // X using Y (a module using its own descendants or ancestors is no circle).
    let mut uses: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for path in files.iter().filter(|p| p.file_name().is_some_and(|n| n != "tests.rs")) {
        let module = module_of(path);
        let text = std::fs::read_to_string(path).unwrap();
        for used in imports(&module, without_tests(&text), &modules) {
            let common = module.iter().zip(&used).take_while(|(a, b)| a == b).count();
            if common == module.len() || common == used.len() {
                continue;
            }
            uses.entry(module[..=common].to_vec())
                .or_default()
                .insert(used[..=common].to_vec());
        }
    }
    // A circle is a module that reaches itself.
    let mut circles = BTreeSet::new();
    for start in uses.keys() {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<Vec<String>> = uses[start].iter().cloned().collect();
        while let Some(next) = stack.pop() {
            if &next == start {
                circles.insert(start.join("/"));
                break;
            }
            if seen.insert(next.clone()) {
                stack.extend(uses.get(&next).into_iter().flatten().cloned());
            }
        }
    }
    assert!(circles.is_empty(), "modules in an import circle: {circles:?}");
}
