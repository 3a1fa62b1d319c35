//! Shortening text for messages, reasons, logs, reports and comments: one rule everywhere.
//! A cut never splits a character ([`boundary`]); a message says how much it left out
//! ([`shorten`]); a line meant for reading (a YAML comment) ends at a word ([`cut_at_word`]).

/// The largest character boundary of `text` at or below `max_bytes` (the whole length when
/// it is shorter): where every cut of mcpeval ends.
pub fn boundary(text: &str, max_bytes: usize) -> usize {
    let mut end = max_bytes.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    end
}

/// `text` cut to at most `max_bytes` bytes at a character boundary, marked
/// `… (N more bytes)` when it was cut.
pub fn shorten(text: &str, max_bytes: usize) -> String {
    if text.len() <= max_bytes {
        return text.to_owned();
    }
    let end = boundary(text, max_bytes);
    format!("{}… ({} more bytes)", &text[..end], text.len() - end)
}

/// `text` cut to at most `max` characters, at a word boundary when one is in its second
/// half, with `…` when cut (for `mcpeval init`'s comment lines).
#[cfg(feature = "cli")]
pub fn cut_at_word(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let head: String = text.chars().take(max.saturating_sub(1)).collect();
    let head = match head.rfind(' ') {
        Some(space) if space > head.len() / 2 => &head[..space],
        _ => head.as_str(),
    };
    format!("{}…", head.trim_end())
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

    #[test]
    fn the_boundary_is_never_inside_a_character_nor_past_the_end() {
        assert_eq!(boundary("héllo", 2), 1);
        assert_eq!(boundary("héllo", 3), 3);
        assert_eq!(boundary("abc", 10), 3);
    }

    #[cfg(feature = "cli")]
    #[test]
    fn a_cut_at_a_word_ends_at_a_space_in_the_second_half() {
        assert_eq!(cut_at_word("short", 10), "short");
        assert_eq!(cut_at_word("lists the users of a team", 16), "lists the…");
        assert_eq!(cut_at_word("abcdefghijkl", 6), "abcde…");
        assert_eq!(cut_at_word("one two three four", 12), "one two…");
        assert_eq!(cut_at_word("ééééééééééé", 5), "éééé…");
    }
}
