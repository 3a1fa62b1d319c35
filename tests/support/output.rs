//! A finished command's output as one text, for assertion messages.

use std::process::Output;

/// stdout, a line break, then stderr, both decoded leniently.
pub fn text(out: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}
