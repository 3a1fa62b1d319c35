//! JUnit XML: one test suite per eval, one test case per task run, the failure message as
//! the failure's text, times in seconds.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::{Report, run_name};

/// The report as JUnit XML.
pub fn junit_xml(report: &Report) -> String {
    let mut by_eval: BTreeMap<&str, Vec<&super::TaskResult>> = BTreeMap::new();
    for result in &report.results {
        by_eval.entry(&result.eval_name).or_default().push(result);
    }
    let total_time: f64 = report.results.iter().map(|r| r.duration_ms).sum::<f64>() / 1000.0;
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"mcpeval\" tests=\"{}\" failures=\"{}\" time=\"{total_time:.3}\">",
        report.summary.runs, report.summary.failed
    );
    for (eval, results) in by_eval {
        let failures = results.iter().filter(|r| !r.task_passed).count();
        let time: f64 = results.iter().map(|r| r.duration_ms).sum::<f64>() / 1000.0;
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" time=\"{time:.3}\">",
            escape(eval),
            results.len()
        );
        for result in results {
            let name = run_name(result);
            let task = name
                .split_once("::")
                .map_or(name.as_str(), |(_, task)| task);
            let _ = write!(
                out,
                "    <testcase classname=\"{}\" name=\"{}\" file=\"{}\" time=\"{:.3}\"",
                escape(eval),
                escape(task),
                escape(&result.task_path),
                result.duration_ms / 1000.0
            );
            if result.task_passed {
                out.push_str("/>\n");
                continue;
            }
            let message = result
                .task_error
                .clone()
                .unwrap_or_else(|| "failed".to_owned());
            let text = result
                .failure_message
                .clone()
                .unwrap_or_else(|| result.reasons.join("\n"));
            let _ = writeln!(
                out,
                ">\n      <failure message=\"{}\" type=\"mcpeval\">{}</failure>\n    </testcase>",
                escape(&message),
                escape(&text)
            );
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
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
