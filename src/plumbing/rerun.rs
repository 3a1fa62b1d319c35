//! How a user runs one test again, for the commands that messages print (re-record a
//! cassette, record a missing one): the test binary's own command, so that a copied line
//! runs that one test and no other test binary.

use std::path::{Path, PathBuf};

/// The variable that says how the LLM side uses cassettes (`llm_proxy::RecordMode`).
pub const RECORD_MODE_VAR: &str = "MCPEVAL_RECORD_MODE";

/// One test, and the program that runs it again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rerun {
    /// The test's name (`<eval>::<task>`).
    pub test: String,
    /// Where the test runs.
    pub runner: Runner,
}

/// The program a test runs in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Runner {
    /// A cargo test target: `cargo test --test <target> -- <test> --exact` (without a
    /// known target, `cargo test -- <test> --exact`).
    CargoTest {
        /// The test target's name, as the binary's file name gives it.
        target: Option<String>,
    },
    /// `mcpeval check <files> -- <test> --exact`.
    Check {
        /// The eval files the run was given.
        files: Vec<PathBuf>,
    },
}

impl Default for Runner {
    /// `cargo test`, with no test target named.
    fn default() -> Self {
        Runner::CargoTest { target: None }
    }
}

impl Runner {
    /// The runner of this process: a cargo test binary (its target's name from the
    /// binary's file name, `<target>-<16 hex digits>` in a `deps` folder), else `mcpeval
    /// check` of `files` when the process was given files, else `cargo test`.
    pub fn of_this_process(files: Option<&[PathBuf]>) -> Runner {
        let exe = std::env::current_exe().ok();
        if let Some(target) = exe.as_deref().and_then(cargo_test_target) {
            return Runner::CargoTest {
                target: Some(target),
            };
        }
        match files {
            Some(files) => Runner::Check {
                files: files.to_vec(),
            },
            None => Runner::CargoTest { target: None },
        }
    }
}

impl Rerun {
    /// The command that runs the test again with the record mode `mode`, e.g.
    /// `MCPEVAL_RECORD_MODE=all cargo test --test evals -- acme::sum --exact`.
    pub fn with_record_mode(&self, mode: &str) -> String {
        let test = shell_word(&self.test);
        match &self.runner {
            Runner::CargoTest { target } => {
                let target = target
                    .as_deref()
                    .map(|name| format!(" --test {}", shell_word(name)))
                    .unwrap_or_default();
                format!("{RECORD_MODE_VAR}={mode} cargo test{target} -- {test} --exact")
            }
            Runner::Check { files } => {
                let files: Vec<String> = files
                    .iter()
                    .map(|file| shell_word(&file.to_string_lossy()))
                    .collect();
                format!(
                    "mcpeval check {} --record-mode {mode} -- {test} --exact",
                    files.join(" ")
                )
            }
        }
    }
}

/// The test target a cargo test binary was built from: `deps/<target>-<hash>`.
fn cargo_test_target(exe: &Path) -> Option<String> {
    if exe.parent()?.file_name()? != "deps" {
        return None;
    }
    let stem = exe.file_stem()?.to_str()?;
    let (target, hash) = stem.rsplit_once('-')?;
    let hashed = hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit());
    (hashed && !target.is_empty()).then(|| target.to_owned())
}

/// `word` as one POSIX shell word (`shlex`'s quoting: as it is when no shell treats any of
/// its characters specially, else quoted). A NUL, which no shell word or program argument
/// can hold, is written as the two characters `\0`, so the line stays readable.
fn shell_word(word: &str) -> String {
    let readable = word.replace('\0', r"\0");
    match shlex::try_quote(&readable) {
        Ok(quoted) => quoted.into_owned(),
        // shlex refuses a NUL only, and there is none left; should a later version refuse
        // more, single quotes still make one POSIX word of it.
        Err(_) => format!("'{}'", readable.replace('\'', r"'\''")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rerun(test: &str, runner: Runner) -> Rerun {
        Rerun {
            test: test.to_owned(),
            runner,
        }
    }

    #[test]
    fn a_cargo_test_binary_names_its_target() {
        let exe = Path::new("/w/target/debug/deps/evals-0123456789abcdef");
        assert_eq!(cargo_test_target(exe).as_deref(), Some("evals"));
        let exe = Path::new("/w/target/debug/deps/my_evals-0123456789abcdef");
        assert_eq!(cargo_test_target(exe).as_deref(), Some("my_evals"));
        // Not a test binary: an installed program, or no hash.
        assert_eq!(cargo_test_target(Path::new("/usr/bin/mcpeval")), None);
        assert_eq!(
            cargo_test_target(Path::new("/w/target/debug/deps/evals")),
            None
        );
        assert_eq!(
            cargo_test_target(Path::new("/w/target/debug/mcpeval-0123456789abcdef")),
            None
        );
    }

    #[test]
    fn the_commands_name_the_test_binary_and_the_one_test() {
        let cargo = rerun(
            "acme::sum",
            Runner::CargoTest {
                target: Some("evals".into()),
            },
        );
        assert_eq!(
            cargo.with_record_mode("all"),
            "MCPEVAL_RECORD_MODE=all cargo test --test evals -- acme::sum --exact"
        );
        let unknown = rerun("acme::sum", Runner::CargoTest { target: None });
        assert_eq!(
            unknown.with_record_mode("once"),
            "MCPEVAL_RECORD_MODE=once cargo test -- acme::sum --exact"
        );
        let check = rerun(
            "acme::two words",
            Runner::Check {
                files: vec!["evals/acme/eval.yaml".into(), "my evals/e.yaml".into()],
            },
        );
        assert_eq!(
            check.with_record_mode("all"),
            "mcpeval check evals/acme/eval.yaml 'my evals/e.yaml' --record-mode all -- \
             'acme::two words' --exact"
        );
    }

    #[test]
    fn a_shell_word_splits_back_into_the_word() {
        for word in [
            "acme::sum",
            "acme::two words",
            "it's",
            r#"say "hi" \ $HOME `id` ; & | < > * ? [x] ~ # ! ^ { } , = %"#,
            "tab\tand\nnewline",
            "",
            "é ü 日本",
        ] {
            let quoted = shell_word(word);
            assert_eq!(
                shlex::split(&quoted),
                Some(vec![word.to_owned()]),
                "{word:?} quoted as {quoted}"
            );
        }
        assert_eq!(shell_word("acme::sum"), "acme::sum");
        assert_eq!(shell_word("it's"), r#""it's""#);
    }

    #[test]
    fn a_nul_is_written_as_backslash_zero() {
        let quoted = shell_word("a\0b");
        assert_eq!(
            shlex::split(&quoted),
            Some(vec![r"a\0b".to_owned()]),
            "{quoted}"
        );
    }
}
