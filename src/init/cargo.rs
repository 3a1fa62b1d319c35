//! The Rust crate parts of `mcpeval init`: the crate's binaries (`cargo metadata`), the
//! chosen one built (`cargo build`) unless its variable already names it, `tests/evals.rs`,
//! and the `Cargo.toml` lines, added with toml_edit so that the file keeps its formatting
//! and comments (or printed, `--print-cargo`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;
use toml_edit::{ArrayOfTables, DocumentMut, Item, Table, value};

use super::InitError;
use super::dependency::{Dependency, PACKAGE};
use crate::plumbing::cargo_metadata::Metadata;
use crate::plumbing::process::{ProcessSpec, run};

/// Bound on `cargo metadata`.
const METADATA_TIMEOUT: Duration = Duration::from_secs(120);

/// Bound on building the server binary.
const BUILD_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// The package in a directory, as `cargo metadata` describes it.
#[derive(Debug, Clone)]
pub struct ServerPackage {
    /// Its `Cargo.toml`.
    pub manifest: PathBuf,
    /// The package's name.
    pub name: String,
    /// Its binary targets, sorted.
    pub bins: Vec<String>,
}

/// The package whose manifest is `<dir>/Cargo.toml`.
pub async fn package(dir: &Path) -> Result<ServerPackage, InitError> {
    let manifest = dir.join("Cargo.toml");
    let cargo_error = |message: String| InitError::Cargo {
        manifest: manifest.clone(),
        message,
    };
    let finished = run(
        &cargo_spec(
            dir,
            &[
                "metadata",
                "--no-deps",
                "--format-version",
                "1",
                "--manifest-path",
                &manifest.display().to_string(),
            ],
        ),
        METADATA_TIMEOUT,
    )
    .await
    .map_err(|e| cargo_error(format!("cannot run cargo metadata: {e}")))?;
    if !finished.success() {
        return Err(cargo_error(format!(
            "cargo metadata failed ({}): {}",
            finished.describe(METADATA_TIMEOUT),
            finished.stderr.trim()
        )));
    }
    let metadata = Metadata::parse(finished.stdout.as_bytes())
        .map_err(|e| cargo_error(format!("cannot read cargo metadata's answer: {e}")))?;
    let wanted = std::fs::canonicalize(&manifest).unwrap_or_else(|_| manifest.clone());
    let found = metadata
        .packages
        .iter()
        .find(|p| std::fs::canonicalize(&p.manifest_path).is_ok_and(|m| m == wanted));
    let Some(found) = found else {
        return Err(cargo_error(
            "it is a workspace without a [package]: run mcpeval init in the server's package \
             directory, or pass --command or --url"
                .to_owned(),
        ));
    };
    let mut bins: Vec<String> = found.bins().map(|target| target.name.clone()).collect();
    bins.sort();
    Ok(ServerPackage {
        manifest,
        name: found.name.clone(),
        bins,
    })
}

/// The binary to start: `--bin NAME`, else the package's only one.
pub fn choose_bin(package: &ServerPackage, requested: Option<&str>) -> Result<String, InitError> {
    let error =
        |message: String| InitError::Usage(format!("{}: {message}", package.manifest.display()));
    let names = package.bins.join(", ");
    match (requested, package.bins.as_slice()) {
        (Some(bin), bins) if bins.iter().any(|b| b == bin) => Ok(bin.to_owned()),
        (Some(bin), []) => Err(error(format!(
            "package {} has no binary, so no `{bin}`; pass --command or --url",
            package.name
        ))),
        (Some(bin), _) => Err(error(format!(
            "package {} has no binary `{bin}`; its binaries: {names}",
            package.name
        ))),
        (None, [only]) => Ok(only.clone()),
        (None, []) => Err(error(format!(
            "package {} has no binary (no [[bin]], src/main.rs or src/bin/); pass --command \
             \"<cmd> <args>\" or --url URL",
            package.name
        ))),
        (None, _) => Err(error(format!(
            "package {} has {} binaries: {names}; say which is the MCP server with --bin NAME",
            package.name,
            package.bins.len()
        ))),
    }
}

/// `cargo build --bin <bin>`; the built executable.
pub async fn build(package: &ServerPackage, bin: &str) -> Result<PathBuf, InitError> {
    let dir = package.manifest.parent().unwrap_or(Path::new("."));
    let manifest = package.manifest.display().to_string();
    let args = [
        "build",
        "--manifest-path",
        &manifest,
        "--bin",
        bin,
        "--message-format",
        "json-render-diagnostics",
    ];
    let error = |message: String| InitError::Cargo {
        manifest: package.manifest.clone(),
        message,
    };
    eprintln!("mcpeval init: cargo build --bin {bin}");
    let finished = run(&cargo_spec(dir, &args), BUILD_TIMEOUT)
        .await
        .map_err(|e| error(format!("cannot run cargo build: {e}")))?;
    if !finished.success() {
        let tail = crate::plumbing::text::shorten(finished.stderr.trim(), 4000);
        return Err(error(format!(
            "cargo build --bin {bin} failed ({}):\n{tail}",
            finished.describe(BUILD_TIMEOUT)
        )));
    }
    finished
        .stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == bin)
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .ok_or_else(|| error(format!("cargo build --bin {bin} named no executable")))
}

fn cargo_spec(dir: &Path, args: &[&str]) -> ProcessSpec {
    ProcessSpec {
        program: std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()),
        args: args.iter().map(Into::into).collect(),
        env: Vec::new(),
        cwd: dir.to_path_buf(),
        live: false,
    }
}

/// `tests/evals.rs`: every eval under `evals/` as a test; with the server binary's
/// variable and name, the line that hands its path to the MCP config.
pub fn evals_rs(binary: Option<(&str, &str)>) -> String {
    let mut out = String::from(
        "//! The evals under evals/ as tests, one per task: `cargo test --test evals`\n\
         //! (written by `mcpeval init`).\n\
         fn main() -> std::process::ExitCode {\n    mcpeval::Harness::discover(\"evals\")\n",
    );
    if let Some((var, bin)) = binary {
        out.push_str(&format!(
            "        .env(\"{var}\", env!(\"CARGO_BIN_EXE_{bin}\"))\n"
        ));
    }
    out.push_str("        .run()\n}\n");
    out
}

/// What `Cargo.toml` still lacks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Missing {
    /// `mcpeval-harness` in `[dev-dependencies]` (nor in `[dependencies]`; under its own
    /// key, as `mcpeval`, or renamed with `package = "mcpeval-harness"`).
    pub dev_dependency: bool,
    /// A `[[test]]` named `evals`.
    pub test_target: bool,
    /// `[profile.dev.package.mcpeval-harness]` (only a workspace root's profiles count:
    /// [`is_workspace_root`] decides whether to write it).
    pub profile: bool,
}

/// The profile `init` writes for mcpeval's own code: without debug info its cold build takes
/// a third less time (tests/bench/dependency-cost.sh); a backtrace still names its functions.
const PROFILE_COMMENT: &str =
    "\n# mcpeval's own code without debug info: a third quicker to build (mcpeval init).\n";

/// Reads `Cargo.toml`'s text.
pub fn parse_manifest(manifest: &Path, text: &str) -> Result<DocumentMut, InitError> {
    text.parse::<DocumentMut>().map_err(|e| InitError::Cargo {
        manifest: manifest.to_path_buf(),
        message: format!("cannot read it as TOML: {e}"),
    })
}

/// What `doc` lacks; a warning when its `[[test]] evals` is not `harness = false`.
pub fn missing(doc: &DocumentMut) -> (Missing, Option<String>) {
    let has_dep = ["dev-dependencies", "dev_dependencies", "dependencies"]
        .iter()
        .any(|key| {
            doc.get(key)
                .and_then(Item::as_table_like)
                .is_some_and(|table| table.iter().any(|(name, item)| is_mcpeval(name, item)))
        });
    let evals = test_targets(doc).find(|t| t.get("name").and_then(Item::as_str) == Some("evals"));
    let warning = evals
        .filter(|t| t.get("harness").and_then(Item::as_bool) != Some(false))
        .map(|_| {
            "Cargo.toml has a [[test]] named evals without `harness = false`: add it, or \
             libtest's harness replaces mcpeval's"
                .to_owned()
        });
    let has_profile = ["profile", "dev", "package", PACKAGE]
        .iter()
        .try_fold(doc.as_item(), |item, key| item.get(key))
        .is_some();
    (
        Missing {
            dev_dependency: !has_dep,
            test_target: evals.is_none(),
            profile: !has_profile,
        },
        warning,
    )
}

/// Whether the manifest `doc` in `crate_dir` is its workspace's root, where cargo reads
/// profiles (a member's are ignored with a warning): it has a `[workspace]`, or it names no
/// root (`package.workspace`) and no directory above it has a manifest with `[workspace]`.
pub fn is_workspace_root(crate_dir: &Path, doc: &DocumentMut) -> bool {
    if doc.contains_key("workspace") {
        return true;
    }
    if doc
        .get("package")
        .and_then(|p| p.get("workspace"))
        .is_some()
    {
        return false;
    }
    !crate_dir.ancestors().skip(1).any(|dir| {
        std::fs::read_to_string(dir.join("Cargo.toml"))
            .ok()
            .and_then(|text| text.parse::<DocumentMut>().ok())
            .is_some_and(|above| above.contains_key("workspace"))
    })
}

/// Whether the dependency `name = item` is mcpeval: `mcpeval-harness`, `mcpeval` (a path or
/// git dependency from before the package had its own name), or any key with
/// `package = "mcpeval-harness"`.
fn is_mcpeval(name: &str, item: &Item) -> bool {
    let package = item
        .as_table_like()
        .and_then(|table| table.get("package"))
        .and_then(Item::as_str);
    match package {
        Some(package) => package == PACKAGE,
        None => name == PACKAGE || name == "mcpeval",
    }
}

fn test_targets(doc: &DocumentMut) -> impl Iterator<Item = &Table> {
    doc.get("test")
        .and_then(Item::as_array_of_tables)
        .into_iter()
        .flat_map(ArrayOfTables::iter)
}

/// Adds what is `missing` to `doc`, the manifest of the crate in `crate_dir` (absolute),
/// leaving everything else as written.
pub fn add_missing(
    doc: &mut DocumentMut,
    manifest: &Path,
    missing: Missing,
    dependency: &Dependency,
    crate_dir: &Path,
) -> Result<(), InitError> {
    let error = |message: &str| InitError::Cargo {
        manifest: manifest.to_path_buf(),
        message: message.to_owned(),
    };
    if missing.dev_dependency {
        let key = if doc.contains_key("dev_dependencies") && !doc.contains_key("dev-dependencies") {
            "dev_dependencies"
        } else {
            "dev-dependencies"
        };
        let dev = doc
            .entry(key)
            .or_insert_with(|| Item::Table(Table::new()))
            .as_table_like_mut()
            .ok_or_else(|| error("[dev-dependencies] is not a table"))?;
        dev.insert(PACKAGE, dependency.item(crate_dir));
    }
    if missing.test_target {
        let tests = doc
            .entry("test")
            .or_insert_with(|| Item::ArrayOfTables(ArrayOfTables::new()))
            .as_array_of_tables_mut()
            .ok_or_else(|| error("`test` is not an array of [[test]] tables"))?;
        let mut table = Table::new();
        table.decor_mut().set_prefix(
            "\n# The evals under evals/ as tests: `cargo test --test evals` (mcpeval init).\n",
        );
        table.insert("name", value("evals"));
        table.insert("harness", value(false));
        tests.push(table);
    }
    if missing.profile {
        let mut parent = doc.as_table_mut();
        for key in ["profile", "dev", "package"] {
            parent = parent
                .entry(key)
                .or_insert_with(|| {
                    let mut table = Table::new();
                    table.set_implicit(true);
                    Item::Table(table)
                })
                .as_table_mut()
                .ok_or_else(|| error(&format!("`{key}` under [profile] is not a table")))?;
        }
        let mut table = Table::new();
        table.decor_mut().set_prefix(PROFILE_COMMENT);
        table.insert("debug", value(false));
        parent.insert(PACKAGE, Item::Table(table));
    }
    Ok(())
}

/// The lines `--print-cargo` prints for what is `missing`.
pub fn cargo_lines(missing: Missing, dependency: &Dependency, crate_dir: &Path) -> String {
    let mut blocks = Vec::new();
    if missing.dev_dependency {
        blocks.push(format!(
            "[dev-dependencies]\n{}\n",
            dependency.line(crate_dir)
        ));
    }
    if missing.test_target {
        blocks.push("[[test]]\nname = \"evals\"\nharness = false\n".to_owned());
    }
    if missing.profile {
        blocks.push(format!(
            "{}[profile.dev.package.{PACKAGE}]\ndebug = false\n",
            PROFILE_COMMENT.trim_start()
        ));
    }
    if blocks.is_empty() {
        return "# Cargo.toml already has mcpeval-harness and the [[test]] evals\n".to_owned();
    }
    blocks.join("\n")
}

#[cfg(test)]
#[path = "cargo_tests.rs"]
mod tests;
