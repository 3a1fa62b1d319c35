//! Links on the page: a run's anchor (what a link to the run points at, `demo::add@2`), and
//! a run's results file as a link from the page, for the texts the page cuts: relative to
//! the page's directory (`results/demo__add.json`, `../out/results/demo__add.json`) when
//! the two share a directory below the file system's root, else an absolute `file://` URL.
//! Paths are compared as written (made absolute, `.` and `..` folded), as a browser
//! resolves a relative link: symbolic links are not followed.

use std::path::{Component, Path, PathBuf};

use serde::Serialize;
use url::Url;

use crate::report::results::TaskResult;

/// A task run's anchor: its test name, `@k` for the k-th of several runs.
pub fn anchor(result: &TaskResult) -> String {
    match result.run_index {
        Some(index) if result.total_runs.is_some_and(|n| n > 1) => {
            format!("{}@{}", result.test_name, index + 1)
        }
        _ => result.test_name.clone(),
    }
}

/// A link to a file.
#[derive(Debug, PartialEq, Serialize)]
pub(super) struct FileLink {
    /// The URL: relative to the page, or absolute.
    pub(super) href: String,
    /// The path as shown: relative to the page's directory, or absolute.
    pub(super) text: String,
}

/// The link from a page in `page_dir` to `file`; either path, when relative, is read from
/// `base`. None when no URL can name the file.
pub(super) fn file_link(file: &Path, page_dir: &Path, base: &Path) -> Option<FileLink> {
    let file = absolute(file, base);
    let dir = absolute(page_dir, base);
    let absolute_url = Url::from_file_path(&file).ok()?;
    let root = dir.components().take_while(is_root).count();
    let shared = (file.components().zip(dir.components()))
        .take_while(|(a, b)| a == b)
        .count();
    let relative = (shared > root)
        .then(|| {
            Url::from_directory_path(&dir)
                .ok()?
                .make_relative(&absolute_url)
        })
        .flatten();
    Some(match relative {
        Some(href) => {
            let ups = dir.components().count() - shared;
            let text: PathBuf = std::iter::repeat_n(Component::ParentDir, ups)
                .chain(file.components().skip(shared))
                .collect();
            FileLink {
                href,
                text: text.display().to_string(),
            }
        }
        None => FileLink {
            href: absolute_url.into(),
            text: file.display().to_string(),
        },
    })
}

fn is_root(component: &Component<'_>) -> bool {
    matches!(component, Component::Prefix(_) | Component::RootDir)
}

/// `path` joined to `base` when relative, with `.` and `..` folded as written.
fn absolute(path: &Path, base: &Path) -> PathBuf {
    let mut folded = PathBuf::new();
    for component in base.join(path).components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !folded.pop() {
                    folded.push(component);
                }
            }
            other => folded.push(other),
        }
    }
    folded
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::{FileLink, file_link};

    fn link(file: &str, page_dir: &str) -> FileLink {
        file_link(
            Path::new(file),
            Path::new(page_dir),
            Path::new("/work/crate"),
        )
        .unwrap()
    }

    fn relative(href: &str, text: &str) -> FileLink {
        FileLink {
            href: href.to_owned(),
            text: text.to_owned(),
        }
    }

    #[test]
    fn a_results_file_below_the_page_is_linked_relative_to_it() {
        let expected = relative("results/demo__add.json", "results/demo__add.json");
        assert_eq!(link("/out/results/demo__add.json", "/out"), expected);
        assert_eq!(link("out/results/demo__add.json", "out"), expected);
        assert_eq!(link("./out/x/../results/demo__add.json", "out/"), expected);
        assert_eq!(
            link("/work/crate/out/results/demo__add.json", "out"),
            expected
        );
    }

    #[test]
    fn a_results_file_beside_the_page_s_directory_is_linked_through_its_parent() {
        assert_eq!(
            link("target/out/results/a__b.json", "target/merged"),
            relative("../out/results/a__b.json", "../out/results/a__b.json")
        );
    }

    #[test]
    fn names_are_percent_encoded_in_the_href_only() {
        assert_eq!(
            link("my out/results/a#b.json", "."),
            relative("my%20out/results/a%23b.json", "my out/results/a#b.json")
        );
    }

    #[test]
    fn a_file_sharing_only_the_root_with_the_page_is_an_absolute_url() {
        assert_eq!(
            link("/tmp/run/results/a__b.json", "/home/me/pages"),
            FileLink {
                href: "file:///tmp/run/results/a__b.json".to_owned(),
                text: "/tmp/run/results/a__b.json".to_owned(),
            }
        );
    }
}
