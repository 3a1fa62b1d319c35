//! Text as the page shows it: cut at a size limit, collapsed when long, with sizes and
//! durations in words. Used by the page's view and its timelines.

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
}

impl Shown {
    pub(super) fn new(text: &str) -> Self {
        Self::up_to(text, MAX_SHOWN)
    }

    /// Text cut at `limit` bytes.
    pub(super) fn up_to(text: &str, limit: usize) -> Self {
        let mut end = text.len().min(limit);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        Shown {
            text: text[..end].to_owned(),
            long: text.len() > CLIP_BYTES || text.lines().count() > CLIP_LINES,
            cut: text.len() - end,
            size: bytes(text.len()),
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

/// `512 B`, `12.3 KB`, `1.2 MB`.
pub(super) fn bytes(n: usize) -> String {
    if n < 1024 {
        format!("{n} B")
    } else if n < 1024 * 1024 {
        format!("{:.1} KB", n as f64 / 1024.0)
    } else {
        format!("{:.1} MB", n as f64 / (1024.0 * 1024.0))
    }
}
