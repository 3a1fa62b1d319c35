//! JUnit XML: one test suite per eval, one test case per test (as `cargo test` and nextest
//! count them), the failure message as the failure's text, times in seconds. The runs of a
//! task that runs several times are one test case that passes or fails as the test did (its
//! pass rate against `minPassRate`); a failed run of a test that passed is a
//! `<flakyFailure>`, as nextest and Maven Surefire write a flaky test.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::report::results::{PassCount, TaskResult};
use crate::report::summary::Report;

/// The report as JUnit XML.
pub fn junit_xml(report: &Report) -> String {
    // Eval, then test, then run: the runs of one test side by side.
    let mut by_eval: BTreeMap<&str, BTreeMap<&str, Vec<&TaskResult>>> = BTreeMap::new();
    for result in &report.results {
        (by_eval.entry(&result.eval_name).or_default())
            .entry(&result.test_name)
            .or_default()
            .push(result);
    }
    let cases: BTreeMap<&str, Vec<TestCase>> = by_eval
        .into_iter()
        .map(|(eval, tests)| (eval, tests.into_values().map(TestCase::of).collect()))
        .collect();
    let all = cases.values().flatten();
    let (tests, failures) = (
        all.clone().count(),
        all.clone().filter(|c| !c.passed).count(),
    );
    let total_time: f64 = all.map(|c| c.seconds).sum();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"mcpeval\" tests=\"{tests}\" failures=\"{failures}\" time=\"{total_time:.3}\">"
    );
    for (eval, cases) in cases {
        let failures = cases.iter().filter(|c| !c.passed).count();
        let time: f64 = cases.iter().map(|c| c.seconds).sum();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" time=\"{time:.3}\">",
            escape(eval),
            cases.len()
        );
        for case in &cases {
            case.write(&mut out, eval);
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

/// One test: its runs, together.
struct TestCase<'a> {
    runs: Vec<&'a TaskResult>,
    count: PassCount,
    /// The share of the runs that must pass (1 when the results do not say).
    min_pass_rate: f64,
    passed: bool,
    seconds: f64,
}

impl<'a> TestCase<'a> {
    fn of(mut runs: Vec<&'a TaskResult>) -> Self {
        runs.sort_by_key(|r| r.run_index);
        let count = PassCount {
            passed: runs.iter().filter(|r| r.task_passed).count(),
            runs: runs.len(),
        };
        let min_pass_rate = runs.iter().find_map(|r| r.min_pass_rate).unwrap_or(1.0);
        let seconds = runs.iter().map(|r| r.duration_ms).sum::<f64>() / 1000.0;
        TestCase {
            runs,
            count,
            min_pass_rate,
            passed: count.meets(min_pass_rate),
            seconds,
        }
    }

    fn write(&self, out: &mut String, eval: &str) {
        let first = self.runs[0];
        let name = &first.test_name;
        let task = name
            .split_once("::")
            .map_or(name.as_str(), |(_, task)| task);
        let _ = write!(
            out,
            "    <testcase classname=\"{}\" name=\"{}\" file=\"{}\" time=\"{:.3}\"",
            escape(eval),
            escape(task),
            escape(&first.task_path),
            self.seconds
        );
        let failed: Vec<(usize, &TaskResult)> = (self.runs.iter().copied().enumerate())
            .filter(|(_, r)| !r.task_passed)
            .collect();
        if failed.is_empty() && self.passed {
            out.push_str("/>\n");
            return;
        }
        out.push_str(">\n");
        let runs = self.runs.len();
        if self.runs.len() == 1 {
            element(out, "failure", &message(first), &text(first));
        } else if self.passed {
            for (index, run) in failed {
                let message = format!("run {} of {runs} failed: {}", index + 1, message(run));
                element(out, "flakyFailure", &message, &text(run));
            }
        } else {
            let message = format!(
                "{}; minPassRate {}",
                self.count.describe(),
                self.min_pass_rate
            );
            let texts: Vec<String> = (failed.iter())
                .map(|(index, run)| {
                    format!("===== run {} of {runs} =====\n{}", index + 1, text(run))
                })
                .collect();
            element(out, "failure", &message, &texts.join("\n\n"));
        }
        out.push_str("    </testcase>\n");
    }
}

/// A failed run's short message: its error, else `failed`.
fn message(run: &TaskResult) -> String {
    run.task_error
        .clone()
        .unwrap_or_else(|| "failed".to_owned())
}

/// A failed run's text: its failure message, else its reasons.
fn text(run: &TaskResult) -> String {
    (run.failure_message.clone()).unwrap_or_else(|| run.reasons.join("\n"))
}

fn element(out: &mut String, tag: &str, message: &str, text: &str) {
    let _ = writeln!(
        out,
        "      <{tag} message=\"{}\" type=\"mcpeval\">{}</{tag}>",
        escape(message),
        escape(text)
    );
}

/// `text` safe inside XML attributes and text: markup escaped, characters XML 1.0 forbids
/// dropped.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' | '\r' | '\t' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn escapes_markup_and_drops_control_characters() {
        assert_eq!(
            escape("a<b>&\"c'\u{1b}[0m\nd"),
            "a&lt;b&gt;&amp;&quot;c&apos;[0m\nd"
        );
    }
}
