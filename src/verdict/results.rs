//! Builds the results file of one task run ([`TaskResult`]) from what the run produced.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use crate::assert::AssertionFailure;
use crate::config::{Difficulty, Eval, SchemaViolations, Task};
use crate::plan::TaskCase;
use crate::proxy::ServerFailure;
use crate::run::report::RunReport;
use crate::run::variant;

use crate::llm::pricing::{PriceTable, RunCost};
use crate::report::{
    AssertionDetail, AssertionResult, CallHistory, CallRecord, LlmCalls, LlmTurnTime, PhaseOutput,
    SchemaVersion, ServerFailureRecord, ServerTools, StepOutput, Surface, TaskResult,
    TokenEstimate, ToolTokens, TurnRecord,
};
use crate::run::report::LlmRecord;
use crate::steps::{Span, StepResult, phase_passed};
use crate::tokens::TOKENIZER;
use crate::trace::{CallKind, Outcome};
use crate::verdict::decide::Verdict;

/// Everything the results file of a run is made of.
pub struct ResultInput<'a> {
    /// The planned case.
    pub case: &'a TaskCase,
    /// The eval.
    pub eval: &'a Eval,
    /// The loaded task.
    pub task: &'a Task,
    /// The run.
    pub report: &'a RunReport,
    /// The verdict, snapshot included.
    pub verdict: &'a Verdict,
    /// The failure message, when it failed.
    pub failure_message: Option<String>,
    /// The diff from the accepted snapshot, when the trace differs from it.
    pub snapshot_diff: Option<String>,
    /// The run's duration.
    pub duration: Duration,
    /// `(index from 0, total, minimum pass rate)` when the task runs several times.
    pub run: Option<(u32, u32, f64)>,
}

/// Builds the results file of one run.
pub fn task_result(input: ResultInput<'_>) -> TaskResult {
    let ResultInput {
        case,
        eval,
        task,
        report,
        verdict,
        failure_message,
        snapshot_diff,
        duration,
        run,
    } = input;
    let offsets = Offsets(report.run_start);
    let answer = report
        .agent
        .as_ref()
        .map(|a| a.answer.clone())
        .unwrap_or_default();
    let (reasons, failed_at) = verdict.reasons();
    let assertion_results =
        assertion_results(case, &verdict.assertions, &report.skipped_assertions);
    let all_assertions_passed = assertion_results.values().all(|r| r.passed);
    let prices = eval.prices();
    let llm_calls: Vec<LlmCalls> = (report.llm.iter())
        .filter_map(|record| llm_calls(record, offsets, &prices))
        .collect();
    let cost = RunCost::of((llm_calls.iter()).flat_map(|calls| {
        let replayed = calls.replayed > 0;
        calls.usage.iter().map(move |usage| (usage, replayed))
    }));
    TaskResult {
        schema_version: SchemaVersion::default(),
        test_name: case.name.clone(),
        eval_name: eval.name.clone(),
        task_name: task.name.clone(),
        task_path: case.path.display().to_string(),
        // Known once the file is written (`case.rs`).
        results_file: None,
        task_passed: verdict.passed(),
        token_estimate: TokenEstimate {
            prompt_tokens: task.prompt.chars().count() / 4,
            output_tokens: answer.chars().count() / 4,
        },
        agent_token_usage: report.agent.as_ref().and_then(|a| a.usage),
        agent_turns: report.agent.as_ref().and_then(|a| a.turns),
        agent_tool_calls: report.agent.as_ref().and_then(|a| a.tool_call_count),
        agent_name: eval.agent.name().to_owned(),
        agent_version: report.agent_version.clone(),
        task_output: answer,
        task_error: reasons.first().cloned(),
        failure_message,
        reasons,
        failed_at,
        server_failures: verdict.servers.iter().map(server_failure).collect(),
        timed_out: verdict.timed_out.is_some(),
        agent_execution_error: verdict.agent_failed(),
        difficulty: difficulty(task.difficulty),
        labels: task.labels.clone(),
        snapshot_diff,
        assertion_results,
        all_assertions_passed,
        call_history: call_history(report),
        surface: (report.trace.advertised.iter())
            .map(|(server, advertised)| (server.clone(), Surface::of(advertised)))
            .collect(),
        mcp_servers: ServerTools::of_each(&report.trace.advertised),
        asserted_arguments: asserted_arguments(case, task),
        schema_checks_fail: case.schema_violations == SchemaViolations::Fail,
        tool_errors: report.trace.tool_errors(),
        schema_violations: report.schema.clone(),
        tool_tokens: tool_tokens(report),
        setup_output: phase(&report.setup, offsets),
        agent_output: agent_output(report, offsets),
        verify_output: phase(&report.verify, offsets),
        cleanup_output: phase(&report.cleanup, offsets),
        llm_calls,
        cost,
        duration_ms: duration.as_secs_f64() * 1000.0,
        run_index: run.map(|(index, _, _)| index),
        nextest_run_id: crate::plumbing::ci::nextest_run_id(),
        total_runs: run.map(|(_, total, _)| total),
        min_pass_rate: run.map(|(_, _, rate)| rate),
        variant: eval.variant.as_ref().map(|v| v.name.clone()),
        variant_details: variant::details(eval, &report.rewrites, &report.skipped_assertions),
        decoy_calls: report.decoy_calls.clone(),
        faults: report.faults.clone(),
        fault_seed: report.fault_seed,
        turns: (report.turns.iter())
            .map(|turn| TurnRecord {
                turn: turn.turn,
                prompt: turn.prompt.clone(),
                answer: turn.answer.clone(),
                passed: !turn.not_run && !turn.agent_failed && turn.failures.is_empty(),
                not_run: turn.not_run,
                calls: turn.calls,
                tokens: turn.tokens,
                duration_ms: turn.span.map(|span| span.duration.as_secs_f64() * 1000.0),
                failures: turn.failures.clone(),
            })
            .collect(),
    }
}

/// The tool arguments the run's assertions name (its task sets' and its turns'): server →
/// tool → property paths.
fn asserted_arguments(
    case: &TaskCase,
    task: &Task,
) -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let sets = (case.assertion_sets.iter()).map(|set| set.assertions.as_ref());
    let turns = task.follow_ups.iter().map(|turn| &turn.assertions);
    let mut asserted: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (server, tool, path) in sets.chain(turns).flat_map(|a| a.asserted_arguments()) {
        (asserted.entry(server.to_owned()).or_default())
            .entry(tool.to_owned())
            .or_default()
            .insert(path);
    }
    asserted
}

/// The agent as the one step of `agentOutput` (none when it did not run).
fn agent_output(report: &RunReport, offsets: Offsets) -> PhaseOutput {
    let Some(agent) = &report.agent else {
        return PhaseOutput::default();
    };
    PhaseOutput {
        success: agent.passed(),
        steps: vec![StepOutput {
            id: None,
            label: "agent".into(),
            passed: agent.passed(),
            reason: agent.reason().to_owned(),
            output: format!("{}{}", agent.stdout, agent.stderr),
            start_offset_ms: offsets.start_ms(report.agent_span),
            duration_ms: offsets.duration_ms(report.agent_span),
        }],
    }
}

/// The tokens of the servers' tool definitions and results, when a server had any.
fn tool_tokens(report: &RunReport) -> Option<ToolTokens> {
    (!report.tokens.servers.is_empty()).then(|| ToolTokens {
        tokenizer: TOKENIZER.to_owned(),
        servers: report.tokens.servers.clone(),
    })
}

/// `easy`, `medium`, `hard`, or empty when the task says none.
fn difficulty(difficulty: Option<Difficulty>) -> String {
    match difficulty {
        Some(Difficulty::Easy) => "easy",
        Some(Difficulty::Medium) => "medium",
        Some(Difficulty::Hard) => "hard",
        None => "",
    }
    .to_owned()
}

/// The results file of a task whose file does not load: failed, with the error as its
/// reason, so that reports count it instead of missing it.
pub fn unloaded_result(case: &TaskCase, eval: &Eval, task_name: &str, error: &str) -> TaskResult {
    TaskResult {
        test_name: case.name.clone(),
        eval_name: eval.name.clone(),
        task_name: task_name.to_owned(),
        task_path: case.path.display().to_string(),
        task_error: Some(error.to_owned()),
        reasons: vec![error.to_owned()],
        failure_message: Some(error.to_owned()),
        agent_name: eval.agent.name().to_owned(),
        nextest_run_id: crate::plumbing::ci::nextest_run_id(),
        variant: eval.variant.as_ref().map(|v| v.name.clone()),
        variant_details: variant::details(eval, &Default::default(), &[]),
        ..TaskResult::default()
    }
}

fn server_failure(failure: &ServerFailure) -> ServerFailureRecord {
    ServerFailureRecord {
        server: failure.server.clone(),
        message: failure.message.clone(),
        detail: failure.detail.clone(),
        log: failure.log.as_ref().map(|log| log.display().to_string()),
    }
}

fn llm_calls(record: &LlmRecord, offsets: Offsets, prices: &PriceTable) -> Option<LlmCalls> {
    let outcome = record.outcome.as_ref()?;
    let turns = (outcome.turn_times.iter())
        .filter_map(|time| {
            Some(LlmTurnTime {
                seq: time.seq,
                start_offset_ms: offsets.at_ms(time.asked)?,
                duration_ms: time.took.map(millis),
            })
        })
        .collect();
    Some(LlmCalls {
        who: record.who.name().to_owned(),
        api: record.api.name().to_owned(),
        mode: outcome.mode.name().to_owned(),
        used: outcome.used.name().to_owned(),
        cassette: outcome.cassette.display().to_string(),
        replayed: outcome.replayed,
        recorded: outcome.recorded,
        passed_through: outcome.passed_through,
        turns,
        usage: prices.priced(&outcome.usage),
    })
}

/// Spans as offsets from the start of the run, in milliseconds.
#[derive(Clone, Copy)]
struct Offsets(Option<Instant>);

impl Offsets {
    /// `at` from the start of the run.
    fn at_ms(self, at: Instant) -> Option<f64> {
        Some(millis(at.saturating_duration_since(self.0?)))
    }

    fn start_ms(self, span: Option<Span>) -> Option<f64> {
        self.at_ms(span?.start)
    }

    fn duration_ms(self, span: Option<Span>) -> Option<f64> {
        span.map(|span| millis(span.duration))
    }
}

fn millis(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

fn phase(results: &[StepResult], offsets: Offsets) -> PhaseOutput {
    PhaseOutput {
        success: phase_passed(results),
        steps: results
            .iter()
            .map(|r| StepOutput {
                id: r.id.clone(),
                label: r.label.clone(),
                passed: r.passed(),
                reason: r.reason().to_owned(),
                output: r.output.clone(),
                start_offset_ms: offsets.start_ms(r.span),
                duration_ms: offsets.duration_ms(r.span),
            })
            .collect(),
    }
}

fn call_history(report: &RunReport) -> CallHistory {
    let mut history = CallHistory {
        elicitations: report.trace.elicitations.clone(),
        sampling: report.trace.sampling.clone(),
        ..CallHistory::default()
    };
    for (i, call) in report.trace.calls.iter().enumerate() {
        let (outcome, result) = match &call.outcome {
            Outcome::Ok { result } => ("ok", result.clone()),
            Outcome::IsError { result } => ("is_error", result.clone()),
            Outcome::Error { code, message } => (
                "error",
                serde_json::json!({"code": code, "message": message}),
            ),
        };
        let record = CallRecord {
            server_name: call.server.clone(),
            name: call.name.clone(),
            position: i + 1,
            arguments: call.arguments.clone(),
            outcome: outcome.to_owned(),
            result,
            start_offset_ms: call.start_offset.as_secs_f64() * 1000.0,
            duration_ms: call.duration.as_secs_f64() * 1000.0,
            result_tokens: report.tokens.results.get(i).copied().flatten(),
            injected: call.injected.clone(),
            rounds: call.rounds.clone(),
            task: call.task.clone(),
            turn: call.turn,
        };
        match call.kind {
            CallKind::Tool => history.tool_calls.push(record),
            CallKind::Resource => history.resource_reads.push(record),
            CallKind::Prompt => history.prompt_gets.push(record),
        }
    }
    history
}

/// Each configured assertion's outcome; skipped ones (a variant without servers) are left
/// out, never counted as passed.
fn assertion_results(
    case: &TaskCase,
    failures: &[AssertionFailure],
    skipped: &[String],
) -> BTreeMap<String, AssertionResult> {
    let mut results: BTreeMap<String, AssertionResult> = BTreeMap::new();
    for set in &case.assertion_sets {
        let configured = set.assertions.configured().into_iter();
        for kind in configured.filter(|kind| !skipped.iter().any(|s| s == kind.key())) {
            let failure = failures
                .iter()
                .find(|f| f.task_set == set.task_set && f.assertion == kind);
            let entry = results
                .entry(kind.key().to_owned())
                .or_insert(AssertionResult {
                    passed: true,
                    details: Vec::new(),
                });
            entry.passed &= failure.is_none();
            entry.details.push(AssertionDetail {
                task_set: set.task_set.clone(),
                passed: failure.is_none(),
                expected: failure.map(|f| f.expected.clone()),
                actual: failure.map(|f| f.actual.clone()),
            });
        }
    }
    results
}
