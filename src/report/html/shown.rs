//! Text as the page shows it: cut at a size limit, collapsed when long, with sizes and
//! durations in words. Used by the page's view and its timelines.
//!
//! The page holds only the part of a cut text it shows: its button expands that part and
//! says so (`Show the first 2.0 KB of 200.0 KB`); a note beside it links to the results
//! file, which holds the whole. Only a text the page holds whole has `Show all (…)`.

use serde::Serialize;
use serde_json::Value;

/// Text of a failed run shown in full up to this many bytes; the rest is cut with a note.
pub(super) const MAX_SHOWN: usize = 64 * 1024;
/// The same for a passed run, whose texts matter less (the page of a large suite stays
/// small; the results file has everything).
pub(super) const MAX_SHOWN_PASSED: usize = 2 * 1024;
/// Text longer than this many bytes or lines starts collapsed, with a button to expand.
const CLIP_BYTES: usize = 1200;
const CLIP_LINES: usize = 14;

/// Text as shown: cut at [`MAX_SHOWN`] bytes, collapsed when long.
#[derive(Serialize)]
pub(super) struct Shown {
    text: String,
    /// Starts collapsed behind a button.
    long: bool,
    /// Bytes left out.
    cut: usize,
    /// The size of the whole text, e.g. `12.3 KB`.
    size: String,
    /// The size of the part shown, e.g. `2.0 KB` (the whole text's when nothing is cut).
    shown_size: String,
}

impl Shown {
    pub(super) fn new(text: &str) -> Self {
        Self::up_to(text, MAX_SHOWN)
    }

    /// Text cut at `limit` bytes.
    pub(super) fn up_to(text: &str, limit: usize) -> Self {
        let end = crate::plumbing::text::boundary(text, limit);
        let shown = &text[..end];
        Shown {
            text: shown.to_owned(),
            long: shown.len() > CLIP_BYTES || shown.lines().count() > CLIP_LINES,
            cut: text.len() - end,
            size: bytes(text.len()),
            shown_size: bytes(end),
        }
    }

    /// A JSON value, pretty, cut at `limit` bytes.
    pub(super) fn json(value: &Value, limit: usize) -> Self {
        Self::up_to(
            &serde_json::to_string_pretty(value).unwrap_or_default(),
            limit,
        )
    }
}

/// `850 ms`, `12.3 s`, `4m 05s`.
pub(super) fn millis(ms: f64) -> String {
    if ms < 1000.0 {
        format!("{ms:.0} ms")
    } else if ms < 60_000.0 {
        format!("{:.1} s", ms / 1000.0)
    } else {
        let seconds = (ms / 1000.0).round() as u64;
        format!("{}m {:02}s", seconds / 60, seconds % 60)
    }
}

/// `512 B`, `12.3 KB`, `1.2 MB`; binary units: a KB is 1024 bytes, a MB 1024 KB.
pub(super) fn bytes(n: usize) -> String {
    if n < 1024 {
        format!("{n} B")
    } else if n < 1024 * 1024 {
        format!("{:.1} KB", n as f64 / 1024.0)
    } else {
        format!("{:.1} MB", n as f64 / (1024.0 * 1024.0))
    }
}

#[cfg(test)]
mod tests {
    use super::{MAX_SHOWN_PASSED, Shown};

    #[test]
    fn a_cut_text_keeps_its_first_bytes_and_knows_both_sizes() {
        let text = "x".repeat(200 * 1024);
        let shown = Shown::up_to(&text, MAX_SHOWN_PASSED);
        assert_eq!(shown.text.len(), 2048);
        assert_eq!(shown.cut, 200 * 1024 - 2048);
        assert_eq!(shown.size, "200.0 KB");
        assert_eq!(shown.shown_size, "2.0 KB");
        assert!(shown.long);
    }

    #[test]
    fn a_cut_ends_on_a_character_boundary() {
        let text = "é".repeat(2000);
        let shown = Shown::up_to(&text, 3);
        assert_eq!(shown.text, "é");
        assert_eq!((shown.cut, shown.shown_size.as_str()), (3998, "2 B"));
    }

    #[test]
    fn a_short_text_is_whole_and_open() {
        let shown = Shown::up_to("one line", MAX_SHOWN_PASSED);
        assert_eq!((shown.cut, shown.long), (0, false));
        assert_eq!(shown.size, shown.shown_size);
    }
}
