//! The Eval file: agent, MCP config and task sets with their assertions.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use regex::Regex;
use serde::Deserialize;
use serde::de::IgnoredAny;

use super::agent::definition::Agent;
use super::agent::file::RawAgentRef;
use super::agent::skills::{RawSkillsConfig, check_skills_agent, skill_sources};
use super::assertions::Assertions;
use super::extensions::{ExtensionSpec, RawExtension, validate_extensions};
use super::files::check::{Checker, dir_of};
use super::files::error::{ConfigError, ConfigErrors, did_you_mean};
use super::files::yaml::{LocationIndex, read_file};
use super::judge::{JudgeConfig, RawJudgeConfig};
use super::mcp::{McpConfig, load_mcp_config_with};
use super::mcp_env::{MCP_ENV_VARS, mcp_config_from_env};
use super::task::definition::{Limits, RawLimits};
use super::task_set::{RawTaskSet, TaskSet, task_sets};
use super::variants::{RawVariant, Variant, VariantContext, variants};
use crate::llm::pricing::{ModelPrice, PRICING_VAR, PriceTable};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEval {
    kind: String,
    #[serde(rename = "apiVersion")]
    _api_version: Option<String>,
    metadata: RawEvalMetadata,
    config: RawEvalConfig,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEvalMetadata {
    name: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawEvalConfig {
    agent: Option<RawAgentRef>,
    mcp_config_file: Option<String>,
    task_sets: Option<Vec<RawTaskSet>>,
    runs: Option<i64>,
    #[serde(default)]
    parallel: bool,
    llm_judge: Option<RawJudgeConfig>,
    default_task_limits: Option<RawLimits>,
    snapshot: Option<String>,
    replay: Option<RawReplay>,
    extensions: Option<BTreeMap<String, RawExtension>>,
    sources: Option<IgnoredAny>,
    skills: Option<RawSkillsConfig>,
    variants: Option<Vec<RawVariant>>,
    pricing: Option<Vec<ModelPrice>>,
}

/// `config.replay` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawReplay {
    #[serde(default)]
    ignore: Vec<String>,
}

/// A loaded and validated eval.
#[derive(Debug, Clone)]
pub struct Eval {
    /// The eval file.
    pub path: PathBuf,
    /// `metadata.name`: the first part of every test name.
    pub name: String,
    /// The agent that works the tasks.
    pub agent: Agent,
    /// The MCP servers.
    pub mcp: McpConfig,
    /// The task sets, in order.
    pub task_sets: Vec<TaskSet>,
    /// The LLM judge for `llmJudge` steps.
    pub llm_judge: Option<JudgeConfig>,
    /// `defaultTaskLimits`: limits of tasks that set none.
    pub default_limits: Limits,
    /// `snapshot`: what a changed call trace means (default `review`).
    pub snapshot: SnapshotMode,
    /// `runs`: how often each task runs (a task's `metadata.runs` wins).
    pub runs: Option<u32>,
    /// `parallel`: every task of the eval may run alongside other parallel tasks.
    pub parallel: bool,
    /// `replay.ignore`: patterns masked in LLM requests before they are matched against a
    /// cassette (timestamps or random ids in a server's answers).
    pub replay_ignore: Vec<Regex>,
    /// `config.skills.sources`: directories whose contents are copied into the agent's
    /// working directory at its skills' `mountPath`.
    pub skill_sources: Vec<PathBuf>,
    /// `extensions`: mcpchecker extensions by name, started when a task's step first needs
    /// them.
    pub extensions: BTreeMap<String, ExtensionSpec>,
    /// `variants`: the ways each task runs (none: once, as written). One of them is the
    /// baseline.
    pub variants: Vec<Arc<Variant>>,
    /// The variant this eval value runs ([`Eval::for_variant`]); `None` for the eval as
    /// written.
    pub variant: Option<Arc<Variant>>,
    /// `pricing`, after the entries of the file `$MCPEVAL_PRICING` names: the user's
    /// prices, which win over the ones mcpeval ships.
    pub pricing: Vec<ModelPrice>,
    pub(crate) locations: LocationIndex,
}

impl Eval {
    /// The directory relative paths of the eval resolve against.
    pub fn dir(&self) -> &Path {
        super::files::check::dir_of(&self.path)
    }

    /// The prices its runs are costed with: its `pricing` (the user's), then mcpeval's.
    pub fn prices(&self) -> PriceTable {
        PriceTable::builtin().with(&self.pricing)
    }

    /// The eval as `variant` runs it: its agent, its MCP config (none with `servers: none`,
    /// which also has no snapshot: there are no calls to keep).
    pub fn for_variant(&self, variant: &Arc<Variant>) -> Eval {
        let mut eval = self.clone();
        if let Some(agent) = &variant.agent {
            eval.agent = agent.clone();
        }
        if variant.no_servers {
            eval.mcp.servers.clear();
            eval.snapshot = SnapshotMode::Off;
        } else if let Some(mcp) = &variant.mcp {
            eval.mcp = mcp.clone();
        }
        eval.variant = Some(variant.clone());
        eval
    }

    /// The file stem of its task `task` (with the variant this value runs):
    /// `<eval>__<task>` or `<eval>__<task>@<variant>` (see [`crate::plumbing::file_stem`]).
    pub fn stem(&self, task: &str) -> String {
        let variant = self.variant.as_ref().map(|v| v.name.as_str());
        crate::plumbing::file_stem::variant_file_stem(&self.name, task, variant)
    }

    /// The test name of its task `task`: `<eval>::<task>`, or `<eval>::<task>@<variant>`.
    pub fn test_name(&self, task: &str) -> String {
        match &self.variant {
            Some(variant) => format!("{}::{task}@{}", self.name, variant.name),
            None => format!("{}::{task}", self.name),
        }
    }
}

/// What a changed trace means, chosen by the eval's `config.snapshot`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SnapshotMode {
    /// A changed or new trace fails the test (deterministic agents).
    Strict,
    /// A changed trace is written as `.snap.new` for review; the test passes (live agents).
    #[default]
    Review,
    /// No snapshot.
    Off,
}

/// Loads and validates the eval file at `path`, with its MCP config and agent file;
/// `${VAR}` in the MCP config expands from the process environment.
pub fn load_eval(path: &Path) -> Result<Eval, ConfigErrors> {
    load_eval_with(path, &|name| std::env::var(name).ok())
}

/// Like [`load_eval`], with `${VAR}` expanded by `lookup`.
pub fn load_eval_with(
    path: &Path,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<Eval, ConfigErrors> {
    let parsed = read_file::<RawEval>(path)?;
    let raw = parsed.value;
    let mut check = Checker::new(path, &parsed.locations);
    let name = eval_name(&mut check, &raw);
    let config = raw.config;
    let skill_sources = skill_sources(&mut check, config.skills);
    let has_skills = !skill_sources.is_empty();
    let mcp = load_mcp(
        &mut check,
        config.mcp_config_file.as_deref(),
        has_skills,
        lookup,
    );
    let agent = eval_agent(&mut check, config.agent);
    let llm_judge = config.llm_judge.and_then(|j| j.validate(&mut check));
    let default_limits = config
        .default_task_limits
        .map(|l| l.validate(&mut check, "config.defaultTaskLimits"))
        .unwrap_or_default();

    let snapshot = snapshot_mode(&mut check, config.snapshot.as_deref());
    let replay_ignore = replay_ignore(&mut check, config.replay.unwrap_or_default());
    let runs = runs(&mut check, config.runs);
    let server_names = mcp.as_ref().map(McpConfig::server_names);
    let task_sets = task_sets(&mut check, config.task_sets, server_names.as_deref());
    if let Some(agent) = &agent {
        check_skills_agent(&mut check, agent, has_skills, assertions_of(&task_sets));
    }
    let extensions = validate_extensions(&mut check, config.extensions, dir_of(path));
    let mcp_file = config.mcp_config_file.as_deref();
    let reload_mcp = |check: &mut Checker<'_>, env: &[(String, String)]| {
        let lookup = |name: &str| {
            (env.iter().rev().find(|(k, _)| k == name))
                .map(|(_, v)| v.clone())
                .or_else(|| lookup(name))
        };
        // When the eval's own MCP config did not load, its errors were reported already.
        let mut scratch = Checker::new(path, &parsed.locations);
        let reloaded = load_mcp(&mut scratch, mcp_file, has_skills, &lookup);
        if mcp.is_some()
            && let Err(errors) = scratch.finish(())
        {
            check.extend(errors);
        }
        reloaded
    };
    let context = VariantContext {
        servers: server_names
            .as_ref()
            .map(|names| names.iter().map(|n| (*n).to_owned()).collect()),
        reload_mcp: &reload_mcp,
    };
    let variants = variants(&mut check, config.variants, &context);
    let file = std::env::var(PRICING_VAR).ok();
    let pricing = pricing(
        &mut check,
        config.pricing.unwrap_or_default(),
        file.as_deref(),
    );
    // A variant's own agent must be able to run the eval's skills, as `config.agent` must.
    for agent in variants.iter().filter_map(|v| v.agent.as_ref()) {
        check_skills_agent(&mut check, agent, has_skills, assertions_of(&task_sets));
    }
    let locations = parsed.locations.clone();
    let (Some(name), Some(agent), Some(mcp)) = (name, agent, mcp) else {
        return Err(check.finish(()).err().unwrap_or_default());
    };
    check.finish(Eval {
        path: path.to_path_buf(),
        name,
        agent,
        mcp,
        task_sets,
        llm_judge,
        default_limits,
        snapshot,
        runs,
        parallel: config.parallel,
        replay_ignore,
        skill_sources,
        extensions,
        variants,
        variant: None,
        pricing,
        locations,
    })
}

/// `config.pricing`, checked, after the entries of `file` (what `$MCPEVAL_PRICING` names).
fn pricing(
    check: &mut Checker<'_>,
    written: Vec<ModelPrice>,
    file: Option<&str>,
) -> Vec<ModelPrice> {
    let mut prices = Vec::new();
    if let Some(file) = file.filter(|file| !file.is_empty()) {
        match PriceTable::read_file(Path::new(&file)) {
            Ok(entries) => prices.extend(entries),
            Err(problem) => check.error("config.pricing", format!("${PRICING_VAR}: {problem}")),
        }
    }
    for (i, entry) in written.iter().enumerate() {
        if let Some((key, problem)) = entry.problem() {
            check.error(format!("config.pricing[{i}].{key}"), problem);
        }
    }
    prices.extend(written);
    prices
}

/// The eval's name (`metadata.name`), its `kind` checked and mcpchecker's keys mcpeval does
/// not support refused.
fn eval_name(check: &mut Checker<'_>, raw: &RawEval) -> Option<String> {
    if raw.kind != "Eval" {
        check.error(
            "kind",
            format!("expected `kind: Eval`, found `{}`", raw.kind),
        );
    }
    let name = check.test_name_part(raw.metadata.name.as_deref());
    let unsupported = [("sources", raw.config.sources.is_some())];
    for (key, _) in unsupported.into_iter().filter(|(_, present)| *present) {
        check.error(
            format!("config.{key}"),
            format!("`{key}` of mcpchecker is not supported by mcpeval yet"),
        );
    }
    name
}

/// `config.agent`, validated; required.
fn eval_agent(check: &mut Checker<'_>, agent: Option<RawAgentRef>) -> Option<Agent> {
    match agent {
        Some(agent) => agent.validate(check),
        None => {
            check.error(
                "config.agent",
                "missing required field; expected e.g. `type: builtin.claude-code`",
            );
            None
        }
    }
}

/// `config.replay.ignore`: each pattern compiled.
fn replay_ignore(check: &mut Checker<'_>, replay: RawReplay) -> Vec<Regex> {
    (replay.ignore.iter().enumerate())
        .filter_map(|(i, pattern)| check.regex(&format!("config.replay.ignore[{i}]"), pattern))
        .collect()
}

/// `config.runs`: 1 or more, when given.
fn runs(check: &mut Checker<'_>, runs: Option<i64>) -> Option<u32> {
    match runs {
        Some(0) => {
            check.error("config.runs", "must be 1 or more");
            None
        }
        Some(n) => check.count("config.runs", n),
        None => None,
    }
}

/// Each task set's assertions with its key path, for the checks of the agent's skills.
fn assertions_of(task_sets: &[TaskSet]) -> impl Iterator<Item = (&str, &Assertions)> {
    task_sets
        .iter()
        .map(|set| (set.key_path.as_str(), &set.assertions))
}

/// The MCP config that `config.mcpConfigFile` names, loaded, or without one the config
/// mcpchecker's environment variables describe, or none at all for an eval with skills; its
/// errors go to `check`.
fn load_mcp(
    check: &mut Checker<'_>,
    file: Option<&str>,
    has_skills: bool,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Option<McpConfig> {
    let key = "config.mcpConfigFile";
    let Some(file) = file else {
        return match mcp_config_from_env(check.file(), lookup) {
            Ok(Some(mcp)) => Some(mcp),
            // As in mcpchecker, an eval with skills needs no MCP server.
            Ok(None) if has_skills => Some(McpConfig {
                path: check.file().to_path_buf(),
                servers: BTreeMap::new(),
            }),
            Ok(None) => {
                check.error(
                    key,
                    format!(
                        "at least one of MCP config or skills must be configured: set `mcpConfigFile`, or describe one server in the environment ({MCP_ENV_VARS}, as mcpchecker reads them)"
                    ),
                );
                None
            }
            Err(message) => {
                check.error(key, format!("no `mcpConfigFile`, and the MCP config in the environment is invalid: {message}"));
                None
            }
        };
    };
    let file = check.non_empty(key, Some(file))?;
    let file = check.existing_file("config.mcpConfigFile", file)?;
    match load_mcp_config_with(&file, lookup) {
        Ok(mcp) => Some(mcp),
        Err(errors) => {
            check.extend(errors);
            None
        }
    }
}

/// `config.snapshot`: `review` when absent.
fn snapshot_mode(check: &mut Checker<'_>, mode: Option<&str>) -> SnapshotMode {
    match mode {
        None | Some("review") => SnapshotMode::Review,
        Some("strict") => SnapshotMode::Strict,
        Some("off") => SnapshotMode::Off,
        Some(other) => {
            check.error(
                "config.snapshot",
                format!(
                    "unknown snapshot mode `{other}`; expected strict, review or off{}",
                    did_you_mean(other, ["strict", "review", "off"])
                ),
            );
            SnapshotMode::Review
        }
    }
}

/// An error for every eval whose `metadata.name` an earlier one (in `evals`: name and
/// file) already has: their test names (`<eval>::<task>`) would collide.
pub fn duplicate_eval_names<'a>(
    evals: impl IntoIterator<Item = (&'a str, &'a Path)>,
) -> Vec<ConfigError> {
    let mut first_of: BTreeMap<&str, &Path> = BTreeMap::new();
    let mut errors = Vec::new();
    for (name, file) in evals {
        match first_of.get(name) {
            Some(first) if *first != file => errors.push(ConfigError {
                file: file.to_path_buf(),
                location: std::fs::read_to_string(file)
                    .ok()
                    .and_then(|source| LocationIndex::build(&source).find("metadata.name")),
                key_path: "metadata.name".into(),
                message: format!(
                    "duplicate eval name `{name}`: {} has it too, and test names `{name}::<task>` would collide; give each eval its own name",
                    first.display()
                ),
            }),
            Some(_) => {}
            None => {
                first_of.insert(name, file);
            }
        }
    }
    errors
}
