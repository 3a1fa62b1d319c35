//! The variants of an eval compared with its baseline (`config.variants`): per variant its
//! figures, each variant against the baseline over the tasks both ran with a paired test,
//! Holm's adjustment and a verdict (`variant_report.rs`), on the pure statistics of
//! `stats.rs` (exact McNemar, the sign-flip permutation test, Holm, the verdict). The matrix
//! of tasks by variants is the HTML report's.

mod stats;
mod variant_report;

pub(in crate::report) use stats::ln_choose;
pub use stats::{SignFlip, VariantVerdict, format_p, holm, mcnemar_exact, sign_flip, verdict};
pub use variant_report::{Comparison, PairedTest, VariantReport, VariantSummary, render_variants};
pub(in crate::report) use variant_report::{count, eval_runs};
