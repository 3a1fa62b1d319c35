//! The planner: an eval's task sets, in order, become cases; a file matched by several sets
//! is one case with every set's assertions.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use super::files::TaskFiles;
use super::glob::SetFile;
use super::{AssertionSet, TaskCase, eval_error, relative_name};
use crate::config::{
    ConfigError, ConfigErrors, Eval, LocationIndex, TaskHeader, TaskSet, TaskSource,
};
use crate::plumbing::file_stem::file_stem;

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
            eval,
            mut errors,
            cases,
            ..
        } = self;
        errors.extend(duplicate_name_errors(&eval.name, &cases));
        if errors.is_empty() {
            Ok(cases)
        } else {
            Err(ConfigErrors(errors))
        }
    }

    /// Reads the headers of every task set's files at once (see [`TaskFiles::read_headers`]).
    fn read_every_header(&mut self) {
        let lists = self.file_lists();
        let files = distinct_files(&lists);
        self.files
            .read_headers(files.iter().map(|f| f.path.as_path()));
    }

    /// The file of the task named `task`, reading as few files as it can: a file named
    /// `<task>.*` is tried first, then one in a directory named `<task>`, then the others in
    /// task-set order; a broken file is named by its path.
    pub fn find_task_file(&mut self, task: &str) -> Option<SetFile> {
        let lists = self.file_lists();
        let candidates = distinct_files(&lists);
        let named = |name: Option<&OsStr>| name.is_some_and(|name| name == task);
        let rank = |file: &SetFile| match &file.path {
            path if named(path.file_stem()) => 0,
            path if named(path.parent().and_then(Path::file_name)) => 1,
            _ => 2,
        };
        let ranks: Vec<u8> = candidates.iter().map(|file| rank(file)).collect();
        let mut by_rank = (0..3).flat_map(|r| {
            let ranked = candidates.iter().zip(&ranks);
            ranked
                .filter(move |(_, rank)| **rank == r)
                .map(|(file, _)| *file)
        });
        let eval = self.eval;
        by_rank
            .find(|file| {
                relative_name(eval.dir(), &file.path) == task
                    || self.files.has_task_name(&file.path, task)
            })
            .cloned()
    }

    /// The file lists of the task sets, each once (sets with one glob share a list). A
    /// broken glob is reported by the plan; here it lists nothing.
    fn file_lists(&mut self) -> Vec<Rc<[SetFile]>> {
        let mut lists: Vec<Rc<[SetFile]>> = Vec::new();
        for set in &self.eval.task_sets {
            if let Ok(files) = self.set_files(set)
                && !lists.iter().any(|list| Rc::ptr_eq(list, &files))
            {
                lists.push(files);
            }
        }
        lists
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
    fn plan_task_set(&mut self, set: &'e TaskSet) {
        let set = SetPlan::of(set);
        let files = match self.set_files(set.set) {
            Ok(files) => files,
            Err(message) => {
                let error = eval_error(self.eval, &set.source_key, message);
                self.errors.push(error);
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
            if self.plan_file(&set, file) {
                tasks_seen += 1;
            }
        }
        if tasks_seen == 0
            && self.only.is_none()
            && let TaskSource::Glob(glob) = &set.set.source
        {
            self.errors.push(eval_error(
                self.eval,
                &set.source_key,
                format!(
                    "`{glob}` matches no task file (no file with `kind: Task`) under {}",
                    self.eval.dir().display()
                ),
            ));
        }
    }

    /// Plans one file of `set`; whether it is a task file (a broken one counts).
    fn plan_file(&mut self, set: &SetPlan, file: &SetFile) -> bool {
        match &*self.files.header(&file.path) {
            Ok(Some(header)) => {
                self.add_selected_task(set, file, header);
                true
            }
            Ok(None) => {
                if matches!(set.set.source, TaskSource::Path(_)) {
                    self.errors.push(eval_error(
                        self.eval,
                        &set.source_key,
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
    fn add_selected_task(&mut self, set: &SetPlan, file: &SetFile, header: &TaskHeader) {
        let selector = &set.set.label_selector;
        if !selector
            .iter()
            .all(|(k, v)| header.labels.get(k) == Some(v))
        {
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
        set: &SetPlan,
        file: &SetFile,
        task_name: Option<&str>,
        problem: Option<ConfigError>,
    ) {
        let min_pass_rate = set.set.min_pass_rate;
        let key = self.files.canonical(file);
        if let Some(&i) = self.index_of.get(&key) {
            let case = &mut self.cases[i];
            case.assertion_sets.push(set.assertions.clone());
            case.min_pass_rate = match (case.min_pass_rate, min_pass_rate) {
                (Some(a), Some(b)) => Some(a.max(b)),
                (a, b) => a.or(b),
            };
            case.schema_violations = case.schema_violations.max(set.set.schema_violations);
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
            variant: None,
            path: file.path.clone(),
            assertion_sets: vec![set.assertions.clone()],
            min_pass_rate,
            schema_violations: set.set.schema_violations,
            problem,
        });
    }
}

/// A task set as it is planned: the key path of its source, and the assertions its cases
/// share.
struct SetPlan<'e> {
    set: &'e TaskSet,
    source_key: String,
    assertions: AssertionSet,
}

impl<'e> SetPlan<'e> {
    fn of(set: &'e TaskSet) -> Self {
        let source = match &set.source {
            TaskSource::Path(_) => "path",
            TaskSource::Glob(_) => "glob",
        };
        SetPlan {
            set,
            source_key: format!("{}.{source}", set.key_path),
            assertions: AssertionSet {
                task_set: set.key_path.clone(),
                assertions: Arc::new(set.assertions.clone()),
                faults: Arc::from(set.faults.clone()),
                elicitation: set.elicitation.clone().map(Arc::new),
                sampling: set.sampling.clone().map(Arc::new),
            },
        }
    }
}

/// The files of `lists` in order, each path once (a glob lists a path once).
fn distinct_files(lists: &[Rc<[SetFile]>]) -> Vec<&SetFile> {
    if let [list] = lists {
        return list.iter().collect();
    }
    let mut seen = HashSet::new();
    let all = lists.iter().flat_map(|list| list.iter());
    all.filter(|file| seen.insert(&file.path)).collect()
}

/// An error for every case whose name an earlier case already has, and for every case
/// whose file stem (results, snapshot, cassette) an earlier case with another name has.
fn duplicate_name_errors(eval: &str, cases: &[TaskCase]) -> Vec<ConfigError> {
    let mut errors = Vec::new();
    let mut first_with_name: BTreeMap<&str, &TaskCase> = BTreeMap::new();
    let mut first_with_stem: BTreeMap<String, &TaskCase> = BTreeMap::new();
    let prefix = format!("{eval}::");
    for case in cases {
        let error = |message: String| ConfigError {
            file: case.path.clone(),
            location: task_name_location(&case.path),
            key_path: "metadata.name".into(),
            message,
        };
        if let Some(first) = first_with_name.insert(&case.name, case) {
            errors.push(error(format!(
                "duplicate task name: test `{}` is also {}; task names must be unique within an eval",
                case.name,
                first.path.display()
            )));
            continue;
        }
        let task = case.name.strip_prefix(&prefix).unwrap_or(&case.name);
        let stem = file_stem(eval, task);
        if let Some(first) = first_with_stem.insert(stem.clone(), case) {
            errors.push(error(format!(
                "tests `{}` and `{}` ({}) would write one results file `{stem}.json`; rename one of them",
                case.name,
                first.name,
                first.path.display()
            )));
        }
    }
    errors
}

fn task_name_location(file: &Path) -> Option<(u64, u64)> {
    let source = std::fs::read_to_string(file).ok()?;
    LocationIndex::build(&source).find("metadata.name")
}
