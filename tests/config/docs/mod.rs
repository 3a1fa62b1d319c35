//! The README and the book (`docs/src`) cannot drift from the code: every whole-file YAML or
//! JSON example loads with mcpeval's own loaders, every `mcpeval …` command line parses with
//! the real command line, every `MCPEVAL_*` variable the code reads is in the reference, every
//! key the loaders accept is documented, the CI chapter's workflows (and the action they use,
//! `action.yml`) pass actionlint, and the book builds with mdBook.

use std::path::{Path, PathBuf};

mod book;
mod cli_reference;
mod examples;
mod keys;
mod variables;
mod workflows;

pub(super) fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The README, CONTRIBUTING.md and every page of the book.
pub(super) fn doc_files() -> Vec<PathBuf> {
    let mut files = vec![root().join("README.md")];
    let contributing = root().join("CONTRIBUTING.md");
    if contributing.exists() {
        files.push(contributing);
    }
    let mut pages = Vec::new();
    collect_markdown(&root().join("docs/src"), &mut pages);
    pages.sort();
    files.extend(pages);
    files
}

fn collect_markdown(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().map(Result::unwrap) {
        let path = entry.path();
        if path.is_dir() {
            collect_markdown(&path, out);
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
}

/// A fenced code block: where it starts, its language and its text (mdBook's
/// `{{#include file}}` lines replaced by the file).
pub(super) struct Block {
    pub(super) at: String,
    pub(super) lang: String,
    pub(super) text: String,
}

pub(super) fn blocks(file: &Path) -> Vec<Block> {
    let text = std::fs::read_to_string(file).unwrap();
    let mut blocks = Vec::new();
    let mut open: Option<(usize, String, String)> = None;
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        match &mut open {
            None => {
                if let Some(info) = trimmed.strip_prefix("```") {
                    let lang = info.split([',', ' ']).next().unwrap_or("").to_owned();
                    open = Some((index + 1, lang, String::new()));
                }
            }
            Some((start, lang, body)) => {
                if trimmed.starts_with("```") {
                    blocks.push(Block {
                        at: format!("{}:{start}", file.display()),
                        lang: std::mem::take(lang),
                        text: std::mem::take(body),
                    });
                    open = None;
                } else if let Some(include) = trimmed
                    .strip_prefix("{{#include ")
                    .and_then(|rest| rest.strip_suffix("}}"))
                {
                    let path = file.parent().unwrap().join(include.trim());
                    body.push_str(&std::fs::read_to_string(&path).unwrap_or_else(|e| {
                        panic!("{}: {{{{#include {include}}}}}: {e}", file.display())
                    }));
                } else {
                    body.push_str(line);
                    body.push('\n');
                }
            }
        }
    }
    blocks
}

pub(super) fn all_blocks() -> Vec<Block> {
    doc_files().iter().flat_map(|file| blocks(file)).collect()
}
