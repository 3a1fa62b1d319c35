//! The HTML report: one self-contained page (styles and scripts inline, nothing fetched)
//! of a merged report — the summary, a sortable and filterable table of task runs, and per
//! run its timeline, failed assertions, snapshot diff and step outputs.
//!
//! `page.rs` renders and writes it (minijinja, auto-escaped, from `report.html` with
//! `report.css` and `report.js` inline; the runs' details of `runs.html` held compressed);
//! `view.rs` holds the page's figures and rows, `shown.rs` text as shown, `link.rs` a run's
//! anchor and its results file as a link, `timeline.rs` a run's steps, LLM turns and MCP
//! calls in order, and `variants.rs` with `variants.html` the Variants section over
//! `variant_matrix.rs`, an eval's tasks by variants.

mod link;
mod page;
mod parameter_matrix;
mod shown;
mod timeline;
mod variant_matrix;
mod variants;
mod view;

pub use link::anchor;
pub use page::{HtmlError, render_html, write_html};
pub use variant_matrix::{MatrixCell, MatrixRow, VariantMatrix, variant_matrices};
