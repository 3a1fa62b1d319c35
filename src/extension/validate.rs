//! What `mcpeval validate` says about extensions. It starts none and downloads nothing (an
//! extension's `initialize` may touch real systems, a download needs the network), so it
//! cannot know the operations' schemas: it lists the extension steps whose arguments it did
//! not check, and says which packages are missing or not yet cached.

use std::path::{Path, PathBuf};

use super::cache::ReleaseCache;
use super::release::go_platform;
use crate::config::{Eval, ExtensionStep, Package};

/// Notes for `validate` on `eval`, whose tasks have the extension steps `steps` (each with
/// its task file); nothing when the eval has no extensions.
pub fn validation_notes(eval: &Eval, steps: &[(PathBuf, ExtensionStep)]) -> Vec<String> {
    let file = eval.path.display();
    let mut notes = Vec::new();
    if !steps.is_empty() {
        let listed: Vec<String> = steps
            .iter()
            .map(|(task, step)| {
                let task = task.strip_prefix(eval.dir()).unwrap_or(task);
                format!("  {}: {}.{}", task.display(), step.key_path, step.name())
            })
            .collect();
        notes.push(format!(
            "{file}: validate starts no extension and downloads none, so it did not check the arguments of these extension steps against their operations' schemas (`mcpeval check` does, before setup):\n{}",
            listed.join("\n")
        ));
    }
    for spec in eval.extensions.values() {
        let key = format!("config.extensions.{}.package", spec.name);
        if let Some(problem) = package_note(&spec.package) {
            notes.push(format!("{file}: {key}: {problem}"));
        }
    }
    notes
}

/// What is not ready about a package, without running or downloading anything.
fn package_note(package: &Package) -> Option<String> {
    match package {
        Package::File(path) => local_note(path),
        Package::GitHub(github) => {
            let cache = ReleaseCache::of(&github.owner, &github.repo).ok()?;
            let (os, arch) = go_platform();
            let platform = format!("{os}-{arch}");
            let cached = match &github.version {
                Some(version) => cache.cached(version, &platform).is_some(),
                None => cache.latest_cached(&platform).is_some(),
            };
            (!cached).then(|| {
                format!(
                    "github.com/{}/{} is not cached in {}; `mcpeval check` downloads it",
                    github.owner,
                    github.repo,
                    cache.dir.display()
                )
            })
        }
    }
}

fn local_note(path: &Path) -> Option<String> {
    use std::os::unix::fs::PermissionsExt;
    match std::fs::metadata(path) {
        Err(_) => Some(format!(
            "{} does not exist (yet); the tasks that need it will fail",
            path.display()
        )),
        Ok(meta) if meta.is_dir() || meta.permissions().mode() & 0o111 == 0 => Some(format!(
            "{} is not an executable file; the tasks that need it will fail",
            path.display()
        )),
        Ok(_) => None,
    }
}
