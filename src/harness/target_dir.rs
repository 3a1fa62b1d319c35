//! Where cargo built the running test binary: `<target>/<profile>/deps/<exe>`, or
//! `<target>/<triple>/<profile>/deps/<exe>` with `--target`. Cargo marks the root of a
//! target directory, which tells the two apart (and tells a test binary from a binary
//! installed or copied elsewhere): `CACHEDIR.TAG`, written when cargo creates the directory,
//! and `.rustc_info.json`, its cache of rustc's answers, written also into a directory that
//! existed before (where no `CACHEDIR.TAG` appears).

use std::path::{Path, PathBuf};

/// The build a test binary comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TestBuild {
    /// The target directory (with `CACHEDIR.TAG`).
    pub target_dir: PathBuf,
    /// The `--target` triple of the build, when it had one.
    pub triple: Option<String>,
    /// The profile's directory: `debug`, `release` or a custom profile's name.
    pub profile_dir: String,
}

impl TestBuild {
    /// The build of this process's executable, when it is a test binary in a target dir.
    pub fn of_this_process() -> Option<Self> {
        Self::of(&std::env::current_exe().ok()?)
    }

    /// The build of the test binary `exe`, when it lies in `deps/` of a target directory.
    pub fn of(exe: &Path) -> Option<Self> {
        let deps = exe.parent()?;
        if deps.file_name()? != "deps" {
            return None;
        }
        let profile = deps.parent()?;
        let profile_dir = profile.file_name()?.to_str()?.to_owned();
        let above = profile.parent()?;
        if is_target_dir(above) {
            return Some(TestBuild {
                target_dir: above.to_path_buf(),
                triple: None,
                profile_dir,
            });
        }
        let root = above.parent()?;
        let triple = above.file_name()?.to_str()?.to_owned();
        is_target_dir(root).then(|| TestBuild {
            target_dir: root.to_path_buf(),
            triple: Some(triple),
            profile_dir,
        })
    }

    /// The cargo arguments that select this build's profile: `debug` is the dev profile
    /// (`cargo test` builds there too), `release` the release profile, any other directory
    /// a custom profile of that name.
    pub fn profile_args(&self) -> Vec<String> {
        match self.profile_dir.as_str() {
            "debug" => Vec::new(),
            "release" => vec!["--release".to_owned()],
            other => vec!["--profile".to_owned(), other.to_owned()],
        }
    }
}

/// Whether `a` and `b` name the same file or directory (as written, when either does not
/// exist).
pub(super) fn same_path(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

fn is_target_dir(dir: &Path) -> bool {
    dir.join("CACHEDIR.TAG").is_file() || dir.join(".rustc_info.json").is_file()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("CACHEDIR.TAG"),
            "Signature: 8a477f597d28d172789f06886806bc55",
        )
        .unwrap();
        dir
    }

    #[test]
    fn a_test_binary_in_deps_names_its_target_dir_and_profile() {
        let dir = target();
        let exe = dir.path().join("debug/deps/evals-0123abcd");
        let build = TestBuild::of(&exe).unwrap();
        assert_eq!(build.target_dir, dir.path());
        assert_eq!(
            (build.triple.as_deref(), build.profile_dir.as_str()),
            (None, "debug")
        );
        assert!(build.profile_args().is_empty());
    }

    #[test]
    fn a_target_triple_sits_between_the_target_dir_and_the_profile() {
        let dir = target();
        let exe = dir
            .path()
            .join("x86_64-unknown-linux-gnu/ci/deps/evals-0123abcd");
        let build = TestBuild::of(&exe).unwrap();
        assert_eq!(build.target_dir, dir.path());
        assert_eq!(build.triple.as_deref(), Some("x86_64-unknown-linux-gnu"));
        assert_eq!(build.profile_args(), ["--profile", "ci"]);
    }

    #[test]
    fn release_is_the_release_profile() {
        let dir = target();
        let build = TestBuild::of(&dir.path().join("release/deps/evals-1")).unwrap();
        assert_eq!(build.profile_args(), ["--release"]);
    }

    #[test]
    fn a_target_dir_inside_another_is_no_triple() {
        // `cargo test --target-dir target/inner`, target/inner made before cargo ran: no
        // CACHEDIR.TAG there, only cargo's rustc cache.
        let outer = target();
        let inner = outer.path().join("inner");
        std::fs::create_dir_all(inner.join("debug/deps")).unwrap();
        std::fs::write(inner.join(".rustc_info.json"), "{}").unwrap();
        let build = TestBuild::of(&inner.join("debug/deps/evals-1")).unwrap();
        assert_eq!(build.target_dir, inner);
        assert_eq!(build.triple, None);
    }

    #[test]
    fn a_binary_outside_a_target_dir_has_no_build() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(TestBuild::of(&dir.path().join("debug/deps/evals-1")), None);
        let dir = target();
        // `cargo run` and `cargo install` binaries are not in deps/.
        assert_eq!(TestBuild::of(&dir.path().join("debug/mcpeval")), None);
        assert_eq!(TestBuild::of(Path::new("/")), None);
        assert_eq!(TestBuild::of(Path::new("evals")), None);
    }
}
