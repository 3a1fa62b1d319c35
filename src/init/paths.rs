//! Paths as `mcpeval init` writes them: normalized as written (no symlinks resolved) and
//! relative to the directory of the file that names them.

use std::path::{Component, Path, PathBuf};

/// `path` without `.` segments and with `..` applied, as written (no symlinks resolved).
pub(super) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// `target` relative to the directory `base` (both absolute and normalized); `target`
/// itself when they share no more than the root.
pub(super) fn relative_to(base: &Path, target: &Path) -> PathBuf {
    let base: Vec<Component> = base.components().collect();
    let target: Vec<Component> = target.components().collect();
    let common = base.iter().zip(&target).take_while(|(a, b)| a == b).count();
    if common <= 1 {
        // Only the root in common: the absolute path says more than `../../../..`.
        return target.iter().collect();
    }
    let mut out = PathBuf::new();
    for _ in common..base.len() {
        out.push("..");
    }
    for component in &target[common..] {
        out.push(component);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_between_directories() {
        let rel = |a: &str, b: &str| {
            relative_to(Path::new(a), Path::new(b))
                .display()
                .to_string()
        };
        assert_eq!(rel("/w/evals/x", "/w/server.py"), "../../server.py");
        assert_eq!(rel("/w/evals/x", "/w/evals/x/agent.yaml"), "agent.yaml");
        assert_eq!(rel("/w/evals/x", "/w/other/a.yaml"), "../../other/a.yaml");
        assert_eq!(rel("/w/evals/x", "/other/a.yaml"), "/other/a.yaml");
        assert_eq!(normalize(Path::new("/w/./a/../b")), Path::new("/w/b"));
    }
}
