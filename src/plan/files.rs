//! What planning reads from disk, each once per plan however many task sets name it: the
//! files of a glob, the header of a task file, the canonical path that tells when two task
//! sets name one file.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use super::glob::{SetFile, glob_set_files};
use crate::config::{ConfigError, TaskHeader, read_task_header, task_header};

/// A task file's header as read: `Ok(None)` when the file is no task.
pub(super) type HeaderRead = Result<Option<TaskHeader>, ConfigError>;

/// The files, headers and canonical paths read so far.
pub(super) struct TaskFiles {
    /// The eval's directory, where relative globs start.
    base: PathBuf,
    globs: HashMap<String, Result<Rc<[SetFile]>, String>>,
    headers: HashMap<PathBuf, Rc<HeaderRead>>,
    /// Canonical directories (`None`: the directory does not resolve).
    dirs: HashMap<PathBuf, Option<PathBuf>>,
}

impl TaskFiles {
    pub fn new(base: &Path) -> Self {
        TaskFiles {
            base: base.to_path_buf(),
            globs: HashMap::new(),
            headers: HashMap::new(),
            dirs: HashMap::new(),
        }
    }

    /// The files `glob` matches, sorted (see [`super::glob_files`]).
    pub fn glob(&mut self, glob: &str) -> Result<Rc<[SetFile]>, String> {
        let base = &self.base;
        self.globs
            .entry(glob.to_owned())
            .or_insert_with(|| glob_set_files(base, glob).map(Rc::from))
            .clone()
    }

    /// The header of `file`.
    pub fn header(&mut self, file: &Path) -> Rc<HeaderRead> {
        if let Some(header) = self.headers.get(file) {
            return header.clone();
        }
        let header = Rc::new(read_task_header(file));
        self.headers.insert(file.to_path_buf(), header.clone());
        header
    }

    /// Reads the headers of `files` (distinct) not read yet, on every core: a large eval's
    /// planning is mostly parsing its task files.
    pub fn read_headers<'a>(&mut self, files: impl Iterator<Item = &'a Path>) {
        let unread: Vec<&Path> = files.filter(|f| !self.headers.contains_key(*f)).collect();
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let chunk = unread.len().div_ceil(threads).max(64);
        let read: Vec<Vec<HeaderRead>> = std::thread::scope(|scope| {
            let workers: Vec<_> = unread
                .chunks(chunk)
                .map(|files| scope.spawn(|| files.iter().map(|f| read_task_header(f)).collect()))
                .collect();
            workers
                .into_iter()
                .map(|worker| worker.join().expect("reading headers does not panic"))
                .collect()
        });
        for (file, header) in unread.into_iter().zip(read.into_iter().flatten()) {
            self.headers.insert(file.to_path_buf(), Rc::new(header));
        }
    }

    /// Whether `file` is a task named `task`. Its text is parsed only when `task` may be
    /// written in it: a name stands in the text as itself unless an escape (`\`), a quote
    /// doubled within single quotes or a folded line (whitespace) writes it otherwise.
    pub fn has_task_name(&mut self, file: &Path, task: &str) -> bool {
        let header = match self.headers.get(file) {
            Some(header) => header.clone(),
            None => {
                let Ok(source) = std::fs::read_to_string(file) else {
                    return false;
                };
                let may_name = source.contains(task)
                    || source.contains('\\')
                    || task.contains(|c: char| c == '\'' || c.is_whitespace());
                if !may_name {
                    return false;
                }
                let header = Rc::new(task_header(file, &source));
                self.headers.insert(file.to_path_buf(), header.clone());
                header
            }
        };
        matches!(&*header, Ok(Some(header)) if header.name.as_deref() == Some(task))
    }

    /// Whether `a` and `b` are one file (compared as canonical paths).
    pub fn same_file(&mut self, a: &SetFile, b: &SetFile) -> bool {
        if bytes(a) == bytes(b) {
            return true;
        }
        // A plain file's canonical path ends with its own name.
        if a.plain
            && b.plain
            && let (Some(a_name), Some(b_name)) = (last_name(bytes(a)), last_name(bytes(b)))
            && a_name != b_name
        {
            return false;
        }
        self.canonical(a) == self.canonical(b)
    }

    /// The canonical path of `file` (its path as written when it does not resolve).
    pub fn canonical(&mut self, file: &SetFile) -> PathBuf {
        if file.plain
            && let (Some(dir), Some(name)) = (file.path.parent(), file.path.file_name())
            && let Some(dir) = self.canonical_dir(dir)
        {
            return dir.join(name);
        }
        std::fs::canonicalize(&file.path).unwrap_or_else(|_| file.path.clone())
    }

    fn canonical_dir(&mut self, dir: &Path) -> Option<PathBuf> {
        if let Some(canonical) = self.dirs.get(dir) {
            return canonical.clone();
        }
        let canonical = std::fs::canonicalize(dir).ok();
        self.dirs.insert(dir.to_path_buf(), canonical.clone());
        canonical
    }
}

fn bytes(file: &SetFile) -> &[u8] {
    file.path.as_os_str().as_encoded_bytes()
}

/// The last component of a path, when it is a name (not `.`, `..` or empty).
fn last_name(path: &[u8]) -> Option<&[u8]> {
    let name = path.rsplit(|&byte| byte == b'/').next()?;
    (!matches!(name, b"" | b"." | b"..")).then_some(name)
}
