//! Bakes the git commit into the binary for `mcpeval --version`.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_owned())
}

fn main() {
    let commit =
        git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown commit".to_owned());
    println!("cargo:rustc-env=MCPEVAL_GIT_COMMIT={commit}");
    // Rebuild when HEAD moves: a checkout changes HEAD, a commit changes the index.
    // (`--git-path` also finds them in a worktree, where `.git` is a file.)
    for name in ["HEAD", "index"] {
        if let Some(path) = git(&["rev-parse", "--git-path", name]) {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
