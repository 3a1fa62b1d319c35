//! The dev-dependency `mcpeval init` writes, and the install line of the workflow it writes
//! (`--ci github`): from where this binary was built, baked in by build.rs. A binary built
//! from the published crate depends on its version, one built from a git checkout with a
//! remote on that remote's commit (its `v*` tag when it has one), any other on the path of
//! the source it was built from, which resolves on this machine only.

use std::path::Path;

use toml_edit::{InlineTable, Item, value};

use super::InitError;
use super::paths::{normalize, relative_to};

/// The package's name, the key `init` writes: its library is `mcpeval`, so
/// `mcpeval-harness = { version = "0.1", default-features = false }` gives
/// `use mcpeval::Harness`.
pub const PACKAGE: &str = "mcpeval-harness";

/// `--dependency`: which kind of dependency to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DependencyKind {
    /// `mcpeval-harness = { version = "<this binary's version>" }`, from crates.io.
    Version,
    /// `{ git = "<remote>", rev = "<commit>" }` (or `tag`) of the checkout this binary was
    /// built from.
    Git,
    /// `{ path = "…" }` of the source this binary was built from.
    Path,
}

/// Where this binary was built from, as build.rs saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildSource {
    /// The package's version.
    pub version: String,
    /// Built from the published crate (`.cargo_vcs_info.json`, no checkout of its own).
    pub published: bool,
    /// Built from a git checkout of its own: its remote, commit and tag.
    pub git: Option<GitSource>,
    /// The source's directory.
    pub path: String,
}

/// A git checkout's facts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitSource {
    /// The remote's URL; `None` without a remote.
    pub remote: Option<String>,
    /// HEAD's commit.
    pub rev: String,
    /// A `v*` tag on HEAD.
    pub tag: Option<String>,
    /// Whether a remote-tracking branch or the tag holds HEAD.
    pub on_remote: bool,
}

impl BuildSource {
    /// This binary's.
    pub fn current() -> Self {
        let some = |text: &str| (!text.is_empty()).then(|| text.to_owned());
        let git = (env!("MCPEVAL_SOURCE") == "git").then(|| GitSource {
            remote: some(env!("MCPEVAL_GIT_REMOTE")),
            rev: env!("MCPEVAL_GIT_REV").to_owned(),
            tag: some(env!("MCPEVAL_GIT_TAG")),
            on_remote: env!("MCPEVAL_GIT_ON_REMOTE") == "yes",
        });
        BuildSource {
            version: env!("CARGO_PKG_VERSION").to_owned(),
            published: env!("MCPEVAL_SOURCE") == "crate",
            git,
            path: env!("CARGO_MANIFEST_DIR").to_owned(),
        }
    }
}

/// Where the dependency's git source points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GitRef {
    /// `tag = "vX.Y.Z"`.
    Tag(String),
    /// `rev = "<commit>"`.
    Rev(String),
}

/// The dependency to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dependency {
    /// `mcpeval-harness = { version = "<version>" }`.
    Version(String),
    /// `mcpeval-harness = { git = "<url>", rev|tag = "…" }`.
    Git {
        /// The remote's URL.
        url: String,
        /// The commit or tag.
        at: GitRef,
    },
    /// `mcpeval-harness = { path = "<source>" }`, the path as absolute as it came.
    Path(String),
}

impl Dependency {
    /// The dependency of `kind` (default: what fits `source`), with a warning when it
    /// resolves on this machine only or may not resolve elsewhere.
    pub fn choose(
        kind: Option<DependencyKind>,
        source: &BuildSource,
    ) -> Result<(Dependency, Option<String>), InitError> {
        let remote = source
            .git
            .as_ref()
            .and_then(|git| git.remote.clone().map(|url| (url, git)));
        let kind = kind.unwrap_or(if source.published {
            DependencyKind::Version
        } else if remote.is_some() {
            DependencyKind::Git
        } else {
            DependencyKind::Path
        });
        match kind {
            DependencyKind::Version => Ok((Dependency::Version(source.version.clone()), None)),
            DependencyKind::Git => {
                let Some((url, git)) = remote else {
                    let why = if source.git.is_some() {
                        format!(
                            "the git checkout it was built from ({}) has no remote",
                            source.path
                        )
                    } else {
                        format!("it was not built from a git checkout ({})", source.path)
                    };
                    return Err(InitError::Usage(format!(
                        "--dependency git: this mcpeval knows no git URL to depend on: {why}; \
                         pass --dependency version (crates.io) or --dependency path"
                    )));
                };
                let at = match &git.tag {
                    Some(tag) => GitRef::Tag(tag.clone()),
                    None => GitRef::Rev(git.rev.clone()),
                };
                let warning = (!git.on_remote).then(|| {
                    format!(
                        "the dependency names commit {} of {url}, which no remote-tracking branch \
                         of the checkout mcpeval was built from holds: push it, or the \
                         dependency does not resolve",
                        git.rev
                    )
                });
                Ok((Dependency::Git { url, at }, warning))
            }
            DependencyKind::Path => {
                let warning = format!(
                    "the dependency is the path of the mcpeval source this binary was built \
                     from ({}): it resolves on this machine only (or where a checkout sits at \
                     the same place relative to the crate); pass --dependency version or git \
                     for one that CI and colleagues can fetch",
                    source.path
                );
                Ok((Dependency::Path(source.path.clone()), Some(warning)))
            }
        }
    }

    /// The value of `mcpeval-harness = …` in the manifest of the crate in `crate_dir`: a
    /// path relative to the crate when they share a directory below the root. Always with
    /// `default-features = false`: the harness needs none of the binary's command line.
    pub fn item(&self, crate_dir: &Path) -> Item {
        let mut table = InlineTable::new();
        match self {
            Dependency::Version(version) => {
                table.insert("version", version.as_str().into());
            }
            Dependency::Git { url, at } => {
                table.insert("git", url.as_str().into());
                let (key, at) = match at {
                    GitRef::Tag(tag) => ("tag", tag),
                    GitRef::Rev(rev) => ("rev", rev),
                };
                table.insert(key, at.as_str().into());
            }
            Dependency::Path(path) => {
                let shown = relative_to(&normalize(crate_dir), &normalize(Path::new(path)));
                let shown = match shown.as_os_str().is_empty() {
                    true => ".".to_owned(),
                    false => shown.display().to_string(),
                };
                table.insert("path", shown.into());
            }
        }
        table.insert("default-features", false.into());
        value(table)
    }

    /// `mcpeval-harness = …`, as `--print-cargo` prints it.
    pub fn line(&self, crate_dir: &Path) -> String {
        let item = self.item(crate_dir);
        let shown = item.as_value().map(|v| v.to_string()).unwrap_or_default();
        format!("{PACKAGE} = {}", shown.trim())
    }

    /// The shell line that installs the `mcpeval` binary of this dependency in CI, for a
    /// repository whose root is `root` (absolute); with a warning for a path, which
    /// GitHub's runners do not have.
    pub fn install_script(&self, root: &Path) -> (String, Option<String>) {
        match self {
            Dependency::Version(version) => (
                format!(
                    "cargo binstall --no-confirm {PACKAGE}@{version} || cargo install --locked \
                     {PACKAGE} --version {version}"
                ),
                None,
            ),
            Dependency::Git { url, at } => {
                let (flag, at) = match at {
                    GitRef::Tag(tag) => ("--tag", tag),
                    GitRef::Rev(rev) => ("--rev", rev),
                };
                let line = format!(
                    "cargo install --locked --git {} {flag} {at} {PACKAGE}",
                    shell_word(url)
                );
                (line, None)
            }
            Dependency::Path(path) => {
                let shown = relative_to(&normalize(root), &normalize(Path::new(path)));
                let line = format!(
                    "cargo install --locked --path {}",
                    shell_word(&shown.display().to_string())
                );
                let warning = format!(
                    "the workflow installs mcpeval from {}, the source this binary was built \
                     from, which GitHub's runners do not have: pass --dependency version or git \
                     for a workflow that runs there",
                    shown.display()
                );
                (line, Some(warning))
            }
        }
    }
}

/// `word` quoted for a POSIX shell when it needs it.
fn shell_word(word: &str) -> String {
    shlex::try_quote(word).map_or_else(|_| word.to_owned(), |quoted| quoted.into_owned())
}

#[cfg(test)]
#[path = "dependency_tests.rs"]
mod tests;
