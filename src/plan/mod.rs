//! Planning: an eval's task sets become task cases, one per task file, each named
//! `<eval>::<task>` and carrying the assertions of every task set that matched it.

mod files;
mod glob;
mod planner;

use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use glob::glob_files;
use planner::Planner;

use crate::config::{
    Assertions, ConfigError, ConfigErrors, Eval, SchemaViolations, Task, TaskContext, Variant,
    load_task,
};
use crate::fault::FaultRule;
use crate::user::{ElicitationScript, SamplingScript};

/// The planned cases of one eval, in task-set order (files sorted within a glob).
#[derive(Debug, Clone)]
pub struct EvalPlan {
    /// The eval.
    pub eval: Arc<Eval>,
    /// One case per task file.
    pub cases: Vec<TaskCase>,
}

/// One task file of an eval (in one of its variants): one test.
#[derive(Debug, Clone)]
pub struct TaskCase {
    /// The test name, `<eval>::<task>` (`<eval>::<task>@<variant>` in a variant).
    pub name: String,
    /// The variant it runs in, when the eval has variants.
    pub variant: Option<Arc<Variant>>,
    /// The task file.
    pub path: PathBuf,
    /// The assertions of every task set that matched the file, in task-set order.
    pub assertion_sets: Vec<AssertionSet>,
    /// The strictest `minPassRate` of the matching task sets.
    pub min_pass_rate: Option<f64>,
    /// The strictest `schemaViolations` of the matching task sets.
    pub schema_violations: SchemaViolations,
    /// Why the file cannot be planned as a task (its header does not parse, or it has no
    /// name); the case then fails with this error and the other cases still run.
    pub problem: Option<ConfigError>,
}

/// The assertions one task set gives a task.
#[derive(Debug, Clone)]
pub struct AssertionSet {
    /// Where the task set is written, e.g. `config.taskSets[1]`.
    pub task_set: String,
    /// Its assertions (shared by every case of the set).
    pub assertions: Arc<Assertions>,
    /// Its `faults` rules.
    pub faults: Arc<[FaultRule]>,
    /// Its `elicitation` (the scripted user's rules), when it has one.
    pub elicitation: Option<Arc<ElicitationScript>>,
    /// Its `sampling` (the scripted model's replies), when it has one.
    pub sampling: Option<Arc<SamplingScript>>,
}

impl TaskCase {
    /// The task's part of the test name: between `<eval>::` and `@<variant>`.
    pub fn task_name<'c>(&'c self, eval: &Eval) -> &'c str {
        let name = self.name.as_str();
        let name = name
            .strip_prefix(&format!("{}::", eval.name))
            .unwrap_or(name);
        match &self.variant {
            Some(variant) => name
                .strip_suffix(&format!("@{}", variant.name))
                .unwrap_or(name),
            None => name,
        }
    }

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
                servers: Some(eval.mcp.servers.keys().cloned().collect()),
            },
        )
    }
}

/// Plans `eval`. Errors are about the eval itself (a glob that matches no task file, a path
/// that is not a task, two tasks with one name); a broken task file is a case with a problem.
/// Each file is read once, however many task sets match it.
pub fn plan_eval(eval: Eval) -> Result<EvalPlan, ConfigErrors> {
    let eval = Arc::new(eval);
    let cases = Planner::new(&eval).plan(None)?;
    let cases = with_variants(&eval, cases, None);
    Ok(EvalPlan { eval, cases })
}

/// Each case once per variant of `eval` (only variant `only` when given), named
/// `<eval>::<task>@<variant>`; the cases as they are when the eval has no variants.
fn with_variants(eval: &Eval, cases: Vec<TaskCase>, only: Option<&str>) -> Vec<TaskCase> {
    if eval.variants.is_empty() {
        return cases;
    }
    let variants = (eval.variants.iter()).filter(|v| only.is_none_or(|name| v.name == name));
    let variants: Vec<&Arc<Variant>> = variants.collect();
    cases
        .into_iter()
        .flat_map(|case| {
            variants.iter().map(move |variant| TaskCase {
                name: format!("{}@{}", case.name, variant.name),
                variant: Some(Arc::clone(variant)),
                ..case.clone()
            })
        })
        .collect()
}

/// Plans only the task named `task` (the part after `::` of a test name; in an eval with
/// variants, `<task>@<variant>` plans that variant only), reading as few task files as it
/// can: a file named after the task is tried first, a file whose text cannot name it is not
/// parsed, and a broken file is named by its path. The plan has no case when no such task
/// (or variant) exists.
pub fn plan_task(eval: Eval, task: &str) -> Result<EvalPlan, ConfigErrors> {
    let eval = Arc::new(eval);
    let (task, variant) = match task.rsplit_once('@') {
        Some((task, variant)) if !eval.variants.is_empty() => (task, Some(variant)),
        _ => (task, None),
    };
    if eval.variants.is_empty() != variant.is_none() {
        // A test of an eval with variants always names one.
        return Ok(EvalPlan {
            eval,
            cases: Vec::new(),
        });
    }
    let mut planner = Planner::new(&eval);
    let cases = match planner.find_task_file(task) {
        Some(file) => planner.plan(Some(file))?,
        None => Vec::new(),
    };
    let cases = with_variants(&eval, cases, variant);
    Ok(EvalPlan { eval, cases })
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
