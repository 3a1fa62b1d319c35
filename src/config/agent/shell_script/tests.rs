//! The quoting context of each field in a `runPrompt` run through a shell.

use super::*;

const RUN: &[Field] = &[
    Field::McpServerFileArgs,
    Field::AllowedToolArgs,
    Field::Prompt,
];

const BARE: Quoting = Quoting::Bare { whole_word: true };
const GLUED: Quoting = Quoting::Bare { whole_word: false };

/// The quoting of each field of `source`, in order.
fn quotings(source: &str) -> Vec<Quoting> {
    parse(source, RUN)
        .unwrap()
        .pieces
        .into_iter()
        .filter_map(|piece| match piece {
            ScriptPiece::Field { quoting, .. } => Some(quoting),
            ScriptPiece::Text(_) => None,
        })
        .collect()
}

/// The script with each field written as `<Field>`.
fn code(source: &str) -> String {
    parse(source, RUN)
        .unwrap()
        .pieces
        .into_iter()
        .map(|piece| match piece {
            ScriptPiece::Text(text) => text,
            ScriptPiece::Field { field, .. } => format!("<{}>", field.name()),
        })
        .collect()
}

#[test]
fn fields_outside_inside_double_and_inside_single_quotes() {
    assert_eq!(
        quotings(r#"a {{ .Prompt }} "{{ .Prompt }}" '{{ .Prompt }}' $'{{ .Prompt }}'"#),
        [BARE, Quoting::Double, Quoting::Single, Quoting::AnsiC]
    );
}

#[test]
fn a_field_glued_to_other_text_is_not_a_whole_word() {
    assert_eq!(
        quotings("a --p={{ .Prompt }} {{ .Prompt }}x {{ .Prompt }}{{ .Prompt }} {{ .Prompt }}|b"),
        [GLUED, GLUED, GLUED, GLUED, BARE]
    );
}

#[test]
fn backslashes_escape_quotes_outside_and_inside_double_quotes() {
    assert_eq!(
        quotings(r#"a \' {{ .Prompt }} "\" {{ .Prompt }}" \" {{ .Prompt }}"#),
        [BARE, Quoting::Double, BARE]
    );
    assert_eq!(
        quotings(r"a $'it\'s {{ .Prompt }}' {{ .Prompt }}"),
        [Quoting::AnsiC, BARE]
    );
}

#[test]
fn quotes_of_the_other_kind_are_plain_text_inside_quotes() {
    assert_eq!(
        quotings(r#"a "it's {{ .Prompt }}" 'say "{{ .Prompt }}' {{ .Prompt }}"#),
        [Quoting::Double, Quoting::Single, BARE]
    );
}

#[test]
fn command_substitutions_open_a_new_quoting_level() {
    assert_eq!(
        quotings(r#"a "$(echo '{{ .Prompt }}' "{{ .Prompt }}" {{ .Prompt }})" {{ .Prompt }}"#),
        [Quoting::Single, Quoting::Double, BARE, BARE]
    );
    assert_eq!(
        quotings(r#"a "`echo {{ .Prompt }}`{{ .Prompt }}""#),
        [BARE, Quoting::Double]
    );
    assert_eq!(
        quotings(r#"a "$( (echo) ; echo "x)" )" '{{ .Prompt }}'"#),
        [Quoting::Single]
    );
}

#[test]
fn arithmetic_is_no_heredoc() {
    assert_eq!(
        quotings("x=$(( 1 << 2 )); (( y <<= 1 ))\n'{{ .Prompt }}'"),
        [Quoting::Single]
    );
}

#[test]
fn quotes_in_comments_open_nothing() {
    assert_eq!(
        quotings("# don't \"quote\" {{ .Prompt }}\nagent '{{ .Prompt }}' a#b'{{ .Prompt }}'"),
        [GLUED, Quoting::Single, Quoting::Single]
    );
}

#[test]
fn an_unquoted_heredoc_body_expands_like_double_quotes_and_its_quotes_are_text() {
    let source = "cat <<EOF | agent\nit's {{ .Prompt }}\nEOF\n'{{ .Prompt }}'";
    assert_eq!(quotings(source), [Quoting::Double, Quoting::Single]);
    assert_eq!(
        code(source),
        "cat <<EOF | agent\nit's <Prompt>\nEOF\n'<Prompt>'"
    );
}

#[test]
fn a_quoted_heredoc_with_a_field_is_rewritten_unquoted_with_its_text_escaped() {
    let source = "cat <<'END' > p.txt\n$HOME `id` \\n {{ .Prompt }}\nEND\nagent < p.txt";
    assert_eq!(quotings(source), [Quoting::Double]);
    assert_eq!(
        code(source),
        "cat <<END > p.txt\n\\$HOME \\`id\\` \\\\n <Prompt>\nEND\nagent < p.txt"
    );
}

#[test]
fn a_quoted_heredoc_without_a_field_stays_as_written() {
    let source = "cat <<-\"END\" <<\\X\n\t$HOME '\n\tEND\n$y\nX\nagent {{ .Prompt }}";
    assert_eq!(quotings(source), [BARE]);
    assert_eq!(
        code(source),
        "cat <<-\"END\" <<\\X\n\t$HOME '\n\tEND\n$y\nX\nagent <Prompt>"
    );
}

#[test]
fn a_heredoc_in_a_substitution_and_a_here_string() {
    let source = "p=$(cat <<'E'\n{{ .Prompt }} )'\nE\n)\nagent <<< '{{ .Prompt }}'";
    assert_eq!(quotings(source), [Quoting::Double, Quoting::Single]);
}

#[test]
fn a_delimiter_line_with_a_field_does_not_end_the_heredoc() {
    assert_eq!(
        quotings("cat <<EOF\nEOF{{ .Prompt }}\n'\nEOF\n'{{ .Prompt }}'"),
        [Quoting::Double, Quoting::Single]
    );
}

#[test]
fn a_field_as_heredoc_delimiter_or_in_a_quoted_heredoc_with_an_odd_delimiter_is_an_error() {
    let e = parse("cat <<{{ .Prompt }}\nx\n", RUN).unwrap_err();
    assert!(
        e.contains("heredoc delimiter cannot be a template field"),
        "{e}"
    );
    let e = parse("cat <<'A B'\n{{ .Prompt }}\nA B\n", RUN).unwrap_err();
    assert!(
        e.contains("line 2: {{ .Prompt }} stands in a quoted heredoc"),
        "{e}"
    );
}

#[test]
fn an_unclosed_quote_is_an_error_naming_its_line() {
    let e = parse("agent {{ .Prompt }}\necho 'oops", RUN).unwrap_err();
    assert_eq!(e, "unclosed ' quote opened on line 2; expected a closing '");
    assert!(parse("echo \"{{ .Prompt }}", RUN).is_err());
}

#[test]
fn printf_q_fields_are_placed_like_plain_fields() {
    assert_eq!(
        quotings(r#"printf '%b' {{ printf "%q" .Prompt }} "{{ printf "%q" .Prompt }}""#),
        [BARE, Quoting::Double]
    );
}

#[test]
fn a_real_multi_line_agent_script_places_every_field() {
    let source = include_str!("../../../../tests/fixtures/shell/agent-script.sh");
    assert_eq!(
        quotings(source),
        [Quoting::Double, BARE],
        "{}",
        code(source)
    );
}
