//! `Harness::cargo_bin(VAR, BIN)`: the server under test is binary `BIN` of another package
//! of the test's Cargo workspace. `cargo metadata` (run with `$CARGO` from
//! `CARGO_MANIFEST_DIR`) names the package and the target directory; the path goes into the
//! run's variables as `VAR` before the eval files load (`${VAR}` in MCP configs), and before
//! any task runs `cargo build --bin BIN` makes it with the test binary's profile, once per
//! process. Cargo decides what is stale; a build with nothing to do takes a fraction of a
//! second. `--list` (IDE runners and nextest list often) and a filter that selects no task
//! build nothing.
//!
//! cargo runs in the test binary's own process group, in the foreground: Ctrl-C reaches it
//! as it reaches `cargo test`, and nextest's timeout ends it with the test process.

use std::collections::{BTreeMap, VecDeque};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::Mutex;

use super::target_dir::{TestBuild, same_path};
use crate::plumbing::cargo_metadata::{CargoPackage, Metadata, Target, without_test_variables};
use libtest_mimic::{Arguments, Trial};

/// A binary asked for with `Harness::cargo_bin`.
#[derive(Debug, Clone)]
pub(super) struct CargoBin {
    /// The run variable that gets its path.
    pub var: String,
    /// The binary target's name.
    pub bin: String,
}

/// A binary of the workspace: where it lands and the cargo command that builds it.
#[derive(Debug, Clone)]
pub(super) struct LocatedBin {
    /// The run variable that gets its path.
    pub var: String,
    /// Where cargo puts it.
    pub path: PathBuf,
    build: BuildCommand,
}

/// `cargo build --bin …` for one binary, run from the workspace root.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct BuildCommand {
    cargo: PathBuf,
    workspace_root: PathBuf,
    bin: String,
    args: Vec<String>,
}

/// Why a workspace binary cannot be found or built.
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum CargoBinError {
    /// cargo did not start.
    #[error("`{command}` did not run: {reason}")]
    CannotRun {
        /// The command line.
        command: String,
        /// Why.
        reason: String,
    },
    /// `cargo metadata` failed.
    #[error("`{command}` in {} failed ({status}): {message}", dir.display())]
    Metadata {
        /// The command line.
        command: String,
        /// Where it ran.
        dir: PathBuf,
        /// How it ended.
        status: String,
        /// Its error lines.
        message: String,
    },
    /// `cargo metadata` printed something else than its JSON.
    #[error("`{command}` printed no workspace mcpeval understands: {reason}")]
    MetadataJson {
        /// The command line.
        command: String,
        /// Why.
        reason: String,
    },
    /// No package of the workspace has a binary target of that name.
    #[error("no binary `{bin}` in the Cargo workspace at {}{did_you_mean}; {known}", root.display())]
    NoSuchBin {
        /// The binary asked for.
        bin: String,
        /// The workspace root.
        root: PathBuf,
        /// `; did you mean X?` or nothing.
        did_you_mean: String,
        /// The workspace's binaries.
        known: String,
    },
    /// `cargo build` failed (its output is above the message).
    #[error("building `{bin}` failed: `{command}` ended with {status}{errors}")]
    Build {
        /// The binary.
        bin: String,
        /// The command line.
        command: String,
        /// How it ended.
        status: String,
        /// cargo's error lines, indented, after a colon; or nothing.
        errors: String,
    },
    /// `cargo build` succeeded but the binary is not where cargo puts it.
    #[error("`{command}` succeeded, but there is no {}", path.display())]
    NotBuilt {
        /// The command line.
        command: String,
        /// Where the binary should be.
        path: PathBuf,
    },
}

impl CargoBinError {
    /// Prints the error and says that no task ran; the exit code of a run that stops up
    /// front (as for an invalid eval file): a server that does not build is like a test
    /// that does not compile, not a failed task, so no task fails (or writes a results
    /// file) for it, and cargo's message is shown once, not once per task.
    pub(super) fn stop_run(&self) -> ExitCode {
        eprintln!("error: {self}");
        eprintln!("mcpeval: no task ran because a server binary of the workspace is not ready");
        ExitCode::from(crate::plumbing::exit::INVALID_CONFIG)
    }
}

/// Where each binary will be; runs `cargo metadata` once per process and workspace.
pub(super) fn locate(bins: &[CargoBin]) -> Result<Vec<LocatedBin>, CargoBinError> {
    if bins.is_empty() {
        return Ok(Vec::new());
    }
    let cargo = std::env::var_os("CARGO").map_or_else(|| PathBuf::from("cargo"), PathBuf::from);
    let dir =
        std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(|| PathBuf::from("."), PathBuf::from);
    let workspace = Metadata::of(&cargo, &dir)?;
    let build = TestBuild::of_this_process();
    bins.iter()
        .map(|bin| workspace.locate(bin, build.as_ref(), &cargo))
        .collect()
}

/// Builds the binaries, once per process, unless no trial will run (`--list`, or filters
/// that select none).
pub(super) fn build_for_run(
    located: &[LocatedBin],
    args: &Arguments,
    trials: &[Trial],
) -> Result<(), CargoBinError> {
    let any_runs = trials
        .iter()
        .any(|trial| !args.is_filtered_out(trial) && !args.is_ignored(trial));
    if args.list || !any_runs {
        return Ok(());
    }
    located.iter().try_for_each(build_once)
}

/// The builds made by this process, by command: each runs once.
static BUILDS: Mutex<BTreeMap<BuildCommand, Result<(), CargoBinError>>> =
    Mutex::new(BTreeMap::new());

fn build_once(bin: &LocatedBin) -> Result<(), CargoBinError> {
    // Held while cargo builds: a second harness of the process waits for the first build.
    let mut builds = crate::plumbing::lock::lock(&BUILDS);
    if let Some(done) = builds.get(&bin.build) {
        return done.clone();
    }
    let result = bin.build.run().and_then(|()| {
        if bin.path.is_file() {
            Ok(())
        } else {
            Err(CargoBinError::NotBuilt {
                command: bin.build.to_string(),
                path: bin.path.clone(),
            })
        }
    });
    builds.insert(bin.build.clone(), result.clone());
    result
}

/// The workspaces read by this process, by cargo and directory.
type Workspaces = BTreeMap<(PathBuf, PathBuf), Result<Metadata, CargoBinError>>;
static WORKSPACES: Mutex<Workspaces> = Mutex::new(BTreeMap::new());

/// The harness's reading of a workspace: where a binary of it lands, and how to build it.
impl Metadata {
    /// The workspace of `dir`, read once per process.
    fn of(cargo: &Path, dir: &Path) -> Result<Metadata, CargoBinError> {
        let mut workspaces = crate::plumbing::lock::lock(&WORKSPACES);
        let key = (cargo.to_path_buf(), dir.to_path_buf());
        workspaces
            .entry(key)
            .or_insert_with(|| Self::read(cargo, dir))
            .clone()
    }

    fn read(cargo: &Path, dir: &Path) -> Result<Metadata, CargoBinError> {
        let args = ["metadata", "--format-version", "1", "--no-deps"];
        let command = format!("cargo {}", args.join(" "));
        let output = Command::new(cargo)
            .args(args)
            .current_dir(dir)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| CargoBinError::CannotRun {
                command: command.clone(),
                reason: format!("{} (in {}): {e}", cargo.display(), dir.display()),
            })?;
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            return Err(CargoBinError::Metadata {
                command,
                dir: dir.to_path_buf(),
                status: output.status.to_string(),
                message: error_lines(stderr.lines().map(str::to_owned), " ")
                    .trim()
                    .to_owned(),
            });
        }
        Self::parse(&output.stdout).map_err(|e| CargoBinError::MetadataJson {
            command,
            reason: e.to_string(),
        })
    }

    /// The package with binary target `bin`, and the features that target requires.
    fn find_bin(&self, bin: &str) -> Result<(&CargoPackage, &Target), CargoBinError> {
        let bins = || self.bins();
        if let Some(found) = bins().find(|(_, target)| target.name == bin) {
            return Ok(found);
        }
        let mut known: Vec<String> = bins()
            .map(|(package, target)| format!("`{}` (package {})", target.name, package.name))
            .collect();
        known.sort();
        let names: Vec<&str> = bins().map(|(_, target)| target.name.as_str()).collect();
        Err(CargoBinError::NoSuchBin {
            bin: bin.to_owned(),
            root: self.workspace_root.clone(),
            did_you_mean: closest(bin, &names)
                .map(|name| format!("; did you mean `{name}`?"))
                .unwrap_or_default(),
            known: if known.is_empty() {
                "its packages have no binary targets".to_owned()
            } else {
                format!("its binaries: {}", known.join(", "))
            },
        })
    }

    /// Where binary `wanted.bin` lands when built for the test binary's build (or, for a
    /// test binary outside a target directory, cargo's default dev build).
    fn locate(
        &self,
        wanted: &CargoBin,
        build: Option<&TestBuild>,
        cargo: &Path,
    ) -> Result<LocatedBin, CargoBinError> {
        let (package, target) = self.find_bin(&wanted.bin)?;
        let mut args = vec![
            "build".to_owned(),
            "--bin".to_owned(),
            target.name.clone(),
            "--package".to_owned(),
            package.name.clone(),
        ];
        let target_dir = build.map_or_else(
            || self.target_directory.clone(),
            |build| self.artifact_dir(&build.target_dir),
        );
        let mut dir = target_dir.clone();
        if let Some(build) = build {
            args.extend(build.profile_args());
            if let Some(triple) = &build.triple {
                args.extend(["--target".to_owned(), triple.clone()]);
                dir.push(triple);
            }
            dir.push(&build.profile_dir);
        } else {
            dir.push("debug");
        }
        // Given always, so the binary lands where the path says even when the test was built
        // with `cargo test --target-dir DIR`, which the test binary's environment does not show.
        args.extend(["--target-dir".to_owned(), target_dir.display().to_string()]);
        if !target.required_features.is_empty() {
            args.extend(["--features".to_owned(), target.required_features.join(",")]);
        }
        Ok(LocatedBin {
            var: wanted.var.clone(),
            path: dir.join(format!("{}{}", target.name, std::env::consts::EXE_SUFFIX)),
            build: BuildCommand {
                cargo: cargo.to_path_buf(),
                workspace_root: self.workspace_root.clone(),
                bin: target.name.clone(),
                args,
            },
        })
    }

    /// Where binaries go, given the directory the test binary was built in: that one,
    /// unless `build.build-dir` put it apart from the target directory.
    fn artifact_dir(&self, built_in: &Path) -> PathBuf {
        match &self.build_directory {
            Some(build_dir)
                if same_path(build_dir, built_in)
                    && !same_path(build_dir, &self.target_directory) =>
            {
                self.target_directory.clone()
            }
            _ => built_in.to_path_buf(),
        }
    }
}

/// The name of `names` that `bin` is a typo of: at most one edit in five characters.
/// (`acme-server` is no typo of `acme-http-server`, which the looser match of misspelled
/// keys would suggest.)
fn closest<'a>(bin: &str, names: &[&'a str]) -> Option<&'a str> {
    names
        .iter()
        .map(|name| (strsim::normalized_levenshtein(bin, name), *name))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, name)| name)
}

impl BuildCommand {
    /// Runs cargo, its output passed on to stderr line by line as it comes.
    fn run(&self) -> Result<(), CargoBinError> {
        let mut child = without_test_variables(&mut Command::new(&self.cargo))
            .args(&self.args)
            .current_dir(&self.workspace_root)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| CargoBinError::CannotRun {
                command: self.to_string(),
                reason: format!("{}: {e}", self.cargo.display()),
            })?;
        let mut lines = Vec::new();
        if let Some(stderr) = child.stderr.take() {
            // Ends at cargo's exit, or at a read error, which drops (closes) the pipe.
            for line in BufReader::new(stderr).split(b'\n') {
                let Ok(line) = line else { break };
                let line = String::from_utf8_lossy(&line).trim_end().to_owned();
                eprintln!("{line}");
                lines.push(line);
            }
        }
        let status = child.wait().map_err(|e| CargoBinError::CannotRun {
            command: self.to_string(),
            reason: e.to_string(),
        })?;
        if status.success() {
            return Ok(());
        }
        let errors = error_lines(lines, "\n  ");
        Err(CargoBinError::Build {
            bin: self.bin.clone(),
            command: self.to_string(),
            status: status.to_string(),
            errors: if errors.is_empty() {
                errors
            } else {
                format!(":{errors}")
            },
        })
    }
}

impl std::fmt::Display for BuildCommand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cargo {}", self.args.join(" "))
    }
}

/// cargo's `error…` lines (rustc's `error[E…]` too), each after `separator`; else its last
/// five lines; at most twenty lines.
fn error_lines(lines: impl IntoIterator<Item = String>, separator: &str) -> String {
    let mut errors = Vec::new();
    let mut last = VecDeque::new();
    for line in lines {
        if line.starts_with("error") {
            errors.push(line.clone());
        }
        last.push_back(line);
        if last.len() > 5 {
            last.pop_front();
        }
    }
    let shown: Vec<String> = if errors.is_empty() {
        last.into()
    } else {
        errors
    };
    shown
        .iter()
        .take(20)
        .map(|line| format!("{separator}{line}"))
        .collect()
}

#[cfg(test)]
#[path = "cargo_bin_tests.rs"]
mod tests;
