//! A diff in each of its formats: text (`diff/report_diff.rs`), markdown for a pull-request
//! comment (`markdown.rs`) or JSON (`schema/diff.schema.json`). Kept apart from both, so that
//! the markdown, which reads the diff, and the diff do not import each other.

use std::collections::BTreeMap;

use serde::Serialize;

use super::markdown::{COMMENT_LIMIT, MARKER, diff_markdown};
use crate::report::diff::{Change, DiffFormat, ReportDiff};

/// The version of the JSON output's shape (`schemaVersion`), raised when a change would
/// break a reader of the previous one.
pub const DIFF_SCHEMA_VERSION: u32 = 1;

/// The JSON output: its version, the diff with its counts per change.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DiffJson<'a> {
    schema_version: u32,
    marker: &'static str,
    counts: BTreeMap<Change, usize>,
    budgets_passed: bool,
    #[serde(flatten)]
    diff: &'a ReportDiff,
}

impl ReportDiff {
    /// The diff as text, markdown or JSON.
    pub fn render(&self, format: DiffFormat) -> String {
        match format {
            DiffFormat::Markdown => diff_markdown(self, COMMENT_LIMIT),
            DiffFormat::Text => self.render_text(),
            DiffFormat::Json => self.render_json(),
        }
    }

    fn render_json(&self) -> String {
        let json = DiffJson {
            schema_version: DIFF_SCHEMA_VERSION,
            marker: MARKER,
            counts: self.counts(),
            budgets_passed: self.budgets_passed(),
            diff: self,
        };
        // Plain data: serialising it cannot fail.
        serde_json::to_string_pretty(&json).unwrap_or_default() + "\n"
    }
}
