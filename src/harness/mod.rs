//! The test harness: every planned task case is one libtest trial named `<eval>::<task>`.

mod actions;
mod cargo_bin;
mod case;
mod end_of_run;
mod page;
mod self_agent;
mod stale;
mod target_dir;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use cargo_bin::LocatedBin;
use libtest_mimic::{Arguments, Trial};

use crate::config::{
    ConfigError, ConfigErrors, Eval, duplicate_eval_names, load_eval_with, says_kind_eval,
};
use crate::plan::{EvalPlan, plan_eval, plan_task};
use crate::run::RunOptions;
use crate::snapshot::SnapshotSettings;

/// Runs evals as tests: each task of each eval is one test named `<eval>::<task>`, run as
/// `cargo test` runs tests (filters, `--exact`, `--list`, `--test-threads`, `--format json`,
/// nextest), with the exit code `cargo test` expects.
///
/// Build it with [`discover`](Self::discover) or [`eval_files`](Self::eval_files), add what
/// the runs need, then [`run`](Self::run) it from the `main` of a `harness = false` test
/// target:
///
/// ```no_run
/// // tests/evals.rs
/// fn main() -> std::process::ExitCode {
///     mcpeval::Harness::discover("evals")
///         .env("ACME_TOKEN", "test-token")
///         .run()
/// }
/// ```
#[derive(Debug, Clone)]
pub struct Harness {
    source: Source,
    args: Option<Arguments>,
    vars: Vec<(String, String)>,
    cargo_bins: Vec<cargo_bin::CargoBin>,
    output_dir: Option<PathBuf>,
}

#[derive(Debug, Clone)]
enum Source {
    Directory(PathBuf),
    Files(Vec<PathBuf>),
}

impl Harness {
    /// Every eval file (`kind: Eval`, `.yaml`/`.yml`/`.json`) under `dir`, at any depth. A
    /// relative `dir` is relative to the package's directory when run by `cargo test`.
    ///
    /// ```no_run
    /// fn main() -> std::process::ExitCode {
    ///     mcpeval::Harness::discover("evals").run()
    /// }
    /// ```
    pub fn discover(dir: impl AsRef<Path>) -> Self {
        Harness {
            source: Source::Directory(dir.as_ref().to_path_buf()),
            args: None,
            vars: Vec::new(),
            cargo_bins: Vec::new(),
            output_dir: None,
        }
    }

    /// Exactly these eval files (what `mcpeval check` runs).
    ///
    /// ```no_run
    /// fn main() -> std::process::ExitCode {
    ///     mcpeval::Harness::eval_files(["evals/acme/eval.yaml".into()]).run()
    /// }
    /// ```
    pub fn eval_files(files: impl IntoIterator<Item = PathBuf>) -> Self {
        Harness {
            source: Source::Files(files.into_iter().collect()),
            args: None,
            vars: Vec::new(),
            cargo_bins: Vec::new(),
            output_dir: None,
        }
    }

    /// A variable for `${VAR}` in MCP config files (before the process environment) and for
    /// the environment of every server, agent and script of a run. For example the path of
    /// the server binary under test:
    /// `.env("MY_SERVER", env!("CARGO_BIN_EXE_my-server"))`, used in the MCP config as
    /// `command: ${MY_SERVER}`. A later value of the same name wins.
    ///
    /// ```no_run
    /// fn main() -> std::process::ExitCode {
    ///     mcpeval::Harness::discover("evals")
    ///         .env("ACME_URL", "http://127.0.0.1:8080/mcp")
    ///         .env("ACME_TOKEN", "test-token")
    ///         .run()
    /// }
    /// ```
    pub fn env(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.vars.push((name.into(), value.into()));
        self
    }

    /// The path of binary `bin` of a package of this test's Cargo workspace (another one
    /// than the test's, typically) as variable `var`, like [`env`](Self::env):
    /// `.cargo_bin("ACME_BIN", "acme-server")` and `command: ${ACME_BIN}` in the MCP config.
    /// Before the first task runs, `cargo build --bin bin` builds it with the test binary's
    /// profile (`cargo test --release`: release) into the test's target directory, once per
    /// process; cargo decides whether it is stale. `--list`, and filters that select no task,
    /// build nothing. A binary the workspace does not have, or a failed build, stops the run
    /// before any task with exit code 2, as an invalid eval file does. A variable of the same
    /// name given with `env` wins.
    ///
    /// ```no_run
    /// // tests/evals.rs of the package `acme-evals`; `acme-server` is another package of the
    /// // workspace, and the MCP config says `command: ${ACME_BIN}`.
    /// fn main() -> std::process::ExitCode {
    ///     mcpeval::Harness::discover("evals")
    ///         .cargo_bin("ACME_BIN", "acme-server")
    ///         .run()
    /// }
    /// ```
    pub fn cargo_bin(mut self, var: impl Into<String>, bin: impl Into<String>) -> Self {
        self.cargo_bins.push(cargo_bin::CargoBin {
            var: var.into(),
            bin: bin.into(),
        });
        self
    }

    /// Where runs, results files and the task lock go (default: `MCPEVAL_OUTPUT_DIR`, else
    /// `CARGO_TARGET_DIR`, else the target directory this test binary was built in, each with
    /// `/mcpeval`; in a workspace, the workspace's target directory).
    ///
    /// ```no_run
    /// fn main() -> std::process::ExitCode {
    ///     mcpeval::Harness::discover("evals")
    ///         .output_dir("target/acme-evals")
    ///         .run()
    /// }
    /// ```
    pub fn output_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.output_dir = Some(dir.into());
        self
    }

    /// libtest arguments to use instead of the process's own (mcpeval's own tests and
    /// `mcpeval check`).
    #[doc(hidden)]
    pub fn with_args(mut self, args: Arguments) -> Self {
        self.args = Some(args);
        self
    }

    /// Runs the trials and returns the exit code: 0 only when every selected task passed.
    /// An eval file that does not load, or an `INSTA_UPDATE` or `INSTA_FORCE_PASS` insta
    /// would refuse, fails the whole run up front (exit code 2).
    ///
    /// SIGINT or SIGTERM during the run stops the running tasks as a timeout would, after
    /// which their cleanup runs; tasks not started fail as not run; the results of finished
    /// tasks are kept, and the exit code is 130 (SIGINT) or 143 (SIGTERM). A second signal stops at once, killing every process group of the run.
    ///
    /// Unless `MCPEVAL_BIN` is given, it is this test binary for the run's processes, which
    /// serves the script agent: `"$MCPEVAL_BIN" script-agent --mcp-config FILE PROMPT`.
    ///
    /// ```no_run
    /// fn main() -> std::process::ExitCode {
    ///     mcpeval::Harness::discover("evals").run()
    /// }
    /// ```
    pub fn run(self) -> ExitCode {
        crate::plumbing::tls::install_provider();
        if let Some(code) = self_agent::serve_if_asked() {
            return code;
        }
        let args = self.args.clone().unwrap_or_else(Arguments::from_args);
        let snapshots = match crate::run::report::snapshot_settings() {
            Ok(settings) => settings,
            Err(code) => return code,
        };
        let bins = match cargo_bin::locate(&self.cargo_bins) {
            Ok(bins) => bins,
            Err(e) => return e.stop_run(),
        };
        let options = self.options(&bins, snapshots);
        let (trials, eval_files) = match self.trials_with(&args, &options) {
            Ok(planned) => planned,
            Err(errors) => {
                for error in errors.iter() {
                    eprintln!("error: {error}");
                }
                eprintln!("mcpeval: no task ran because an eval file is invalid");
                return ExitCode::from(crate::plumbing::exit::INVALID_CONFIG);
            }
        };
        if let Err(code) = self.check_exact_name(&args, &trials) {
            return code;
        }
        if let Err(e) = cargo_bin::build_for_run(&bins, &args, &trials) {
            return e.stop_run();
        }
        if !args.list && exact_name(&args).is_none() {
            let planned = trials.iter().map(Trial::name).collect();
            let results_dir = options.output_dir.join("results");
            let removed = stale::remove_unplanned(&results_dir, &planned);
            if !removed.is_empty() {
                eprintln!(
                    "note: removed the results files of tests that are gone: {}",
                    removed.join(", ")
                );
            }
        }
        if !args.list
            && let Err(e) = crate::plumbing::interrupt::install()
        {
            eprintln!("note: {e}; SIGINT and SIGTERM will end the run without cleanup");
        }
        let conclusion = libtest_mimic::run(&args, trials);
        end_of_run::shut_down_extensions(&options);
        end_of_run::report_run(&options, &eval_files);
        if let Some(signal) = crate::plumbing::interrupt::interrupted() {
            // Every run's processes are gone by now; this only catches one that is not.
            crate::plumbing::process::kill_all_groups();
            eprintln!("mcpeval: stopped by {signal}; the results of finished tasks are kept");
            return ExitCode::from(signal.exit_code());
        }
        conclusion.exit_code()
    }

    /// With `--exact NAME` that names no task: a note, or an error (returned as the exit code)
    /// for the eval files of `mcpeval check` and the test binary nextest asks.
    fn check_exact_name(&self, args: &Arguments, trials: &[Trial]) -> Result<(), ExitCode> {
        let named = |name: &str| trials.iter().any(|trial| trial.name() == name);
        let Some(name) = exact_name(args).filter(|name| !named(name)) else {
            return Ok(());
        };
        // `cargo test -- NAME --exact` passes NAME to every test binary, so a binary of
        // other evals only notes it; the eval files of `mcpeval check` and the test
        // binary nextest asks (it lists first) must have the task.
        let must_have =
            matches!(self.source, Source::Files(_)) || std::env::var_os("NEXTEST").is_some();
        let what = if must_have { "error" } else { "note" };
        eprintln!(
            "{what}: no task is named `{name}` (--exact); `--list` shows the test names, `<eval>::<task>` (`<eval>::<task>@<variant>` in an eval with variants)"
        );
        if must_have {
            return Err(ExitCode::from(crate::plumbing::exit::INVALID_CONFIG));
        }
        Ok(())
    }

    /// The run's options; its variables: the binaries of `cargo_bin`, then those of `env`,
    /// then `MCPEVAL_BIN` (this test binary) when neither these nor the environment set it.
    fn options(&self, bins: &[LocatedBin], snapshots: SnapshotSettings) -> Arc<RunOptions> {
        let dir = self.output_dir.clone().unwrap_or_else(output_dir);
        let mut vars: Vec<(String, String)> = bins
            .iter()
            .map(|bin| (bin.var.clone(), bin.path.display().to_string()))
            .collect();
        vars.extend(self.vars.iter().cloned());
        let given =
            |name: &str| vars.iter().any(|(k, _)| k == name) || std::env::var_os(name).is_some();
        let own = self_agent::vars(given);
        vars.extend(own);
        Arc::new(RunOptions {
            live: std::env::var("MCPEVAL_LIVE").is_ok_and(|v| v == "1"),
            vars,
            output_dir: std::path::absolute(&dir).unwrap_or(dir),
            collected: Arc::default(),
            extensions: Default::default(),
            schemas: Default::default(),
            runner: crate::plumbing::rerun::Runner::of_this_process(match &self.source {
                Source::Files(files) => Some(files),
                Source::Directory(_) => None,
            }),
            snapshots,
        })
    }

    /// The trials these evals plan to, filtered as `args` ask (`--exact NAME` plans only that
    /// task). The binaries of [`cargo_bin`](Self::cargo_bin) are located, not built; an
    /// invalid `INSTA_UPDATE` or `INSTA_FORCE_PASS` is read as unset ([`run`](Self::run)
    /// refuses it).
    #[doc(hidden)]
    pub fn trials(&self, args: &Arguments) -> Result<Vec<Trial>, ConfigErrors> {
        let bins = cargo_bin::locate(&self.cargo_bins).unwrap_or_default();
        let snapshots = crate::run::report::snapshot_settings().unwrap_or_default();
        let planned = self.trials_with(args, &self.options(&bins, snapshots));
        planned.map(|(trials, _)| trials)
    }

    fn trials_with(
        &self,
        args: &Arguments,
        options: &Arc<RunOptions>,
    ) -> Result<(Vec<Trial>, BTreeMap<String, PathBuf>), ConfigErrors> {
        let files = match &self.source {
            Source::Files(files) => files.clone(),
            Source::Directory(dir) => discover_eval_files(dir)?,
        };
        let mut errors = Vec::new();
        let mut evals = Vec::new();
        let lookup = |name: &str| options.var(name);
        for file in files {
            match load_eval_with(&file, &lookup) {
                Ok(eval) => evals.push(eval),
                Err(e) => errors.extend(e.0),
            }
        }
        errors.extend(duplicate_eval_names(
            evals
                .iter()
                .map(|eval| (eval.name.as_str(), eval.path.as_path())),
        ));
        if !errors.is_empty() {
            return Err(ConfigErrors(errors));
        }
        let exact = exact_name(args).and_then(|name| name.split_once("::"));
        let mut trials = Vec::new();
        let mut eval_files = BTreeMap::new();
        for eval in evals {
            eval_files.insert(eval.name.clone(), eval.path.clone());
            let plan = match exact {
                Some((eval_name, _)) if eval_name != eval.name => continue,
                Some((_, task)) => plan_task(eval, task),
                None => plan_eval(eval),
            };
            match plan {
                Ok(plan) => trials.extend(trials_of(plan, options)),
                Err(e) => errors.extend(e.0),
            }
        }
        if errors.is_empty() {
            Ok((trials, eval_files))
        } else {
            Err(ConfigErrors(errors))
        }
    }
}

/// The test name `--exact` asks for, if it does.
fn exact_name(args: &Arguments) -> Option<&str> {
    args.exact.then_some(args.filter.as_deref()).flatten()
}

fn trials_of(plan: EvalPlan, options: &Arc<RunOptions>) -> Vec<Trial> {
    let EvalPlan { eval, cases } = plan;
    // The eval and the options as each variant runs them, made once.
    let variants: HashMap<String, (Arc<Eval>, Arc<RunOptions>)> = (eval.variants.iter())
        .map(|variant| {
            let mut variant_options = RunOptions::clone(options);
            variant_options.vars.extend(variant.env.iter().cloned());
            let ran = (
                Arc::new(eval.for_variant(variant)),
                Arc::new(variant_options),
            );
            (variant.name.clone(), ran)
        })
        .collect();
    cases
        .into_iter()
        .map(|case| {
            let (eval, options) = match case.variant.as_ref().and_then(|v| variants.get(&v.name)) {
                Some((eval, options)) => (eval.clone(), options.clone()),
                None => (eval.clone(), options.clone()),
            };
            Trial::test(case.name.clone(), move || {
                case::run_case(&eval, &case, options)
            })
        })
        .collect()
}

/// Where runs keep their files: `MCPEVAL_OUTPUT_DIR`, else `mcpeval` in the target
/// directory: `CARGO_TARGET_DIR`, else the one this test binary was built in (the
/// workspace's: a member's tests run in the member's folder), else `./target`.
pub fn output_dir() -> PathBuf {
    let dir = match std::env::var_os("MCPEVAL_OUTPUT_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .or_else(|| target_dir::TestBuild::of_this_process().map(|build| build.target_dir))
            .unwrap_or_else(|| PathBuf::from("target"))
            .join("mcpeval"),
    };
    std::path::absolute(&dir).unwrap_or(dir)
}

/// The eval files under `dir`, sorted: YAML or JSON files that say `kind: Eval`.
pub fn discover_eval_files(dir: &Path) -> Result<Vec<PathBuf>, ConfigErrors> {
    let mut files = Vec::new();
    for pattern in ["**/*.yaml", "**/*.yml", "**/*.json"] {
        let found = crate::plan::glob_files(dir, pattern).map_err(|e| ConfigError::file(dir, e))?;
        files.extend(found);
    }
    files.sort();
    let evals: Vec<PathBuf> = files
        .into_iter()
        .filter(|file| std::fs::read_to_string(file).is_ok_and(|text| says_kind_eval(&text)))
        .collect();
    if evals.is_empty() {
        return Err(ConfigError::file(dir, "no eval file (`kind: Eval`) found here").into());
    }
    Ok(evals)
}
