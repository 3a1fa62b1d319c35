//! Bakes into the binary where it was built from, for `mcpeval --version` and for the
//! dependency `mcpeval init` writes (src/init/dependency.rs):
//!
//! - `MCPEVAL_GIT_COMMIT`: the commit (12 hex digits), from this repository's git when built
//!   from a checkout, from `.cargo_vcs_info.json` when built from the published crate (never
//!   from a git repository that merely contains the crate's folder, such as a home directory
//!   kept in git around `~/.cargo`);
//! - `MCPEVAL_SOURCE`: `crate` (the published crate: `.cargo_vcs_info.json`, no checkout of
//!   its own), `git` (a checkout of its own) or `path` (neither);
//! - for a checkout: `MCPEVAL_GIT_REV` (the whole commit), `MCPEVAL_GIT_REMOTE` (the URL of
//!   the remote of the branch, else `origin`, else the first remote; empty without one),
//!   `MCPEVAL_GIT_TAG` (a `v*` tag on that commit, `v<version>` first; empty without one)
//!   and `MCPEVAL_GIT_ON_REMOTE` (`yes` when a remote-tracking branch or that tag holds the
//!   commit, as far as this checkout knows).

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

/// The remote the checkout's branch tracks, else `origin`, else the first one.
fn remote_url(dir: &Path) -> Option<String> {
    let tracked = git(
        dir,
        &["rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{u}"],
    )
    .and_then(|upstream| upstream.split('/').next().map(str::to_owned));
    let remotes = git(dir, &["remote"]).unwrap_or_default();
    let remotes: Vec<&str> = remotes.lines().collect();
    let name = tracked
        .filter(|name| remotes.contains(&name.as_str()))
        .or_else(|| remotes.contains(&"origin").then(|| "origin".to_owned()))
        .or_else(|| remotes.first().map(|name| (*name).to_owned()))?;
    git(dir, &["remote", "get-url", &name])
}

/// A `v*` tag on HEAD: `v<version>` when it is one of them.
fn head_tag(dir: &Path) -> Option<String> {
    let tags = git(dir, &["tag", "--points-at", "HEAD", "--list", "v*"])?;
    let own = format!(
        "v{}",
        std::env::var("CARGO_PKG_VERSION").unwrap_or_default()
    );
    let tags: Vec<&str> = tags.lines().collect();
    tags.iter()
        .find(|tag| **tag == own)
        .or_else(|| tags.first())
        .map(|tag| (*tag).to_owned())
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let canonical = |path: &Path| std::fs::canonicalize(path).ok();
    let own_checkout = git(&dir, &["rev-parse", "--show-toplevel"])
        .is_some_and(|top| canonical(Path::new(&top)) == canonical(&dir));
    let vcs_info = dir.join(".cargo_vcs_info.json");
    let (commit, source) = if own_checkout {
        // Rebuild when what is read changes: HEAD (a checkout), the index (a commit), the
        // config (remotes), and the refs (tags, remote-tracking branches). `--git-path`
        // also finds them in a worktree, where `.git` is a file. Only what exists: Cargo
        // counts a missing path as changed, and every build would compile the crate again
        // (a checkout that never packed its refs has no `packed-refs`).
        for name in [
            "HEAD",
            "index",
            "config",
            "packed-refs",
            "refs/tags",
            "refs/remotes",
        ] {
            if let Some(path) = git(&dir, &["rev-parse", "--git-path", name]) {
                let path = dir.join(path);
                if path.exists() {
                    println!("cargo:rerun-if-changed={}", path.display());
                }
            }
        }
        let rev = git(&dir, &["rev-parse", "HEAD"]).unwrap_or_default();
        let tag = head_tag(&dir).unwrap_or_default();
        let on_remote =
            !tag.is_empty() || git(&dir, &["branch", "--remotes", "--contains", "HEAD"]).is_some();
        println!("cargo:rustc-env=MCPEVAL_GIT_REV={rev}");
        println!(
            "cargo:rustc-env=MCPEVAL_GIT_REMOTE={}",
            remote_url(&dir).unwrap_or_default()
        );
        println!("cargo:rustc-env=MCPEVAL_GIT_TAG={tag}");
        println!(
            "cargo:rustc-env=MCPEVAL_GIT_ON_REMOTE={}",
            if on_remote { "yes" } else { "no" }
        );
        (git(&dir, &["rev-parse", "--short=12", "HEAD"]), "git")
    } else {
        for name in ["MCPEVAL_GIT_REV", "MCPEVAL_GIT_REMOTE", "MCPEVAL_GIT_TAG"] {
            println!("cargo:rustc-env={name}=");
        }
        println!("cargo:rustc-env=MCPEVAL_GIT_ON_REMOTE=no");
        if vcs_info.exists() {
            println!("cargo:rerun-if-changed=.cargo_vcs_info.json");
            (packaged_commit(&dir), "crate")
        } else {
            (None, "path")
        }
    };
    let commit = commit.unwrap_or_else(|| "unknown commit".to_owned());
    println!("cargo:rustc-env=MCPEVAL_GIT_COMMIT={commit}");
    println!("cargo:rustc-env=MCPEVAL_SOURCE={source}");
}
