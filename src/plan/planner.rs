//! The planner: an eval's task sets, in order, become cases; a file matched by several sets
//! is one case with every set's assertions.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use super::files::TaskFiles;
use super::glob::SetFile;
use super::{AssertionSet, TaskCase, eval_error, relative_name};
use crate::config::{
    ConfigError, ConfigErrors, Eval, LocationIndex, TaskHeader, TaskSet, TaskSource,
};

/// The cases of one eval as its task sets are planned, and the errors found on the way.
pub(super) struct Planner<'e> {
    eval: &'e Eval,
    files: TaskFiles,
    /// Plan only this task file.
    only: Option<SetFile>,
    errors: Vec<ConfigError>,
    cases: Vec<TaskCase>,
    /// The case of each task file, by canonical path.
    index_of: HashMap<PathBuf, usize>,
}

impl<'e> Planner<'e> {
    pub fn new(eval: &'e Eval) -> Self {
        Planner {
            eval,
            files: TaskFiles::new(eval.dir()),
            only: None,
            errors: Vec::new(),
            cases: Vec::new(),
            index_of: HashMap::new(),
        }
    }

    /// Plans every task set (only the file `only` when given): the cases, or every error
    /// about the eval, two cases with one name among them.
    pub fn plan(mut self, only: Option<SetFile>) -> Result<Vec<TaskCase>, ConfigErrors> {
        if only.is_none() {
            self.read_every_header();
        }
        self.only = only;
        for set in &self.eval.task_sets {
            self.plan_task_set(set);
        }
        let Planner {
            mut errors, cases, ..
        } = self;
        errors.extend(duplicate_name_errors(&cases));
        if errors.is_empty() {
            Ok(cases)
        } else {
            Err(ConfigErrors(errors))
        }
    }

    /// Reads the headers of every task set's files at once (see [`TaskFiles::read_headers`]).
    fn read_every_header(&mut self) {
        let sets: Vec<Rc<[SetFile]>> = (self.eval.task_sets.iter())
            .filter_map(|set| self.set_files(set).ok())
            .collect();
        let files = sets
            .iter()
            .flat_map(|files| files.iter().map(|f| f.path.as_path()));
        self.files.read_headers(files);
    }

    /// The file of the task named `task`, reading as few files as it can: a file named
    /// `<task>.*` is tried first, then one in a directory named `<task>`, then the others in
    /// task-set order; a broken file is named by its path.
    pub fn find_task_file(&mut self, task: &str) -> Option<SetFile> {
        let mut seen = HashSet::new();
        let mut candidates = Vec::new();
        for set in &self.eval.task_sets {
            // A broken glob is reported by the plan; here it only names no candidate.
            let files = self.set_files(set).unwrap_or_default();
            candidates.extend(
                files
                    .iter()
                    .filter(|f| seen.insert(f.path.clone()))
                    .cloned(),
            );
        }
        let named = |name: Option<&OsStr>| name.is_some_and(|name| name == task);
        candidates.sort_by_key(|file| {
            let path = &file.path;
            (
                !named(path.file_stem()),
                !named(path.parent().and_then(Path::file_name)),
            )
        });
        let eval = self.eval;
        candidates.into_iter().find(|file| {
            relative_name(eval.dir(), &file.path) == task
                || self.files.has_task_name(&file.path, task)
        })
    }

    /// The files of `set`, or why its glob is broken.
    fn set_files(&mut self, set: &TaskSet) -> Result<Rc<[SetFile]>, String> {
        match &set.source {
            TaskSource::Path(path) => Ok(Rc::from([SetFile::at(path)])),
            TaskSource::Glob(glob) => self.files.glob(glob),
        }
    }

    /// Plans the task files of `set`; a glob that names no task file is an error (unless only
    /// one task is planned).
    fn plan_task_set(&mut self, set: &TaskSet) {
        let source_key = match &set.source {
            TaskSource::Path(_) => format!("{}.path", set.key_path),
            TaskSource::Glob(_) => format!("{}.glob", set.key_path),
        };
        let files = match self.set_files(set) {
            Ok(files) => files,
            Err(message) => {
                self.errors
                    .push(eval_error(self.eval, &source_key, message));
                return;
            }
        };
        let mut tasks_seen = 0;
        for file in files.iter() {
            if let Some(only) = &self.only
                && !self.files.same_file(only, file)
            {
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

    /// Plans one file of `set`; whether it is a task file (a broken one counts).
    fn plan_file(&mut self, set: &TaskSet, source_key: &str, file: &SetFile) -> bool {
        match &*self.files.header(&file.path) {
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
                            file.path.display()
                        ),
                    ));
                }
                false
            }
            Err(problem) => {
                self.add_case(set, file, None, Some(problem.clone()));
                true
            }
        }
    }

    /// Adds the task of `file` when `set` selects its labels; a task without a name is a
    /// case with a problem.
    fn add_selected_task(&mut self, set: &TaskSet, file: &SetFile, header: &TaskHeader) {
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
                file: file.path.clone(),
                location: None,
                key_path: "metadata.name".into(),
                message: "missing required field: the task's name".into(),
            }),
        };
        self.add_case(set, file, header.name.as_deref(), problem);
    }

    /// Adds `file` as a case of `set`, or gives its case the assertions of `set` when an
    /// earlier task set already planned it.
    fn add_case(
        &mut self,
        set: &TaskSet,
        file: &SetFile,
        task_name: Option<&str>,
        problem: Option<ConfigError>,
    ) {
        let assertion_set = AssertionSet {
            task_set: set.key_path.clone(),
            assertions: set.assertions.clone(),
        };
        let key = self.files.canonical(file);
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
            None => format!("{}::{}", eval.name, relative_name(eval.dir(), &file.path)),
        };
        self.index_of.insert(key, self.cases.len());
        self.cases.push(TaskCase {
            name,
            path: file.path.clone(),
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
