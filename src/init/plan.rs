//! What `mcpeval init` does, in order: decide what to start, list it, plan every file,
//! refuse when any exists, write them, add the `Cargo.toml` lines, and load the eval it
//! wrote with mcpeval's own loader.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use super::dependency::{BuildSource, Dependency, PACKAGE};
use super::discover::discover;
use super::inputs::{AgentInput, agent_input, read_manifest, server};
use super::names::{is_plain_server_name, is_task_name, server_dir_name, task_file_stems};
use super::paths::{normalize, relative_to};
use super::tools::read_tools;
use super::{
    AgentChoice, InitArgs, InitError, Scaffold, ServerEntry, cargo, headers, readme, render,
    workflow,
};

/// What `mcpeval init` did.
#[derive(Debug, Clone, Default)]
pub struct InitReport {
    /// The eval's directory, relative to DIR (`evals/<server>`).
    pub eval_dir: PathBuf,
    /// The files written, relative to DIR, task files left out.
    pub written: Vec<PathBuf>,
    /// How many task files were written.
    pub tasks: usize,
    /// What was added to `Cargo.toml` (`mcpeval in [dev-dependencies]`, …).
    pub cargo_added: Vec<String>,
    /// With `--print-cargo`: the lines to add.
    pub cargo_lines: Option<String>,
    /// Whether the evals are `cargo test`s (a Rust crate).
    pub crate_harness: bool,
    /// What the user should know: tools lacking descriptions or schemas, files left alone.
    pub warnings: Vec<String>,
}

impl InitReport {
    /// The lines the command prints.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let dir = self.eval_dir.display();
        for file in &self.written {
            let _ = writeln!(out, "wrote {}", file.display());
        }
        let s = if self.tasks == 1 { "" } else { "s" };
        let _ = writeln!(
            out,
            "wrote {dir}/tasks/: {} task file{s}, one per tool",
            self.tasks
        );
        if !self.cargo_added.is_empty() {
            let _ = writeln!(out, "added to Cargo.toml: {}", self.cargo_added.join(", "));
        }
        let list = if self.crate_harness {
            "cargo test --test evals -- --list".to_owned()
        } else {
            format!("mcpeval check {dir}/eval.yaml -- --list")
        };
        let _ = writeln!(
            out,
            "next: every prompt in {dir}/tasks/ is a generated placeholder: rewrite them, tighten \
             the argument patterns in {dir}/eval.yaml and add verify steps ({dir}/README.md says \
             how); then `{list}`"
        );
        out
    }
}

/// Runs `mcpeval init`.
pub async fn run(args: &InitArgs) -> Result<InitReport, InitError> {
    let cwd = std::env::current_dir()
        .map_err(|e| InitError::Usage(format!("no working directory: {e}")))?;
    let dir = &args.dir;
    let root = normalize(&cwd.join(dir));
    let manifest = dir.join("Cargo.toml");
    let crate_doc = read_manifest(&manifest)?;
    let agent = agent_input(args, &cwd)?;
    let (dependency, dependency_warning) =
        Dependency::choose(args.dependency, &BuildSource::current())?;
    let (launch, entry, var_value) = server(args, dir, &cwd, crate_doc.is_some()).await?;
    let surface = discover(&launch, args.timeout).await?;
    let eval = eval_name(args.name.as_deref(), &surface.name)?;
    let (tools, mut warnings) = read_tools(&surface.tools);
    if tools.is_empty() {
        return Err(InitError::Server {
            server: launch.describe(),
            message: "it lists no tools, and mcpeval init writes one task per tool".into(),
            exit: None,
            stderr: String::new(),
        });
    }
    let eval_dir = Path::new("evals").join(&eval);
    let eval_abs = root.join(&eval_dir);
    let entry = entry_from_eval_dir(entry, &eval_abs, &cwd);
    let agent = agent_from_eval_dir(agent, &eval_abs);
    let scaffold = Scaffold {
        eval: &eval,
        server_label: format!("{} {}", surface.name, surface.version)
            .trim()
            .to_owned(),
        surface: &surface,
        tools: &tools,
        agent: &agent,
        server: &entry,
        crate_harness: crate_doc.is_some(),
    };
    let mut files = scaffold_files(&scaffold, &eval_dir);
    warnings.extend(tool_warnings(&tools));
    warnings.extend(headers::variable_warnings(&eval, &entry));
    warnings.extend(size_warning(tools.len()));
    let mut report = InitReport {
        eval_dir: eval_dir.clone(),
        tasks: tools.len(),
        crate_harness: crate_doc.is_some(),
        ..InitReport::default()
    };
    let binary = match &entry {
        ServerEntry::Binary { bin, var } => Some((var.as_str(), bin.as_str())),
        _ => None,
    };
    let mut cargo_edit = None;
    if let Some(doc) = crate_doc {
        let evals_rs = Path::new("tests").join("evals.rs");
        match std::fs::read_to_string(dir.join(&evals_rs)) {
            Ok(existing) => warnings.extend(existing_harness(&existing, binary)),
            Err(_) => files.push((evals_rs, cargo::evals_rs(binary))),
        }
        let edit = CargoEdit {
            args,
            manifest: &manifest,
            root: &root,
            dependency: &dependency,
        };
        cargo_edit = edit.apply(doc, &mut report, &mut warnings, dependency_warning)?;
    }
    if args.ci.is_some() {
        let input = workflow::WorkflowInput {
            eval_file: &eval_dir.join("eval.yaml"),
            crate_harness: report.crate_harness,
            agent: &agent,
            server: &entry,
            dependency: &dependency,
            root: &root,
        };
        warnings.extend(add_workflow(dir, &input, &mut files));
    }
    write_files(dir, &files, &eval_dir, &mut report)?;
    if let Some(text) = cargo_edit {
        std::fs::write(&manifest, text).map_err(|source| InitError::Write {
            path: manifest.clone(),
            source,
        })?;
    }
    let eval_file = dir.join(&eval_dir).join("eval.yaml");
    let binary_value = binary
        .zip(var_value.as_deref())
        .map(|((var, _), value)| (var, value));
    validate_written(&eval_file, &eval, &entry, binary_value)?;
    report.warnings = warnings;
    Ok(report)
}

/// A stdio server's relative command (`./target/debug/srv`) as the eval directory sees it.
fn entry_from_eval_dir(entry: ServerEntry, eval_abs: &Path, cwd: &Path) -> ServerEntry {
    match entry {
        ServerEntry::Stdio { command, args }
            if command.contains('/') && Path::new(&command).is_relative() =>
        {
            ServerEntry::Stdio {
                command: relative_to(eval_abs, &normalize(&cwd.join(&command)))
                    .display()
                    .to_string(),
                args,
            }
        }
        other => other,
    }
}

/// The agent as the eval names it: a builtin, or an Agent file relative to the eval directory.
fn agent_from_eval_dir(agent: AgentInput, eval_abs: &Path) -> AgentChoice {
    match agent {
        AgentInput::Builtin(choice) => choice,
        AgentInput::File(path) => AgentChoice::File {
            path: relative_to(eval_abs, &path).display().to_string(),
        },
    }
}

/// The eval's files: eval.yaml, mcp-config.yaml, its README and one task per tool.
fn scaffold_files(scaffold: &Scaffold<'_>, eval_dir: &Path) -> Vec<(PathBuf, String)> {
    let mut files = vec![
        (eval_dir.join("eval.yaml"), render::eval_yaml(scaffold)),
        (
            eval_dir.join("mcp-config.yaml"),
            render::mcp_config_yaml(scaffold),
        ),
        (eval_dir.join("README.md"), readme::readme(scaffold)),
    ];
    let tools = scaffold.tools;
    let stems = task_file_stems(tools.iter().map(|t| t.name.as_str()));
    for (tool, stem) in tools.iter().zip(&stems) {
        let task_name = if is_task_name(&tool.name) {
            tool.name.as_str()
        } else {
            stem
        };
        let path = eval_dir.join("tasks").join(format!("{stem}.yaml"));
        files.push((path, render::task_yaml(scaffold, tool, task_name)));
    }
    files
}

/// The written eval validated as `mcpeval validate` would, its variables taken from what
/// init was given (`binary`: the server binary's variable and the value it was given here; the
/// headers' secrets) or the environment.
fn validate_written(
    eval_file: &Path,
    eval: &str,
    entry: &ServerEntry,
    binary: Option<(&str, &str)>,
) -> Result<(), InitError> {
    let lookup = |name: &str| match binary {
        Some((var, value)) if name == var => Some(value.to_owned()),
        _ => headers::variable_value(eval, entry, name).or_else(|| std::env::var(name).ok()),
    };
    crate::plan::validate_eval_notes(eval_file, &lookup).map_err(|errors| InitError::Invalid {
        file: eval_file.to_owned(),
        errors: errors.to_string(),
    })?;
    Ok(())
}

/// The eval's name: `--name`, else the server's name made a directory name.
fn eval_name(name: Option<&str>, server_name: &str) -> Result<String, InitError> {
    match name {
        Some(name) if is_plain_server_name(name) => Ok(name.to_owned()),
        Some(name) => Err(InitError::Usage(format!(
            "--name {name:?}: an eval name here is a directory name too: letters, digits and \
             `-` `_` `.`, not at either end"
        ))),
        None => server_dir_name(server_name).ok_or_else(|| {
            InitError::Usage(format!(
                "the server's name {server_name:?} leaves no usable file name: pass --name NAME"
            ))
        }),
    }
}

/// What init adds to the crate's Cargo.toml: the dev-dependency, the `evals` test target and
/// the profile line, those that are missing.
struct CargoEdit<'a> {
    args: &'a InitArgs,
    manifest: &'a Path,
    root: &'a Path,
    dependency: &'a Dependency,
}

impl CargoEdit<'_> {
    /// Adds what `doc` lacks (or, with `--print-cargo`, only says the lines in `report`);
    /// the new text of Cargo.toml when it changes.
    fn apply(
        &self,
        mut doc: toml_edit::DocumentMut,
        report: &mut InitReport,
        warnings: &mut Vec<String>,
        dependency_warning: Option<String>,
    ) -> Result<Option<String>, InitError> {
        let (args, root, dependency) = (self.args, self.root, self.dependency);
        let (mut missing, warning) = cargo::missing(&doc);
        missing.profile &= cargo::is_workspace_root(root, &doc);
        warnings.extend(warning);
        if missing.dev_dependency {
            warnings.extend(dependency_warning);
        } else if args.dependency.is_some() {
            warnings.push(format!(
                "Cargo.toml already has mcpeval as a dependency: --dependency left it as it is \
                 (replace it with `{}` by hand)",
                dependency.line(root)
            ));
        }
        if args.print_cargo {
            report.cargo_lines = Some(cargo::cargo_lines(missing, dependency, root));
            return Ok(None);
        }
        if missing == cargo::Missing::default() {
            return Ok(None);
        }
        cargo::add_missing(&mut doc, self.manifest, missing, dependency, root)?;
        if missing.dev_dependency {
            report
                .cargo_added
                .push(format!("{PACKAGE} to [dev-dependencies]"));
        }
        if missing.test_target {
            report
                .cargo_added
                .push("[[test]] evals (harness = false)".into());
        }
        if missing.profile {
            report
                .cargo_added
                .push(format!("[profile.dev.package.{PACKAGE}] debug = false"));
        }
        Ok(Some(doc.to_string()))
    }
}

/// The workflow `--ci github` writes, added to `files` unless the file exists; the
/// warnings.
fn add_workflow(
    dir: &Path,
    input: &workflow::WorkflowInput<'_>,
    files: &mut Vec<(PathBuf, String)>,
) -> Vec<String> {
    let workflow_file = PathBuf::from(workflow::WORKFLOW);
    if dir.join(&workflow_file).symlink_metadata().is_ok() {
        return vec![format!(
            "{} exists and was left as it is (--ci github writes it only when it is missing)",
            workflow::WORKFLOW
        )];
    }
    let (text, warning) = workflow::workflow(input);
    files.push((workflow_file, text));
    warning.into_iter().collect()
}

/// Writes `files` into `dir`, none of which may exist; the files outside the tasks
/// directory are listed in `report`.
fn write_files(
    dir: &Path,
    files: &[(PathBuf, String)],
    eval_dir: &Path,
    report: &mut InitReport,
) -> Result<(), InitError> {
    let existing: Vec<PathBuf> = files
        .iter()
        .map(|(path, _)| path.clone())
        .filter(|path| dir.join(path).symlink_metadata().is_ok())
        .collect();
    if !existing.is_empty() {
        return Err(InitError::Exists { files: existing });
    }
    for (path, text) in files {
        write_new(&dir.join(path), text)?;
        if path.parent() != Some(&eval_dir.join("tasks")) {
            report.written.push(path.clone());
        }
    }
    Ok(())
}

/// Warnings about an existing `tests/evals.rs`, which is left as it is.
fn existing_harness(text: &str, binary: Option<(&str, &str)>) -> Vec<String> {
    let mut warnings = Vec::new();
    if !text.contains("mcpeval::Harness") {
        warnings.push(
            "tests/evals.rs exists and was left as it is, but it does not run \
             mcpeval::Harness::discover(\"evals\")"
                .to_owned(),
        );
    }
    if let Some((var, bin)) = binary.filter(|(var, _)| !text.contains(var)) {
        warnings.push(format!(
            "tests/evals.rs exists and was left as it is: add \
             .env(\"{var}\", env!(\"CARGO_BIN_EXE_{bin}\")) before .run()"
        ));
    }
    warnings
}

/// One warning per kind of problem, naming its tools.
fn tool_warnings(tools: &[super::tools::ToolSpec]) -> Vec<String> {
    let mut problems: Vec<(&str, Vec<&str>)> = Vec::new();
    for tool in tools {
        for problem in &tool.problems {
            match problems.iter_mut().find(|(p, _)| p == problem) {
                Some((_, names)) => names.push(&tool.name),
                None => problems.push((problem, vec![&tool.name])),
            }
        }
    }
    problems
        .into_iter()
        .map(|(problem, names)| {
            let shown: Vec<String> = names.iter().take(10).map(|n| format!("{n:?}")).collect();
            let more = names.len().saturating_sub(10);
            let more = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            format!("{problem}: {}{more}", shown.join(", "))
        })
        .collect()
}

/// A warning for a server of more than 50 tools: one agent run each.
fn size_warning(tools: usize) -> Option<String> {
    (tools > 50).then(|| {
        format!(
            "{tools} tools, one task each: delete the tasks of tools you do not mean to test (each \
             task is one agent run)"
        )
    })
}

/// Writes a file that must not exist yet (its directories created).
fn write_new(path: &Path, text: &str) -> Result<(), InitError> {
    let error = |source| InitError::Write {
        path: path.to_path_buf(),
        source,
    };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(error)?;
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(error)?;
    file.write_all(text.as_bytes()).map_err(error)
}
