//! The workflows pass actionlint: the CI chapter's, the action (`action.yml`) with its sample
//! jobs and as a job of its own, the book's (which also publishes the book) and the release's.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;

use super::{doc_files, root};

#[test]
fn the_ci_chapters_workflow_passes_actionlint() {
    let Some(actionlint) = support::peers::require("venv/bin/actionlint") else {
        return;
    };
    let workflow = "docs/src/ci/evals.yml";
    let out = Command::new(&actionlint)
        .arg(root().join(workflow))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{workflow}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A workflow that uses the action as the book's CI chapter shows it (two partitions and a
/// gate), in a repository of its own that holds `action.yml` and uses it as `./`:
/// actionlint then reads the action and checks its inputs too.
#[test]
fn the_action_and_its_sample_workflow_pass_actionlint() {
    let Some(actionlint) = support::peers::require("venv/bin/actionlint") else {
        return;
    };
    let repo = tempfile::tempdir().unwrap();
    let workflows = repo.path().join(".github/workflows");
    std::fs::create_dir_all(&workflows).unwrap();
    std::fs::copy(root().join("action.yml"), repo.path().join("action.yml")).unwrap();
    let chapter = std::fs::read_to_string(root().join("docs/src/ci.md")).unwrap();
    let sample = action_sample(&chapter);
    // actionlint finds the repository's root (where `./` is) by its .git.
    let git = Command::new("git")
        .args(["init", "-q"])
        .current_dir(repo.path())
        .status()
        .unwrap();
    assert!(git.success());
    for workflow in [sample.clone(), sample.replace("mode: gate", "mood: gate")] {
        let local = workflow.replace("uses: OWNER/REPO@vX.Y.Z", "uses: ./");
        std::fs::write(workflows.join("gate.yml"), local).unwrap();
        let out = Command::new(&actionlint)
            .arg(".github/workflows/gate.yml")
            .current_dir(repo.path())
            .output()
            .unwrap();
        let shown = String::from_utf8_lossy(&out.stdout);
        if workflow == sample {
            assert!(out.status.success(), "{shown}");
        } else {
            // The check can fail: an input the action does not have.
            assert!(shown.contains(r#"input "mood" is not defined"#), "{shown}");
        }
    }
}

/// The chapter's jobs that use the action (the ```yaml block with `OWNER/REPO@vX.Y.Z`), in
/// a workflow of their own.
fn action_sample(chapter: &str) -> String {
    let block = chapter
        .split("```yaml\n")
        .skip(1)
        .filter_map(|rest| rest.split_once("```").map(|(block, _)| block))
        .find(|block| block.contains("uses: OWNER/REPO@vX.Y.Z"))
        .expect("docs/src/ci.md shows the action's jobs");
    format!(
        "name: evals\non:\n  push:\n    branches: [main]\n  pull_request:\npermissions:\n  \
         contents: read\n{block}"
    )
}

/// actionlint reads a composite action only for its inputs: its steps, put in a workflow's
/// job (the inputs as `workflow_dispatch` inputs), get the whole check — expressions, step
/// ids, the inputs of the actions they use.
#[test]
fn the_actions_steps_pass_actionlint_as_a_job() {
    let Some(actionlint) = support::peers::require("venv/bin/actionlint") else {
        return;
    };
    let action: serde_json::Value =
        serde_saphyr::from_str(&std::fs::read_to_string(root().join("action.yml")).unwrap())
            .unwrap();
    let inputs: serde_json::Map<String, serde_json::Value> = (action["inputs"].as_object())
        .unwrap()
        .keys()
        .map(|name| (name.clone(), serde_json::json!({"type": "string"})))
        .collect();
    assert_eq!(action["runs"]["using"], "composite");
    // JSON is YAML.
    let workflow = serde_json::json!({
        "name": "action",
        "on": {"workflow_dispatch": {"inputs": inputs}},
        "permissions": {"contents": "read"},
        "jobs": {"action": {"runs-on": "ubuntu-latest", "steps": action["runs"]["steps"]}},
    });
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("action.yml");
    std::fs::write(&file, serde_json::to_string_pretty(&workflow).unwrap()).unwrap();
    let out = Command::new(&actionlint).arg(&file).output().unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_book_workflow_passes_actionlint_and_publishes_the_book() {
    let workflow = root().join(".github/workflows/book.yml");
    let text = std::fs::read_to_string(&workflow).unwrap();
    for needed in [
        "mdbook build docs",
        "actions/upload-pages-artifact",
        "actions/deploy-pages",
        "pages: write",
        "id-token: write",
    ] {
        assert!(text.contains(needed), "book.yml lacks {needed}");
    }
    // It uploads where mdBook writes: `build-dir`, relative to docs/.
    let book = std::fs::read_to_string(root().join("docs/book.toml")).unwrap();
    let build_dir = book
        .lines()
        .find_map(|line| line.strip_prefix("build-dir = "))
        .map_or("book", |dir| dir.trim_matches('"'));
    let uploaded = Path::new("docs").join(build_dir);
    let uploaded: PathBuf = uploaded
        .components()
        .fold(PathBuf::new(), |mut path, part| {
            match part {
                std::path::Component::ParentDir => {
                    path.pop();
                }
                part => path.push(part),
            }
            path
        });
    let uploaded = format!("path: {}", uploaded.display());
    assert!(text.contains(&uploaded), "book.yml lacks `{uploaded}`");
    // A push that changes what the book includes rebuilds it.
    for file in doc_files()
        .iter()
        .filter(|f| f.starts_with(root().join("docs")))
    {
        let page = std::fs::read_to_string(file).unwrap();
        for include in page.lines().filter_map(|line| {
            line.trim()
                .strip_prefix("{{#include ")
                .and_then(|rest| rest.strip_suffix("}}"))
        }) {
            let included = std::path::absolute(file.parent().unwrap().join(include.trim()))
                .unwrap()
                .components()
                .fold(PathBuf::new(), |mut path, part| {
                    match part {
                        std::path::Component::ParentDir => {
                            path.pop();
                        }
                        part => path.push(part),
                    }
                    path
                });
            // Some folder holding the included file is a `paths` entry (`schema/**`).
            let relative = included.strip_prefix(root()).unwrap();
            let covered = (relative.ancestors().skip(1))
                .filter(|dir| !dir.as_os_str().is_empty())
                .any(|dir| text.contains(&format!("{}/**", dir.display())));
            assert!(
                covered,
                "{}: includes {include}, but book.yml does not run on changes to it",
                file.display()
            );
        }
    }
    let Some(actionlint) = support::peers::require("venv/bin/actionlint") else {
        return;
    };
    let out = Command::new(&actionlint).arg(&workflow).output().unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The release workflow (cargo-dist's, RELEASING.md) passes actionlint.
#[test]
fn the_release_workflow_passes_actionlint() {
    let Some(actionlint) = support::peers::require("venv/bin/actionlint") else {
        return;
    };
    let workflow = root().join(".github/workflows/release.yml");
    let out = Command::new(&actionlint).arg(&workflow).output().unwrap();
    assert!(
        out.status.success(),
        "{}: {}{}",
        workflow.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
