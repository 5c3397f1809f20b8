//! The README and the manual in docs/: the reference pages are what the code writes today, every
//! link and image resolves (files and headings), every page is reachable from the README, and
//! the README stays a front door.

mod common;

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Every Markdown file of the README and the manual.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![common::repo_path("README.md")];
    pages.extend(common::files_under("docs", "md"));
    pages
}

/// The text outside fenced code blocks and inline code.
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut in_code = false;
        for c in line.chars() {
            if c == '`' {
                in_code = !in_code;
            } else if !in_code {
                out.push(c);
            }
        }
        out.push('\n');
    }
    out
}

/// The targets of the page's links and images: `[text](target)`, `![alt](target)`, and
/// `<img src="target">`.
fn targets(text: &str) -> Vec<String> {
    let prose = prose(text);
    let mut found = Vec::new();
    let mut rest = prose.as_str();
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        if let Some(end) = after.find(')') {
            let target = after[..end].split_whitespace().next().unwrap_or_default();
            found.push(target.trim_matches(['<', '>']).to_string());
        }
        rest = after;
    }
    let mut rest = prose.as_str();
    while let Some(at) = rest.find("src=\"") {
        let after = &rest[at + 5..];
        if let Some(end) = after.find('"') {
            found.push(after[..end].to_string());
        }
        rest = after;
    }
    found
}

/// GitHub's anchors for the page's headings (lower case, punctuation dropped, spaces to
/// hyphens; repeats numbered).
fn anchors(text: &str) -> HashSet<String> {
    let mut anchors = HashSet::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let title = line.trim_start_matches('#').trim();
        let slug: String = title
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let mut anchor = slug.clone();
        let mut n = 0;
        while anchors.contains(&anchor) {
            n += 1;
            anchor = format!("{slug}-{n}");
        }
        anchors.insert(anchor);
    }
    anchors
}

#[test]
fn every_link_and_image_resolves() {
    let mut broken = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for target in targets(&text) {
            if target.starts_with("http://") || target.starts_with("https://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let path = match file {
                "" => page.clone(),
                file => page.parent().unwrap().join(file),
            };
            if !path.exists() {
                broken.push(format!("{}: {target} (no such file)", page.display()));
                continue;
            }
            if !anchor.is_empty() {
                let linked = std::fs::read_to_string(&path).unwrap_or_default();
                if !anchors(&linked).contains(anchor) {
                    broken.push(format!("{}: {target} (no such heading)", page.display()));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn every_manual_page_is_reachable_from_the_readme() {
    let mut reached = BTreeSet::new();
    let mut queue = vec![common::repo_path("README.md").canonicalize().unwrap()];
    while let Some(page) = queue.pop() {
        if !reached.insert(page.clone()) {
            continue;
        }
        let text = std::fs::read_to_string(&page).unwrap();
        for target in targets(&text) {
            let file = target.split('#').next().unwrap_or_default();
            if file.ends_with(".md") && !file.contains("://") {
                if let Ok(path) = page.parent().unwrap().join(file).canonicalize() {
                    queue.push(path);
                }
            }
        }
    }
    let unreached: Vec<_> = pages()
        .into_iter()
        .map(|p| p.canonicalize().unwrap())
        .filter(|p| !reached.contains(p))
        .collect();
    assert!(unreached.is_empty(), "pages no link leads to: {unreached:?}");
}

#[test]
fn the_readme_fits_on_a_screen_and_keeps_the_two_commands() {
    let readme = std::fs::read_to_string(common::repo_path("README.md")).unwrap();
    assert!(readme.lines().count() <= 250, "{} lines", readme.lines().count());
    assert!(readme.contains("scripts/setup && scripts/play"));
    assert!(readme.contains("scripts/setup && scripts/test"));
}

/// The reference pages are what `histoplay generate reference` writes from the code today.
/// `HISTOPLAY_UPDATE_DOCS=1 cargo test --test docs` writes them anew.
#[test]
fn the_reference_pages_are_written_from_the_code() {
    let out = std::env::temp_dir().join(format!("histoplay-reference-{}", std::process::id()));
    let status = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(["generate", "reference"])
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    let committed = common::repo_path("docs/reference");
    let update = std::env::var_os("HISTOPLAY_UPDATE_DOCS").is_some();
    for name in ["keys.md", "commands.md"] {
        let written = std::fs::read_to_string(out.join(name)).unwrap();
        let path = committed.join(name);
        if update {
            std::fs::create_dir_all(&committed).unwrap();
            std::fs::write(&path, &written).unwrap();
        }
        let kept = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            kept == written,
            "{} differs from what the code writes: HISTOPLAY_UPDATE_DOCS=1 cargo test --test docs",
            path.display()
        );
    }
    let keys = std::fs::read_to_string(out.join("keys.md")).unwrap();
    assert!(
        keys.contains("| `?` `F1` `MENU` | This list: every command and its keys |"),
        "{keys}"
    );
    assert!(
        keys.contains("| `Y` | False colour on or off | `cycle false-colour` |"),
        "{keys}"
    );
    let commands = std::fs::read_to_string(out.join("commands.md")).unwrap();
    assert!(commands.contains("## histoplay report"), "{commands}");
    assert!(commands.contains("`--profile <NAME>`"), "{commands}");
    std::fs::remove_dir_all(&out).unwrap();
}

/// The README's pictures exist and are small enough for a forge to show quickly.
#[test]
fn the_gallery_pictures_are_there() {
    let readme = std::fs::read_to_string(common::repo_path("README.md")).unwrap();
    let pictures: Vec<String> = targets(&readme)
        .into_iter()
        .filter(|t| t.ends_with(".jpg") || t.ends_with(".png"))
        .collect();
    assert!(
        pictures.len() >= 9,
        "a picture on top and eight in the gallery: {pictures:?}"
    );
    for picture in pictures {
        let size = std::fs::metadata(Path::new(&common::repo_path("")).join(&picture))
            .unwrap()
            .len();
        assert!(size < 400_000, "{picture}: {size} bytes");
    }
}
