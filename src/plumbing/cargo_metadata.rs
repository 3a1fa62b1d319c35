//! What `cargo metadata --format-version 1 --no-deps` says, as far as mcpeval reads it: the
//! workspace's packages with their binary targets, its root and its target directories
//! (`Harness::cargo_bin` and `mcpeval init` both ask cargo).

use std::path::PathBuf;

use serde::Deserialize;

/// A workspace as `cargo metadata --no-deps` describes it.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Metadata {
    pub packages: Vec<Package>,
    pub workspace_root: PathBuf,
    pub target_directory: PathBuf,
    /// Where intermediate artifacts (and test binaries) go when `build.build-dir` moves them
    /// out of the target directory (cargo 1.91 and newer say it).
    #[serde(default)]
    pub build_directory: Option<PathBuf>,
}

/// One package of the workspace.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Package {
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
    pub fn bins(&self) -> impl Iterator<Item = (&Package, &Target)> {
        self.packages
            .iter()
            .flat_map(|package| package.bins().map(move |target| (package, target)))
    }
}

impl Package {
    /// Its binary targets.
    pub fn bins(&self) -> impl Iterator<Item = &Target> {
        self.targets
            .iter()
            .filter(|target| target.kind.iter().any(|kind| kind == "bin"))
    }
}
