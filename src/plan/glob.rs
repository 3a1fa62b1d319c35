//! Task-set globs: the files a glob matches, walked from its literal leading directories.

use std::path::{Path, PathBuf};

/// A file a task set names.
#[derive(Debug, Clone)]
pub(super) struct SetFile {
    /// The path as the task set spells it (a glob's root joined with the path below it).
    pub path: PathBuf,
    /// The file exists and its own path is no symbolic link, so its canonical path is its
    /// directory's joined with its name.
    pub plain: bool,
}

impl SetFile {
    /// The file of a `path:` task set.
    pub fn at(path: &Path) -> Self {
        let plain = std::fs::symlink_metadata(path).is_ok_and(|m| !m.file_type().is_symlink());
        SetFile {
            path: path.to_path_buf(),
            plain,
        }
    }
}

/// The files that `glob` matches, sorted. A relative glob is anchored at `base` (the eval's
/// directory), an absolute one at the root; `*` stays within one directory, `**` crosses any
/// number. The walk starts at the glob's literal leading directories (`../tasks/*/task.yaml`
/// walks `../tasks`), so a glob never walks more than it can match.
pub fn glob_files(base: &Path, glob: &str) -> Result<Vec<PathBuf>, String> {
    let files = glob_set_files(base, glob)?;
    Ok(files.into_iter().map(|file| file.path).collect())
}

/// [`glob_files`], with whether each file's path is a symbolic link (as the walk saw it).
pub(super) fn glob_set_files(base: &Path, glob: &str) -> Result<Vec<SetFile>, String> {
    let (root, pattern) = split_glob(base, glob.trim());
    if !root.is_dir() {
        // Its literal directories do not exist: it matches nothing.
        return Ok(Vec::new());
    }
    // globwalk panics on a base of `.` (it strips a prefix it normalised differently), so
    // it walks the absolute directory and the files keep the root as written.
    let walk_root = std::path::absolute(&root).map_err(|e| format!("{}: {e}", root.display()))?;
    let anchored = format!("/{pattern}");
    // A walk that visits each directory's entries by name yields the paths sorted (paths
    // compare by components), so the sort below only checks.
    let walker = globwalk::GlobWalkerBuilder::from_patterns(&walk_root, &[anchored.as_str()])
        .file_type(globwalk::FileType::FILE)
        .follow_links(true)
        .sort_by(|a, b| a.file_name().cmp(b.file_name()))
        .build()
        .map_err(|e| format!("invalid glob: {e}"))?;
    // The files keep the root as written, without `.` components or doubled separators.
    let clean_root: PathBuf = root.components().collect();
    let mut files = Vec::new();
    for entry in walker {
        let entry = entry.map_err(|e| format!("cannot walk {}: {e}", root.display()))?;
        let plain = !entry.path_is_symlink();
        let below = entry
            .path()
            .strip_prefix(&walk_root)
            .unwrap_or(entry.path());
        files.push(SetFile {
            path: clean_root.join(below),
            plain,
        });
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

/// Splits `glob` into the directory to walk (its leading components without a glob
/// character, resolved against `base` unless absolute) and the pattern below it. The last
/// component always stays in the pattern.
fn split_glob(base: &Path, glob: &str) -> (PathBuf, String) {
    let is_pattern = |part: &str| part.contains(['*', '?', '[', '{']);
    let mut root = if glob.starts_with('/') {
        PathBuf::from("/")
    } else {
        base.to_path_buf()
    };
    let parts: Vec<&str> = glob.split('/').filter(|p| !p.is_empty()).collect();
    let literal = parts
        .iter()
        .take(parts.len().saturating_sub(1))
        .take_while(|part| !is_pattern(part))
        .count();
    for part in &parts[..literal] {
        if *part != "." {
            root.push(part);
        }
    }
    (root, parts[literal..].join("/"))
}
