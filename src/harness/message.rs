//! The failure message of a task: what failed, with expected and actual side by side, the
//! call trace, the snapshot diff and where the logs are.

use std::fmt::Write;

use super::run::RunReport;
use crate::process::tail;
use crate::snapshot::{SnapshotStatus, render_call_lines};
use crate::steps::StepResult;

/// Lines of a script's or the agent's output shown in a message.
const OUTPUT_LINES: usize = 30;

/// One line per reason the run failed (empty when it passed), for results files.
pub fn verdict_reasons(report: &RunReport, snapshot_fails: bool) -> Vec<String> {
    let mut reasons: Vec<String> = report.errors.clone();
    if let Some((phase, _)) = report.timed_out_in {
        reasons.push(format!("timed out in the {phase} phase"));
    }
    let steps = report
        .setup
        .iter()
        .chain(&report.verify)
        .filter(|r| !r.passed && !r.continue_on_error);
    reasons.extend(steps.map(|r| format!("{}: {}", r.label, r.reason)));
    if let Some(agent) = report.agent.as_ref().filter(|a| !a.passed) {
        reasons.push(format!("agent: {}", agent.reason));
    }
    reasons.extend(report.failures.iter().map(|f| {
        format!(
            "{} ({}): expected {}; actual {}",
            f.assertion, f.task_set, f.expected, f.actual
        )
    }));
    if snapshot_fails {
        reasons.push("snapshot: the call trace is not the accepted one (strict mode)".into());
    }
    reasons
}

/// Renders why the run failed. `snapshot` is the comparison with the accepted snapshot.
pub fn failure_message(
    report: &RunReport,
    snapshot: &SnapshotStatus,
    snapshot_fails: bool,
) -> String {
    let mut out = String::new();
    for error in &report.errors {
        let _ = writeln!(out, "error: {error}");
    }
    if let Some((phase, after)) = report.timed_out_in {
        let _ = writeln!(
            out,
            "timed out: the task took longer than its timeout; it was in the {phase} phase after {}",
            humantime::format_duration(std::time::Duration::from_secs(after.as_secs()))
        );
    }
    write_steps(&mut out, "setup", &report.setup);
    if let Some(agent) = report.agent.as_ref().filter(|agent| !agent.passed) {
        let _ = writeln!(out, "agent failed: {}", agent.reason);
        write_output(&mut out, "stdout", &agent.stdout);
        write_output(&mut out, "stderr", &agent.stderr);
    }
    write_steps(&mut out, "verify", &report.verify);
    if !report.failures.is_empty() {
        let n = report.failures.len();
        let _ = writeln!(
            out,
            "{n} assertion{} failed:",
            if n == 1 { "" } else { "s" }
        );
        for failure in &report.failures {
            let _ = writeln!(out, "  {}", failure.to_string().replace('\n', "\n  "));
        }
    }
    if snapshot_fails {
        match snapshot {
            SnapshotStatus::New => {
                let _ = writeln!(
                    out,
                    "snapshot: no accepted snapshot yet (strict mode); review it with `cargo insta review`"
                );
            }
            SnapshotStatus::Changed(_) => {
                let _ = writeln!(
                    out,
                    "snapshot: the call trace differs from the accepted snapshot (strict mode)"
                );
            }
            _ => {}
        }
    }
    write_steps(
        &mut out,
        "cleanup (does not change the verdict)",
        &report.cleanup,
    );
    for failure in &report.upstream_failures {
        let _ = writeln!(out, "server: {failure}");
    }
    let _ = writeln!(out, "\ncall trace:\n{}", render_call_lines(&report.trace));
    if let SnapshotStatus::Changed(diff) = snapshot {
        let _ = writeln!(out, "\nsnapshot diff:\n{}", diff.trim_end());
    }
    if let Some(agent) = report.agent.as_ref().filter(|a| a.passed) {
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
    let _ = write!(
        out,
        "\nrun directory (agent MCP config, trace.json, server logs): {}",
        report.run_dir.display()
    );
    out
}

fn write_steps(out: &mut String, phase: &str, results: &[StepResult]) {
    for result in results.iter().filter(|r| !r.passed) {
        let tolerated = if result.continue_on_error {
            " (continueOnError)"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "{phase} step failed{tolerated}: {}: {}",
            result.label, result.reason
        );
        write_output(out, "output", &result.output);
    }
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
