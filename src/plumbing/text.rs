//! Shortening text for messages, reasons and logs: one rule everywhere.

/// `text` cut to at most `max_bytes` bytes at a character boundary, marked
/// `… (N more bytes)` when it was cut.
pub fn shorten(text: &str, max_bytes: usize) -> String {
    if text.len() <= max_bytes {
        return text.to_owned();
    }
    let mut end = max_bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} more bytes)", &text[..end], text.len() - end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_at_a_character_boundary_and_says_how_much_is_left() {
        assert_eq!(shorten("hello", 5), "hello");
        assert_eq!(shorten("héllo", 2), "h… (5 more bytes)");
        assert_eq!(shorten("abcdef", 3), "abc… (3 more bytes)");
    }
}
