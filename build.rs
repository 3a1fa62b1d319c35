//! Bakes the git commit into the binary for `mcpeval --version`: from this repository's git
//! when built from a checkout, from `.cargo_vcs_info.json` when built from the published
//! crate (never from a git repository that merely contains the crate's folder, such as a
//! home directory kept in git around `~/.cargo`).

use std::path::{Path, PathBuf};
use std::process::Command;

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .current_dir(dir)
        .args(args)
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_owned())
}

/// The commit `cargo package` recorded: `{"git": {"sha1": "…"}, …}`.
fn packaged_commit(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join(".cargo_vcs_info.json")).ok()?;
    let start = text.find("\"sha1\"")?;
    let rest = &text[start + "\"sha1\"".len()..];
    let value = rest.split('"').nth(1)?;
    let hex = value.len() >= 12 && value.bytes().all(|b| b.is_ascii_hexdigit());
    hex.then(|| value[..12].to_owned())
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let canonical = |path: &Path| std::fs::canonicalize(path).ok();
    let own_checkout = git(&dir, &["rev-parse", "--show-toplevel"])
        .is_some_and(|top| canonical(Path::new(&top)) == canonical(&dir));
    let commit = if own_checkout {
        // Rebuild when HEAD moves: a checkout changes HEAD, a commit changes the index.
        // (`--git-path` also finds them in a worktree, where `.git` is a file.)
        for name in ["HEAD", "index"] {
            if let Some(path) = git(&dir, &["rev-parse", "--git-path", name]) {
                println!("cargo:rerun-if-changed={}", dir.join(path).display());
            }
        }
        git(&dir, &["rev-parse", "--short=12", "HEAD"])
    } else {
        if dir.join(".cargo_vcs_info.json").exists() {
            println!("cargo:rerun-if-changed=.cargo_vcs_info.json");
        }
        packaged_commit(&dir)
    };
    let commit = commit.unwrap_or_else(|| "unknown commit".to_owned());
    println!("cargo:rustc-env=MCPEVAL_GIT_COMMIT={commit}");
}
