//! What `cargo metadata --format-version 1 --no-deps` says, as far as mcpeval reads it: the
//! workspace's packages with their binary targets, its root and its target directories
//! (`Harness::cargo_bin` and `mcpeval init` both ask cargo).

use std::path::PathBuf;
use std::process::Command;

use serde::Deserialize;

/// A workspace as `cargo metadata --no-deps` describes it.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Metadata {
    pub packages: Vec<CargoPackage>,
    pub workspace_root: PathBuf,
    pub target_directory: PathBuf,
    /// Where intermediate artifacts (and test binaries) go when `build.build-dir` moves them
    /// out of the target directory (cargo 1.91 and newer say it).
    #[serde(default)]
    pub build_directory: Option<PathBuf>,
}

/// One package of the workspace.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct CargoPackage {
    pub name: String,
    /// Its `Cargo.toml` (`mcpeval init` finds the crate it edits by it).
    #[cfg_attr(not(feature = "cli"), allow(dead_code))]
    pub manifest_path: PathBuf,
    pub targets: Vec<Target>,
}

/// One target of a package (a library, a binary, a test…).
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Target {
    pub name: String,
    pub kind: Vec<String>,
    #[serde(default, rename = "required-features")]
    pub required_features: Vec<String>,
}

impl Metadata {
    /// `cargo metadata`'s JSON.
    pub fn parse(json: &[u8]) -> Result<Metadata, serde_json::Error> {
        serde_json::from_slice(json)
    }

    /// Every binary target of the workspace, with its package.
    pub fn bins(&self) -> impl Iterator<Item = (&CargoPackage, &Target)> {
        self.packages
            .iter()
            .flat_map(|package| package.bins().map(move |target| (package, target)))
    }
}

impl CargoPackage {
    /// Its binary targets.
    pub fn bins(&self) -> impl Iterator<Item = &Target> {
        self.targets
            .iter()
            .filter(|target| target.kind.iter().any(|kind| kind == "bin"))
    }
}

/// `command` (a `cargo` run from inside a test) without the variables Cargo set for the test
/// (`CARGO_MANIFEST_DIR`, `OUT_DIR`, `CARGO_PKG_*`, `CARGO_BIN_EXE_*`, …). A nested Cargo passes them on
/// to build scripts' `rerun-if-env-changed` checks: ring watches `CARGO_MANIFEST_DIR`, so a
/// nested build that sees the test's value and an outer one that sees none rebuild ring and
/// everything above it (rustls, reqwest, rmcp, mcpeval) in turn.
pub fn without_test_variables(command: &mut Command) -> &mut Command {
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        let set_for_the_test = name == "CARGO_MANIFEST_DIR"
            || name == "OUT_DIR"
            || name == "CARGO_MANIFEST_PATH"
            || name == "CARGO_MANIFEST_LINKS"
            || name == "CARGO_CRATE_NAME"
            || name == "CARGO_PRIMARY_PACKAGE"
            || name == "CARGO_TARGET_TMPDIR"
            || name == "CARGO_RUSTC_CURRENT_DIR"
            || name.starts_with("CARGO_PKG_")
            || name.starts_with("CARGO_BIN_EXE_");
        if set_for_the_test {
            command.env_remove(&*name);
        }
    }
    command
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_variables_cargo_sets_for_a_test_are_removed_and_others_kept() {
        // `cargo test` runs this test with CARGO_MANIFEST_DIR, OUT_DIR and CARGO_PKG_NAME set.
        assert!(std::env::var_os("CARGO_MANIFEST_DIR").is_some());
        let mut command = Command::new("cargo");
        without_test_variables(&mut command);
        let removed: Vec<String> = command
            .get_envs()
            .filter(|(_, value)| value.is_none())
            .map(|(name, _)| name.to_string_lossy().into_owned())
            .collect();
        for name in ["CARGO_MANIFEST_DIR", "OUT_DIR", "CARGO_PKG_NAME"] {
            let set = std::env::var_os(name).is_some();
            assert_eq!(
                removed.contains(&name.to_owned()),
                set,
                "{name}: {removed:?}"
            );
        }
        assert!(
            !removed
                .iter()
                .any(|name| name == "PATH" || name == "CARGO_HOME")
        );
    }
}
