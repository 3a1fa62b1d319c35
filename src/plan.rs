//! Planning: an eval's task sets become task cases, one per task file, each named
//! `<eval>::<task>` and carrying the assertions of every task set that matched it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::config::{
    Assertions, ConfigError, ConfigErrors, Eval, LocationIndex, Task, TaskContext, TaskHeader,
    TaskSet, TaskSource, load_task, read_task_header,
};

/// The planned cases of one eval, in task-set order (files sorted within a glob).
#[derive(Debug, Clone)]
pub struct EvalPlan {
    /// The eval.
    pub eval: Arc<Eval>,
    /// One case per task file.
    pub cases: Vec<TaskCase>,
}

/// One task file of an eval: one test.
#[derive(Debug, Clone)]
pub struct TaskCase {
    /// The test name, `<eval>::<task>`.
    pub name: String,
    /// The task file.
    pub path: PathBuf,
    /// The assertions of every task set that matched the file, in task-set order.
    pub assertion_sets: Vec<AssertionSet>,
    /// The strictest `minPassRate` of the matching task sets.
    pub min_pass_rate: Option<f64>,
    /// Why the file cannot be planned as a task (its header does not parse, or it has no
    /// name); the case then fails with this error and the other cases still run.
    pub problem: Option<ConfigError>,
}

/// The assertions one task set gives a task.
#[derive(Debug, Clone)]
pub struct AssertionSet {
    /// Where the task set is written, e.g. `config.taskSets[1]`.
    pub task_set: String,
    /// Its assertions.
    pub assertions: Assertions,
}

impl TaskCase {
    /// Loads the task file fully (prompt, steps), as the eval runs it.
    pub fn load(&self, eval: &Eval) -> Result<Task, ConfigErrors> {
        if let Some(problem) = &self.problem {
            return Err(problem.clone().into());
        }
        load_task(
            &self.path,
            TaskContext {
                has_judge: eval.llm_judge.is_some(),
                extensions: eval.extensions.keys().cloned().collect(),
            },
        )
    }
}

/// Plans `eval`. Errors are about the eval itself (a glob that matches no task file, a path
/// that is not a task, two tasks with one name); a broken task file is a case with a problem.
pub fn plan_eval(eval: Eval) -> Result<EvalPlan, ConfigErrors> {
    plan_files(Arc::new(eval), None)
}

/// Plans only the task named `task` (the part after `::` of a test name), reading as few task
/// files as it can: a file whose stem is the task name is tried first, and a broken file is
/// named by its path. The plan has no case when no such task exists.
pub fn plan_task(eval: Eval, task: &str) -> Result<EvalPlan, ConfigErrors> {
    let eval = Arc::new(eval);
    let mut candidates: Vec<PathBuf> = Vec::new();
    for set in &eval.task_sets {
        let files = match &set.source {
            TaskSource::Path(path) => vec![path.clone()],
            // A broken glob is reported by the full plan; here it only names no candidate.
            TaskSource::Glob(glob) => glob_files(eval.dir(), glob).unwrap_or_default(),
        };
        for file in files {
            if !candidates.contains(&file) {
                candidates.push(file);
            }
        }
    }
    let stem_matches = |file: &PathBuf| file.file_stem().is_some_and(|stem| stem == task);
    candidates.sort_by_key(|file| !stem_matches(file));
    let found = candidates.into_iter().find(|file| {
        relative_name(eval.dir(), file) == task
            || matches!(read_task_header(file), Ok(Some(header)) if header.name.as_deref() == Some(task))
    });
    match found {
        Some(file) => plan_files(eval, Some(&file)),
        None => Ok(EvalPlan {
            eval,
            cases: Vec::new(),
        }),
    }
}

fn plan_files(eval: Arc<Eval>, only: Option<&Path>) -> Result<EvalPlan, ConfigErrors> {
    let mut planner = Planner {
        eval: &eval,
        only,
        errors: Vec::new(),
        cases: Vec::new(),
        index_of: BTreeMap::new(),
    };
    for set in &eval.task_sets {
        planner.plan_task_set(set);
    }
    let Planner {
        mut errors, cases, ..
    } = planner;
    errors.extend(duplicate_name_errors(&cases));
    if errors.is_empty() {
        Ok(EvalPlan { eval, cases })
    } else {
        Err(ConfigErrors(errors))
    }
}

/// The cases of one eval as its task sets are planned, and the errors found on the way.
struct Planner<'e> {
    eval: &'e Eval,
    /// Plan only this task file.
    only: Option<&'e Path>,
    errors: Vec<ConfigError>,
    cases: Vec<TaskCase>,
    /// The case of each task file, by canonical path.
    index_of: BTreeMap<PathBuf, usize>,
}

impl Planner<'_> {
    /// Plans the task files of `set`; a glob that names no task file is an error (unless only
    /// one task is planned).
    fn plan_task_set(&mut self, set: &TaskSet) {
        let Some((files, source_key)) = self.task_set_files(set) else {
            return;
        };
        let mut tasks_seen = 0;
        for file in files {
            if self.only.is_some_and(|only| only != file) {
                continue;
            }
            if self.plan_file(set, &source_key, file) {
                tasks_seen += 1;
            }
        }
        if tasks_seen == 0
            && self.only.is_none()
            && let TaskSource::Glob(glob) = &set.source
        {
            self.errors.push(eval_error(
                self.eval,
                &source_key,
                format!(
                    "`{glob}` matches no task file (no file with `kind: Task`) under {}",
                    self.eval.dir().display()
                ),
            ));
        }
    }

    /// The files of `set` and the key path of its source, or `None` after reporting a broken
    /// glob.
    fn task_set_files(&mut self, set: &TaskSet) -> Option<(Vec<PathBuf>, String)> {
        match &set.source {
            TaskSource::Path(path) => Some((vec![path.clone()], format!("{}.path", set.key_path))),
            TaskSource::Glob(glob) => match glob_files(self.eval.dir(), glob) {
                Ok(files) => Some((files, format!("{}.glob", set.key_path))),
                Err(message) => {
                    self.errors.push(eval_error(
                        self.eval,
                        &format!("{}.glob", set.key_path),
                        message,
                    ));
                    None
                }
            },
        }
    }

    /// Plans one file of `set`; whether it is a task file (a broken one counts).
    fn plan_file(&mut self, set: &TaskSet, source_key: &str, file: PathBuf) -> bool {
        match read_task_header(&file) {
            Ok(Some(header)) => {
                self.add_selected_task(set, file, header);
                true
            }
            Ok(None) => {
                if matches!(set.source, TaskSource::Path(_)) {
                    self.errors.push(eval_error(
                        self.eval,
                        source_key,
                        format!(
                            "{} is not a task file (expected `kind: Task`)",
                            file.display()
                        ),
                    ));
                }
                false
            }
            Err(problem) => {
                self.add_case(set, file, None, Some(problem));
                true
            }
        }
    }

    /// Adds the task of `file` when `set` selects its labels; a task without a name is a
    /// case with a problem.
    fn add_selected_task(&mut self, set: &TaskSet, file: PathBuf, header: TaskHeader) {
        let selected = set
            .label_selector
            .iter()
            .all(|(k, v)| header.labels.get(k) == Some(v));
        if !selected {
            return;
        }
        let problem = match &header.name {
            Some(name) if !name.trim().is_empty() => None,
            _ => Some(ConfigError {
                file: file.clone(),
                location: None,
                key_path: "metadata.name".into(),
                message: "missing required field: the task's name".into(),
            }),
        };
        self.add_case(set, file, header.name, problem);
    }

    /// Adds `file` as a case of `set`, or gives its case the assertions of `set` when an
    /// earlier task set already planned it.
    fn add_case(
        &mut self,
        set: &TaskSet,
        file: PathBuf,
        task_name: Option<String>,
        problem: Option<ConfigError>,
    ) {
        let assertion_set = AssertionSet {
            task_set: set.key_path.clone(),
            assertions: set.assertions.clone(),
        };
        let key = std::fs::canonicalize(&file).unwrap_or_else(|_| file.clone());
        if let Some(&i) = self.index_of.get(&key) {
            let case = &mut self.cases[i];
            case.assertion_sets.push(assertion_set);
            case.min_pass_rate = match (case.min_pass_rate, set.min_pass_rate) {
                (Some(a), Some(b)) => Some(a.max(b)),
                (a, b) => a.or(b),
            };
            return;
        }
        let eval = self.eval;
        let name = match task_name.filter(|_| problem.is_none()) {
            Some(task) => format!("{}::{task}", eval.name),
            // A broken file is named after its path, which is unique.
            None => format!("{}::{}", eval.name, relative_name(eval.dir(), &file)),
        };
        self.index_of.insert(key, self.cases.len());
        self.cases.push(TaskCase {
            name,
            path: file,
            assertion_sets: vec![assertion_set],
            min_pass_rate: set.min_pass_rate,
            problem,
        });
    }
}

/// An error for every case whose name an earlier case already has.
fn duplicate_name_errors(cases: &[TaskCase]) -> Vec<ConfigError> {
    let mut errors = Vec::new();
    let mut first_with_name: BTreeMap<&str, &TaskCase> = BTreeMap::new();
    for case in cases {
        if let Some(first) = first_with_name.insert(&case.name, case) {
            errors.push(ConfigError {
                file: case.path.clone(),
                location: task_name_location(&case.path),
                key_path: "metadata.name".into(),
                message: format!(
                    "duplicate task name: test `{}` is also {}; task names must be unique within an eval",
                    case.name,
                    first.path.display()
                ),
            });
        }
    }
    errors
}

fn task_name_location(file: &Path) -> Option<(u64, u64)> {
    let source = std::fs::read_to_string(file).ok()?;
    LocationIndex::build(&source).find("metadata.name")
}

fn relative_name(dir: &Path, file: &Path) -> String {
    file.strip_prefix(dir)
        .unwrap_or(file)
        .to_string_lossy()
        .replace('\\', "/")
}

fn eval_error(eval: &Eval, key_path: &str, message: String) -> ConfigError {
    ConfigError {
        file: eval.path.clone(),
        location: eval.locations.find(key_path),
        key_path: key_path.to_owned(),
        message,
    }
}

/// The files that `glob` matches, sorted. A relative glob is anchored at `base` (the eval's
/// directory), an absolute one at the root; `*` stays within one directory, `**` crosses any
/// number. The walk starts at the glob's literal leading directories (`../tasks/*/task.yaml`
/// walks `../tasks`), so a glob never walks more than it can match.
pub fn glob_files(base: &Path, glob: &str) -> Result<Vec<PathBuf>, String> {
    let (root, pattern) = split_glob(base, glob.trim());
    if !root.is_dir() {
        // Its literal directories do not exist: it matches nothing.
        return Ok(Vec::new());
    }
    // globwalk panics on a base of `.` (it strips a prefix it normalised differently), so
    // it walks the absolute directory and the files keep the root as written.
    let walk_root = std::path::absolute(&root).map_err(|e| format!("{}: {e}", root.display()))?;
    let anchored = format!("/{pattern}");
    let walker = globwalk::GlobWalkerBuilder::from_patterns(&walk_root, &[anchored.as_str()])
        .file_type(globwalk::FileType::FILE)
        .follow_links(true)
        .build()
        .map_err(|e| format!("invalid glob: {e}"))?;
    let mut files = Vec::new();
    for entry in walker {
        let entry = entry.map_err(|e| format!("cannot walk {}: {e}", root.display()))?;
        let path = entry.into_path();
        let below = path.strip_prefix(&walk_root).unwrap_or(&path);
        files.push(root.join(below).components().collect::<PathBuf>());
    }
    files.sort();
    Ok(files)
}

/// Splits `glob` into the directory to walk (its leading components without a glob
/// character, resolved against `base` unless absolute) and the pattern below it. The last
/// component always stays in the pattern.
fn split_glob(base: &Path, glob: &str) -> (PathBuf, String) {
    let is_pattern = |part: &str| part.contains(['*', '?', '[', '{']);
    let mut root = if glob.starts_with('/') {
        PathBuf::from("/")
    } else {
        base.to_path_buf()
    };
    let parts: Vec<&str> = glob.split('/').filter(|p| !p.is_empty()).collect();
    let literal = parts
        .iter()
        .take(parts.len().saturating_sub(1))
        .take_while(|part| !is_pattern(part))
        .count();
    for part in &parts[..literal] {
        if *part != "." {
            root.push(part);
        }
    }
    (root, parts[literal..].join("/"))
}

/// Loads and plans the eval at `path` and loads every one of its task files fully: the
/// planned test names, or every error found.
pub fn validate_eval(path: &Path) -> Result<Vec<String>, ConfigErrors> {
    validate_eval_with(path, &|name| std::env::var(name).ok())
}

/// Like [`validate_eval`], with `${VAR}` in the MCP config expanded by `lookup`.
pub fn validate_eval_with(
    path: &Path,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<String>, ConfigErrors> {
    validate_eval_notes(path, lookup).map(|validation| validation.test_names)
}

/// What validating an eval found when it loads: its test names, and notes on what it could
/// not check (extension steps, whose schemas only the running extension knows).
#[derive(Debug, Clone, Default)]
pub struct Validation {
    /// The planned test names.
    pub test_names: Vec<String>,
    /// Notes for the user; they do not make the eval invalid.
    pub notes: Vec<String>,
}

/// Like [`validate_eval_with`], with the notes.
pub fn validate_eval_notes(
    path: &Path,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<Validation, ConfigErrors> {
    let plan = plan_eval(crate::config::load_eval_with(path, lookup)?)?;
    let mut errors = Vec::new();
    let mut extension_steps = Vec::new();
    for case in &plan.cases {
        match case.load(&plan.eval) {
            Ok(task) => extension_steps.extend(
                task.extension_steps()
                    .map(|step| (task.path.clone(), step.clone())),
            ),
            Err(e) => errors.extend(e.0),
        }
    }
    if !errors.is_empty() {
        return Err(ConfigErrors(errors));
    }
    Ok(Validation {
        notes: crate::extension::validation_notes(&plan.eval, &extension_steps),
        test_names: plan.cases.into_iter().map(|case| case.name).collect(),
    })
}
