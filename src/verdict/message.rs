//! The failure message of a task: what failed, with expected and actual side by side, the
//! call trace, the snapshot diff and where the logs are.

use std::fmt::Write;

use crate::config::SchemaViolations;
use crate::plumbing::process::tail;
use crate::run::report::RunReport;
use crate::snapshot::{SnapshotStatus, render_call_lines};
use crate::steps::Phase;
use crate::verdict::decide::{AgentVerdict, SnapshotFailure, StepFailure, Verdict, step_failures};

/// Lines of a script's or the agent's output shown in a message.
const OUTPUT_LINES: usize = 30;

/// Renders why the run failed: the verdict's reasons (failed servers first), then what
/// helps to understand them (cleanup, the trace, the snapshot diff, the agent's answer, the
/// logs).
/// `snapshot` is the comparison with the accepted snapshot.
pub fn failure_message(report: &RunReport, verdict: &Verdict, snapshot: &SnapshotStatus) -> String {
    let mut out = String::new();
    write_reasons(&mut out, report, verdict);
    for step in step_failures(Phase::Cleanup, &report.cleanup) {
        write_step(&mut out, "cleanup (does not change the verdict)", &step);
    }
    let calls = render_call_lines(&report.trace, &report.tokens.results);
    let _ = writeln!(out, "\ncall trace:\n{calls}");
    write_faults(&mut out, report);
    if let SnapshotStatus::Changed { diff, .. } = snapshot {
        let _ = writeln!(out, "\nsnapshot diff:\n{}", diff.trim_end());
    }
    write_agent_context(&mut out, report);
    let _ = write!(
        out,
        "\nrun directory (agent MCP config, trace.json, server logs): {}",
        report.run_dir.display()
    );
    out
}

/// What the run's `faults` rules did: how many faults were injected, the seed that draws
/// them again, and each rule that never matched a call.
fn write_faults(out: &mut String, report: &RunReport) {
    let Some(seed) = report.fault_seed else {
        return;
    };
    let injected: u32 = report.faults.iter().map(|note| note.injected).sum();
    let _ = writeln!(
        out,
        "\nfaults injected on purpose: {injected} (MCPEVAL_SEED={seed} injects the same again)"
    );
    for note in report.faults.iter().filter(|note| note.matched == 0) {
        let _ = writeln!(out, "  {}", note.describe());
    }
}

/// Every reason of the verdict, in the order the run met them.
fn write_reasons(out: &mut String, report: &RunReport, verdict: &Verdict) {
    for error in &verdict.errors {
        let _ = writeln!(out, "error: {error}");
    }
    for failure in &verdict.servers {
        let _ = writeln!(out, "server failed: {}", failure.message);
        if !failure.detail.is_empty() {
            let _ = writeln!(out, "{}", indent(&tail(&failure.detail, OUTPUT_LINES)));
        }
    }
    write_schema(out, verdict);
    if let Some((phase, after)) = verdict.timed_out {
        let _ = writeln!(
            out,
            "timed out: the task took longer than its timeout; it was in the {phase} phase after {}",
            humantime::format_duration(std::time::Duration::from_secs(after.as_secs()))
        );
    }
    if let Some((phase, signal)) = verdict.interrupted {
        let _ = writeln!(
            out,
            "interrupted: mcpeval got {signal} during the {phase} phase; the run stopped there and cleanup ran"
        );
    }
    write_step_failures(out, verdict, Phase::Setup);
    if let (AgentVerdict::Failed(reason), Some(agent)) = (&verdict.agent, &report.agent) {
        // In a conversation the agent is the last turn's that ran.
        match verdict.agent_turn {
            Some(turn) => {
                let _ = writeln!(out, "agent failed in turn {turn}: {reason}");
            }
            None => {
                let _ = writeln!(out, "agent failed: {reason}");
            }
        }
        write_output(out, "stdout", &agent.stdout);
        write_output(out, "stderr", &agent.stderr);
    }
    write_step_failures(out, verdict, Phase::Verify);
    if !verdict.assertions.is_empty() {
        let n = verdict.assertions.len();
        let _ = writeln!(
            out,
            "{n} assertion{} failed:",
            if n == 1 { "" } else { "s" }
        );
        for failure in &verdict.assertions {
            let _ = writeln!(out, "  {}", failure.to_string().replace('\n', "\n  "));
        }
    }
    match verdict.snapshot {
        Some(SnapshotFailure::New(written)) => {
            let _ = writeln!(
                out,
                "snapshot: no accepted snapshot yet (strict mode); {}",
                written.describe()
            );
        }
        Some(SnapshotFailure::Changed(written)) => {
            let _ = writeln!(
                out,
                "snapshot: the call trace differs from the accepted snapshot (strict mode); {}",
                written.describe()
            );
        }
        None => {}
    }
    for failure in &verdict.llm {
        let _ = writeln!(out, "LLM replay: {}", failure.replace('\n', "\n  "));
    }
    for problem in &verdict.variant {
        let _ = writeln!(out, "{problem}");
    }
    for failure in &verdict.elicitations {
        let _ = writeln!(out, "elicitation: {}", failure.replace('\n', "\n  "));
    }
    for failure in &verdict.sampling {
        let _ = writeln!(out, "sampling: {}", failure.replace('\n', "\n  "));
    }
    for failure in &verdict.turns {
        let _ = writeln!(out, "{}", failure.replace('\n', "\n  "));
    }
}

/// What the schema checks found: broken definitions and results (always failures), and
/// arguments that break an input schema (a failure with `schemaViolations: fail`, else a
/// note).
fn write_schema(out: &mut String, verdict: &Verdict) {
    let schema = &verdict.schema;
    let mut section = |title: String, lines: Vec<String>| {
        if !lines.is_empty() {
            let _ = writeln!(out, "{title}");
            for line in lines {
                let _ = writeln!(out, "  {line}");
            }
        }
    };
    let definitions = schema.definitions.iter().map(|p| p.describe()).collect();
    section(
        "server schema: tool definitions break the MCP spec:".into(),
        definitions,
    );
    let results: Vec<String> = schema.results.iter().map(|f| f.describe()).collect();
    let verb = if results.len() == 1 {
        "breaks its"
    } else {
        "break their"
    };
    section(
        format!(
            "server schema: {} {verb} tool's outputSchema:",
            count(results.len(), "result")
        ),
        results,
    );
    let arguments: Vec<String> = schema.arguments.iter().map(|f| f.describe()).collect();
    let title = match verdict.schema_violations {
        SchemaViolations::Fail => "schema (schemaViolations: fail)",
        SchemaViolations::Warn => "note (schemaViolations: warn, not a failure)",
    };
    section(
        format!(
            "{title}: {} sent arguments that break the tool's inputSchema:",
            count(arguments.len(), "call")
        ),
        arguments,
    );
}

/// `1 result`, `2 results`.
fn count(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// What helps to read the run: the answer and notes of an agent that finished, and what
/// each LLM proxy did with its cassette.
fn write_agent_context(out: &mut String, report: &RunReport) {
    if let Some(agent) = report.agent.as_ref().filter(|a| a.passed()) {
        if !agent.answer.is_empty() {
            let _ = writeln!(
                out,
                "\nagent answer:\n{}",
                indent(&tail(&agent.answer, OUTPUT_LINES))
            );
        }
        // Turns, token usage, permission denials, warnings.
        if !agent.stderr.trim().is_empty() {
            let _ = writeln!(
                out,
                "\nagent stderr:\n{}",
                indent(&tail(&agent.stderr, OUTPUT_LINES))
            );
        }
    }
    for record in &report.llm {
        let Some(outcome) = &record.outcome else {
            continue;
        };
        let _ = writeln!(
            out,
            "\nLLM calls of the {}: {} ({} {}; mode {}): {} replayed, {} recorded, {} live",
            record.who,
            outcome.used,
            record.api,
            outcome.cassette.display(),
            outcome.mode,
            outcome.replayed,
            outcome.recorded,
            outcome.passed_through
        );
    }
}

fn write_step_failures(out: &mut String, verdict: &Verdict, phase: Phase) {
    for step in verdict.steps.iter().filter(|step| step.phase == phase) {
        write_step(out, phase.name(), step);
    }
}

fn write_step(out: &mut String, phase: &str, step: &StepFailure) {
    let tolerated = if step.tolerated {
        " (continueOnError)"
    } else {
        ""
    };
    let _ = match &step.id {
        // "verify step `check-pod` failed: exit code 1", its label ends "(script …)".
        Some(id) => writeln!(
            out,
            "{phase} step `{id}` failed{tolerated}: {}: {}",
            step.label, step.reason
        ),
        None => writeln!(
            out,
            "{phase} step failed{tolerated}: {}: {}",
            step.label, step.reason
        ),
    };
    write_output(out, "output", &step.output);
}

fn write_output(out: &mut String, what: &str, text: &str) {
    if !text.trim().is_empty() {
        let _ = writeln!(out, "  {what}:\n{}", indent(&tail(text, OUTPUT_LINES)));
    }
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|line| format!("    {line}"))
        .collect::<Vec<_>>()
        .join("\n")
}
