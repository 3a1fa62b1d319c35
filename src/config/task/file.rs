//! Task files (`kind: Task`) in both mcpchecker versions: v1alpha1 (`steps`) and v1alpha2
//! (`spec`), their raw serde forms validated into one [`Task`].

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use serde::de::IgnoredAny;

use super::definition::{Difficulty, FollowUp, Limits, RawLimits, Task, TaskContext, TaskVersion};
use super::elicitation::{RawElicitation, elicitation_script};
use super::faults::{RawFaultRule, fault_rules};
use super::sampling::{RawSampling, sampling_script};
use super::steps::{RawJudge, RawScript, RawStepEntry, Step, TaskStep};
use crate::config::assertions::block::RawAssertions;
use crate::config::extensions::{RawRequirement, validate_requires};
use crate::config::files::check::Checker;
use crate::config::files::error::{ConfigErrors, did_you_mean};
use crate::config::files::yaml::read_file;

const V1: &str = "mcpchecker/v1alpha1";
const V2: &str = "mcpchecker/v1alpha2";

#[derive(Debug, Deserialize)]
struct RawVersion {
    #[serde(rename = "apiVersion")]
    api_version: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawTaskV1 {
    kind: String,
    #[serde(rename = "apiVersion")]
    _api_version: Option<String>,
    metadata: RawTaskMetadata,
    #[serde(default)]
    steps: RawStepsV1,
    spec: Option<IgnoredAny>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStepsV1 {
    setup: Option<RawScript>,
    prompt: Option<RawPrompt>,
    verify: Option<RawVerifyV1>,
    cleanup: Option<RawScript>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawVerifyV1 {
    file: Option<String>,
    inline: Option<String>,
    contains: Option<String>,
    exact: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawTaskV2 {
    kind: String,
    #[serde(rename = "apiVersion")]
    _api_version: String,
    metadata: RawTaskMetadata,
    spec: Option<RawSpecV2>,
    steps: Option<IgnoredAny>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawSpecV2 {
    #[serde(default)]
    requires: Vec<RawRequirement>,
    limits: Option<RawLimits>,
    #[serde(default)]
    setup: Vec<RawStepEntry>,
    #[serde(default)]
    verify: Vec<RawStepEntry>,
    #[serde(default)]
    cleanup: Vec<RawStepEntry>,
    prompt: Option<RawPrompt>,
    #[serde(default)]
    faults: Vec<RawFaultRule>,
    elicitation: Option<RawElicitation>,
    sampling: Option<RawSampling>,
    #[serde(default)]
    follow_ups: Vec<RawFollowUp>,
    #[serde(default)]
    continue_on_failure: bool,
}

/// One `spec.followUps` entry as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFollowUp {
    prompt: Option<RawPrompt>,
    #[serde(default)]
    verify: Vec<RawStepEntry>,
    assertions: Option<RawAssertions>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTaskMetadata {
    name: Option<String>,
    difficulty: Option<String>,
    #[serde(default)]
    labels: BTreeMap<String, String>,
    #[serde(default)]
    parallel: bool,
    runs: Option<i64>,
    #[serde(rename = "minPassRate")]
    min_pass_rate: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPrompt {
    file: Option<String>,
    inline: Option<String>,
}

/// Loads and validates the task file at `path`.
pub fn load_task(path: &Path, context: TaskContext) -> Result<Task, ConfigErrors> {
    let version = read_file::<RawVersion>(path)?.value.api_version;
    match version.as_deref() {
        None | Some(V1) => load_v1(path, context),
        Some(V2) => load_v2(path, context),
        Some(other) => {
            let parsed = read_file::<IgnoredAny>(path)?;
            let mut check = Checker::new(path, &parsed.locations);
            check.error(
                "apiVersion",
                format!(
                    "unknown task version `{other}`; expected {V1} or {V2}{}",
                    did_you_mean(other, [V1, V2])
                ),
            );
            check.fail()
        }
    }
}

fn load_v1(path: &Path, context: TaskContext) -> Result<Task, ConfigErrors> {
    let parsed = read_file::<RawTaskV1>(path)?;
    let raw = parsed.value;
    let mut check = Checker::new(path, &parsed.locations);
    if raw.spec.is_some() {
        check.error(
            "spec",
            format!("`spec` is the {V2} format; add `apiVersion: {V2}` (or use `steps`)"),
        );
    }
    let meta = raw.metadata.validate(&mut check, &raw.kind);
    let steps = raw.steps;
    let prompt = read_prompt(&mut check, "steps.prompt", steps.prompt);
    let setup = steps
        .setup
        .and_then(|s| s.validate(&mut check, "steps.setup"))
        .map(Step::Script);
    let cleanup = steps
        .cleanup
        .and_then(|s| s.validate(&mut check, "steps.cleanup"))
        .map(Step::Script);
    let verify = steps.verify.and_then(|v| v.validate(&mut check, context));
    // Metadata is missing only when its error was recorded.
    let meta = check.finish(meta)?.ok_or_else(ConfigErrors::default)?;
    Ok(Task {
        prompt: prompt.unwrap_or_default(),
        setup: setup.into_iter().map(TaskStep::from).collect(),
        verify: verify.into_iter().map(TaskStep::from).collect(),
        cleanup: cleanup.into_iter().map(TaskStep::from).collect(),
        ..meta.into_task(path, TaskVersion::V1Alpha1, Limits::default())
    })
}

fn load_v2(path: &Path, context: TaskContext) -> Result<Task, ConfigErrors> {
    let parsed = read_file::<RawTaskV2>(path)?;
    let raw = parsed.value;
    let mut check = Checker::new(path, &parsed.locations);
    if raw.steps.is_some() {
        check.error(
            "steps",
            format!("`steps` is the {V1} format; {V2} tasks use `spec`"),
        );
    }
    let meta = raw.metadata.validate(&mut check, &raw.kind);
    let Some(spec) = raw.spec else {
        check.error(
            "spec",
            "missing required field; a v1alpha2 task needs `spec` with at least `prompt`",
        );
        return check.fail();
    };
    let aliases = validate_requires(&mut check, spec.requires, &context.extensions);
    let limits = spec
        .limits
        .map(|l| l.validate(&mut check, "spec.limits"))
        .unwrap_or_default();
    let prompt = read_prompt(&mut check, "spec.prompt", spec.prompt);
    let mut phase = |name: &str, steps: Vec<RawStepEntry>| -> Vec<TaskStep> {
        steps
            .into_iter()
            .enumerate()
            .filter_map(|(i, step)| {
                let step_path = format!("spec.{name}[{i}]");
                let step = step.validate(&mut check, &step_path, &aliases)?;
                if let Step::LlmJudge(_) = step.step {
                    if name.starts_with("followUps") {
                        check.error(
                            format!("{step_path}.llmJudge"),
                            "an llmJudge step is checked with the whole conversation: put it in spec.verify",
                        );
                    } else if name != "verify" {
                        check.error(
                            format!("{step_path}.llmJudge"),
                            "an llmJudge step belongs in `verify` only",
                        );
                    } else if !context.has_judge {
                        check.error(format!("{step_path}.llmJudge"), NO_JUDGE);
                    }
                }
                Some(step)
            })
            .collect()
    };
    let setup = phase("setup", spec.setup);
    let verify = phase("verify", spec.verify);
    let cleanup = phase("cleanup", spec.cleanup);
    // Each later turn's steps first (`phase` holds the checker), then the rest of it.
    let follow_ups: Vec<(RawFollowUp, Vec<TaskStep>)> = (spec.follow_ups.into_iter().enumerate())
        .map(|(i, mut turn)| {
            let steps = std::mem::take(&mut turn.verify);
            (turn, phase(&format!("followUps[{i}].verify"), steps))
        })
        .collect();
    let servers: Option<Vec<&str>> =
        (context.servers.as_ref()).map(|names| names.iter().map(String::as_str).collect());
    let follow_ups = (follow_ups.into_iter().enumerate())
        .map(|(i, (turn, verify))| {
            let key = format!("spec.followUps[{i}]");
            FollowUp {
                prompt: read_prompt(&mut check, &format!("{key}.prompt"), turn.prompt)
                    .unwrap_or_default(),
                verify,
                assertions: (turn.assertions.unwrap_or_default()).validate(
                    &mut check,
                    &format!("{key}.assertions"),
                    servers.as_deref(),
                ),
            }
        })
        .collect();
    let faults = fault_rules(&mut check, "spec.faults", spec.faults, servers.as_deref());
    let elicitation = elicitation_script(
        &mut check,
        "spec.elicitation",
        spec.elicitation,
        servers.as_deref(),
    );
    let sampling = sampling_script(
        &mut check,
        "spec.sampling",
        spec.sampling,
        servers.as_deref(),
    );
    let meta = check.finish(meta)?.ok_or_else(ConfigErrors::default)?;
    Ok(Task {
        prompt: prompt.unwrap_or_default(),
        setup,
        verify,
        cleanup,
        faults,
        elicitation,
        sampling,
        follow_ups,
        continue_on_failure: spec.continue_on_failure,
        ..meta.into_task(path, TaskVersion::V1Alpha2, limits)
    })
}

const NO_JUDGE: &str =
    "an LLM-judge step needs an LLM judge, but the eval has no `config.llmJudge`";

struct TaskMetadata {
    name: String,
    difficulty: Option<Difficulty>,
    labels: BTreeMap<String, String>,
    parallel: bool,
    runs: Option<u32>,
    min_pass_rate: Option<f64>,
}

impl TaskMetadata {
    fn into_task(self, path: &Path, version: TaskVersion, limits: Limits) -> Task {
        Task {
            path: path.to_path_buf(),
            version,
            name: self.name,
            difficulty: self.difficulty,
            labels: self.labels,
            parallel: self.parallel,
            runs: self.runs,
            min_pass_rate: self.min_pass_rate,
            prompt: String::new(),
            setup: Vec::new(),
            verify: Vec::new(),
            cleanup: Vec::new(),
            limits,
            faults: Vec::new(),
            elicitation: None,
            sampling: None,
            follow_ups: Vec::new(),
            continue_on_failure: false,
        }
    }
}

impl RawTaskMetadata {
    fn validate(self, check: &mut Checker<'_>, kind: &str) -> Option<TaskMetadata> {
        if kind != "Task" {
            check.error("kind", format!("expected `kind: Task`, found `{kind}`"));
        }
        let name = check.test_name_part(self.name.as_deref());
        let difficulty = match self.difficulty.as_deref() {
            None => None,
            Some("easy") => Some(Difficulty::Easy),
            Some("medium") => Some(Difficulty::Medium),
            Some("hard") => Some(Difficulty::Hard),
            Some(other) => {
                check.error(
                    "metadata.difficulty",
                    format!("unknown difficulty `{other}`; expected easy, medium or hard"),
                );
                None
            }
        };
        let runs = match self.runs {
            Some(0) => {
                check.error("metadata.runs", "must be 1 or more");
                None
            }
            Some(n) => check.count("metadata.runs", n),
            None => None,
        };
        let min_pass_rate = self
            .min_pass_rate
            .and_then(|r| check.rate("metadata.minPassRate", r));
        Some(TaskMetadata {
            name: name?,
            difficulty,
            labels: self.labels,
            parallel: self.parallel,
            runs,
            min_pass_rate,
        })
    }
}

fn read_prompt(check: &mut Checker<'_>, path: &str, prompt: Option<RawPrompt>) -> Option<String> {
    let text = match prompt {
        None => {
            check.error(
                path,
                "the task has no prompt; expected `inline: <text>` or `file: <path>`",
            );
            return None;
        }
        Some(RawPrompt {
            inline: Some(text),
            file: None,
        }) => text,
        Some(RawPrompt {
            inline: None,
            file: Some(file),
        }) => {
            let resolved = check.existing_file(&format!("{path}.file"), &file)?;
            match std::fs::read_to_string(&resolved) {
                Ok(text) => text,
                Err(e) => {
                    check.error(
                        format!("{path}.file"),
                        format!("cannot read {}: {e}", resolved.display()),
                    );
                    return None;
                }
            }
        }
        Some(RawPrompt {
            inline: Some(_),
            file: Some(_),
        }) => {
            check.error(
                path,
                "both `inline` and `file` are set; expected exactly one",
            );
            return None;
        }
        Some(RawPrompt {
            inline: None,
            file: None,
        }) => {
            check.error(path, "expected `inline: <text>` or `file: <path>`");
            return None;
        }
    };
    if text.trim().is_empty() {
        check.error(path, "the prompt is empty");
        return None;
    }
    Some(text)
}

impl RawVerifyV1 {
    fn validate(self, check: &mut Checker<'_>, context: TaskContext) -> Option<Step> {
        let path = "steps.verify";
        let set = [
            self.file.is_some(),
            self.inline.is_some(),
            self.contains.is_some(),
            self.exact.is_some(),
        ];
        if set.iter().filter(|s| **s).count() != 1 {
            check.error(
                path,
                "expected exactly one of `file`, `inline`, `contains` or `exact`",
            );
            return None;
        }
        if self.contains.is_some() || self.exact.is_some() {
            if !context.has_judge {
                check.error(path, NO_JUDGE);
            }
            let judge = RawJudge {
                contains: self.contains,
                exact: self.exact,
            };
            return judge.validate(check, path).map(Step::LlmJudge);
        }
        let script = RawScript {
            file: self.file,
            inline: self.inline,
            ..RawScript::default()
        };
        script.validate(check, path).map(Step::Script)
    }
}
