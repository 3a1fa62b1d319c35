//! Reports and diffs as other programs and pull requests read them: markdown for a
//! pull-request comment or the job summary, at most `COMMENT_LIMIT` bytes (`markdown.rs` a
//! diff, `markdown_report.rs` a merged report), a diff as text, markdown or JSON
//! (`diff_format.rs`: apart from the diff wing, so that the diff and its markdown do not
//! import each other), JUnit XML for dashboards (`junit.rs`), each test over its runs
//! (`outcome.rs`) and GitHub Actions' annotations and job summary (`github.rs`).

mod diff_format;
pub mod github;
mod junit;
mod markdown;
mod markdown_report;
mod outcome;

pub use diff_format::DIFF_SCHEMA_VERSION;
pub use junit::junit_xml;
pub use markdown::{COMMENT_LIMIT, MARKER, diff_markdown};
pub use markdown_report::report_markdown;
pub use outcome::{TestOutcome, test_outcomes};
