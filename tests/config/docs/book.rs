//! The book itself: it builds with mdBook, its relative links and images resolve, and
//! CONTRIBUTING.md names every benchmark.

use crate::support;

use std::collections::BTreeSet;
use std::process::Command;

use super::{doc_files, root};

#[test]
fn the_book_builds() {
    let Some(mdbook) = support::peers::require("tools/bin/mdbook") else {
        return;
    };
    let out_dir = tempfile::tempdir().unwrap();
    let out = Command::new(mdbook)
        .args(["build", "docs", "--dest-dir"])
        .arg(out_dir.path())
        .current_dir(root())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let page = std::fs::read_to_string(out_dir.path().join("ci.html")).unwrap();
    assert!(
        page.contains("run: mcpeval action gate"),
        "the workflow is included"
    );
}

/// The relative links and images of a Markdown text: `](target)`, without `#anchor`.
fn relative_links(text: &str) -> Vec<String> {
    text.match_indices("](")
        .filter_map(|(at, _)| {
            let rest = &text[at + 2..];
            let target = &rest[..rest.find(')')?];
            let target = target.split('#').next().unwrap_or_default();
            (!target.is_empty() && !target.contains("://") && !target.starts_with("mailto:"))
                .then(|| target.to_owned())
        })
        .collect()
}

#[test]
fn every_relative_link_and_image_resolves() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in doc_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        for target in relative_links(&text) {
            checked += 1;
            if !file.parent().unwrap().join(&target).exists() {
                broken.push(format!("{}: {target}", file.display()));
            }
        }
    }
    assert!(checked >= 50, "only {checked} links found");
    assert!(broken.is_empty(), "broken links: {broken:?}");
    // The check can fail: the path reports.md had.
    let reports = root().join("docs/src/reports.md");
    assert!(
        !reports
            .parent()
            .unwrap()
            .join("docs/html-report.png")
            .exists()
    );
}

#[test]
fn contributing_names_every_benchmark() {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let benches: Vec<&str> = manifest
        .split("[[bench]]")
        .skip(1)
        .filter_map(|table| {
            let line = table.lines().find(|line| line.starts_with("name = "))?;
            Some(line.trim_start_matches("name = ").trim_matches('"'))
        })
        .collect();
    assert!(benches.len() >= 5, "{benches:?}");
    let contributing = std::fs::read_to_string(root().join("CONTRIBUTING.md")).unwrap();
    let line = contributing
        .lines()
        .find(|line| line.contains("cargo bench --bench <"))
        .expect("CONTRIBUTING.md's benchmark line");
    let named = line.split('<').nth(1).unwrap().split('>').next().unwrap();
    let named: BTreeSet<&str> = named.split('|').collect();
    let missing: Vec<&&str> = benches.iter().filter(|b| !named.contains(**b)).collect();
    assert!(
        missing.is_empty(),
        "CONTRIBUTING.md lacks benchmarks {missing:?}"
    );
    let extra: Vec<&&str> = named.iter().filter(|n| !benches.contains(n)).collect();
    assert!(
        extra.is_empty(),
        "CONTRIBUTING.md names benchmarks Cargo.toml lacks: {extra:?}"
    );
}
