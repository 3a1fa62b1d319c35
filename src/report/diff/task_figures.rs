//! The figures of one test's runs in one report (pass count, assertions held, tool errors,
//! schema findings, tokens of tool definitions and results, turns, duration), and which of
//! them differ between two reports.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::report::results::{PassCount, TaskResult};

/// A test's runs in one report: how many passed, and their figures (`diff --format json`
/// shows them for both reports).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Runs {
    /// Runs that passed.
    pub passed: usize,
    /// Runs.
    pub runs: usize,
    /// `passed / runs`.
    pub pass_rate: f64,
    /// Tool calls that ended in an `isError` result or a JSON-RPC error, per run on average.
    pub tool_errors: f64,
    /// Schema findings (broken definitions, arguments and results that break their
    /// schema), per run on average.
    pub schema_findings: f64,
    /// The agent's prompt and answer tokens as estimated (characters / 4), per run on
    /// average.
    pub estimated_tokens: f64,
    /// The tokens the agent's API reported, per run on average over the runs that reported
    /// them (`None` when none did).
    pub agent_tokens: Option<f64>,
    /// The o200k_base tokens of the servers' tool definitions, the most of a run.
    pub definition_tokens: f64,
    /// The o200k_base tokens of the tool results, per run on average.
    pub result_tokens: f64,
}

impl Runs {
    pub(super) fn count(self) -> PassCount {
        PassCount {
            passed: self.passed,
            runs: self.runs,
        }
    }
}

/// One figure of a test that differs between the reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FigureChange {
    /// `assertion:<key>` (its value: the runs in which it held), `turn:<n>` (the runs in
    /// which turn `n` of the task's conversation passed), `toolErrors`,
    /// `schemaFindings`, `resultTokens`, `turns`, `durationMs` (per run, on average),
    /// `definitionTokens` (the most of a run).
    pub figure: String,
    /// In the base report.
    pub base: f64,
    /// In the current report.
    pub current: f64,
}

/// The figures of one test's runs in one report.
#[derive(Debug, Clone, Default)]
pub(super) struct Figures {
    /// The pass count and the figures `diff --format json` shows.
    pub(super) runs: Runs,
    /// Per assertion: runs in which it held.
    assertions: BTreeMap<String, usize>,
    /// Per turn of the task's conversation: runs in which it passed.
    conversation: BTreeMap<u32, usize>,
    turns: Option<f64>,
    duration_ms: f64,
}

impl Figures {
    pub(super) fn count(&self) -> PassCount {
        self.runs.count()
    }

    pub(super) fn of(runs: &[&TaskResult]) -> Self {
        let n = runs.len().max(1) as f64;
        let mean = |f: &dyn Fn(&TaskResult) -> f64| runs.iter().map(|r| f(r)).sum::<f64>() / n;
        let mut assertions = BTreeMap::new();
        for run in runs {
            for (key, result) in &run.assertion_results {
                *assertions.entry(key.clone()).or_default() += usize::from(result.passed);
            }
        }
        let mut conversation = BTreeMap::new();
        for turn in runs.iter().flat_map(|run| &run.turns) {
            *conversation.entry(turn.turn).or_default() += usize::from(turn.passed);
        }
        let with_turns: Vec<u32> = runs.iter().filter_map(|r| r.agent_turns).collect();
        let reported: Vec<u64> = (runs.iter())
            .filter_map(|r| r.agent_token_usage.map(|u| u.total_tokens))
            .collect();
        let count = PassCount {
            passed: runs.iter().filter(|r| r.task_passed).count(),
            runs: runs.len(),
        };
        Figures {
            runs: Runs {
                passed: count.passed,
                runs: count.runs,
                pass_rate: count.rate(),
                tool_errors: mean(&|r| r.tool_errors as f64),
                schema_findings: mean(&|r| {
                    let found = &r.schema_violations;
                    (found.definitions.len() + found.arguments.len() + found.results.len()) as f64
                }),
                estimated_tokens: mean(&|r| {
                    let estimate = &r.token_estimate;
                    (estimate.prompt_tokens + estimate.output_tokens) as f64
                }),
                agent_tokens: (!reported.is_empty())
                    .then(|| reported.iter().sum::<u64>() as f64 / reported.len() as f64),
                definition_tokens: (runs.iter())
                    .map(|r| tokens_of(r, |s| s.definition_tokens))
                    .max()
                    .unwrap_or(0) as f64,
                result_tokens: mean(&|r| tokens_of(r, |s| s.result_tokens) as f64),
            },
            assertions,
            conversation,
            turns: (!with_turns.is_empty()).then(|| {
                with_turns.iter().map(|&t| f64::from(t)).sum::<f64>() / with_turns.len() as f64
            }),
            duration_ms: mean(&|r| r.duration_ms),
        }
    }
}

/// One token figure of a run, over its servers.
fn tokens_of(run: &TaskResult, figure: fn(&crate::tokens::ServerTokens) -> usize) -> usize {
    let servers = run.tool_tokens.iter().flat_map(|t| t.servers.values());
    servers.map(figure).sum()
}

/// A duration counts as changed beyond this share of the base's (timing varies) …
const DURATION_SHARE: f64 = 0.2;
/// … and this many milliseconds.
const DURATION_MS: f64 = 500.0;

/// The figures that differ between `base` and `current`.
pub(super) fn figure_changes(base: &Figures, current: &Figures) -> Vec<FigureChange> {
    let mut changes = Vec::new();
    let mut push = |figure: String, before: f64, after: f64| {
        if (before - after).abs() > 1e-9 {
            changes.push(FigureChange {
                figure,
                base: before,
                current: after,
            });
        }
    };
    let keys: std::collections::BTreeSet<&String> = (base.assertions.keys())
        .chain(current.assertions.keys())
        .collect();
    for key in keys {
        let held = |f: &Figures| f.assertions.get(key).map_or(0.0, |&n| n as f64);
        // The same share of runs is no change, however many runs each report has.
        let share = |f: &Figures| held(f) / f.runs.runs.max(1) as f64;
        if (share(base) - share(current)).abs() > 1e-9 {
            push(format!("assertion:{key}"), held(base), held(current));
        }
    }
    let turns: std::collections::BTreeSet<&u32> = (base.conversation.keys())
        .chain(current.conversation.keys())
        .collect();
    for turn in turns {
        let passed = |f: &Figures| f.conversation.get(turn).map_or(0.0, |&n| n as f64);
        let share = |f: &Figures| passed(f) / f.runs.runs.max(1) as f64;
        if (share(base) - share(current)).abs() > 1e-9 {
            push(format!("turn:{turn}"), passed(base), passed(current));
        }
    }
    let (then, now) = (base.runs, current.runs);
    push("toolErrors".into(), then.tool_errors, now.tool_errors);
    push(
        "schemaFindings".into(),
        then.schema_findings,
        now.schema_findings,
    );
    push(
        "definitionTokens".into(),
        then.definition_tokens,
        now.definition_tokens,
    );
    push("resultTokens".into(), then.result_tokens, now.result_tokens);
    if let (Some(before), Some(after)) = (base.turns, current.turns) {
        push("turns".into(), before, after);
    }
    let (before, after) = (base.duration_ms, current.duration_ms);
    let moved = (after - before).abs();
    if moved > DURATION_MS && moved > before * DURATION_SHARE {
        push("durationMs".into(), before, after);
    }
    changes
}
