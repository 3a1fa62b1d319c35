//! `elicitations`, `maxElicitations` and `noElicitation`: what the servers asked the user
//! during the run (scripted or relayed to the agent).

use crate::config::{AssertionKind, Assertions, kind_name};
use crate::trace::{CallTrace, RecordedElicitation};

/// Each failed elicitation assertion of `assertions`: its kind, what it expected and what
/// the trace shows.
pub(super) fn check(
    assertions: &Assertions,
    trace: &CallTrace,
) -> Vec<(AssertionKind, String, String)> {
    let asked = &trace.elicitations;
    let mut failures = Vec::new();
    let missing: Vec<String> = (assertions.elicitations.iter())
        .filter(|entry| !asked.iter().any(|e| entry.matches(e)))
        .map(|entry| entry.describe())
        .collect();
    if !missing.is_empty() {
        failures.push((
            AssertionKind::Elicitations,
            format!("an elicitation matching each of: {}", missing.join(", ")),
            format!("none of them; {}", list(asked)),
        ));
    }
    if let Some(max) = assertions
        .max_elicitations
        .filter(|max| asked.len() > *max as usize)
    {
        failures.push((
            AssertionKind::MaxElicitations,
            format!("at most {max} elicitations"),
            format!("{}: {}", asked.len(), list(asked)),
        ));
    }
    if assertions.no_elicitation && !asked.is_empty() {
        failures.push((
            AssertionKind::NoElicitation,
            "no elicitation".to_owned(),
            list(asked),
        ));
    }
    failures
}

/// `elicitations: files during tool delete_file (form "Delete notes.txt?" → accept), …`.
fn list(asked: &[RecordedElicitation]) -> String {
    if asked.is_empty() {
        return "no server asked the user anything".to_owned();
    }
    let items: Vec<String> = asked.iter().map(describe).collect();
    format!("elicitations: {}", items.join(", "))
}

fn describe(elicitation: &RecordedElicitation) -> String {
    let during = match &elicitation.during {
        Some(during) => format!(" during {} {}", kind_name(during.kind), during.name),
        None => String::new(),
    };
    let turn = (elicitation.turn).map_or(String::new(), |turn| format!(" in turn {turn}"));
    let action = elicitation.action.map_or("no answer", |a| a.as_str());
    format!(
        "{}{during}{turn} ({} {:?} → {action})",
        elicitation.server,
        elicitation.mode.as_str(),
        elicitation.message
    )
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use regex::Regex;

    use super::*;
    use crate::config::ElicitationMatcher;
    use crate::trace::{AnsweredBy, CallKind, During, ElicitationAction, ElicitationMode};

    fn asked(tool: &str, action: ElicitationAction) -> RecordedElicitation {
        RecordedElicitation {
            server: "files".into(),
            mode: ElicitationMode::Form,
            message: format!("Really {tool}?"),
            requested_schema: None,
            url: None,
            turn: None,
            during: Some(During {
                kind: CallKind::Tool,
                name: tool.into(),
                position: Some(1),
            }),
            answered_by: AnsweredBy::Script,
            rule: None,
            action: Some(action),
            content: None,
            injected: None,
            failure: None,
            start_offset: Duration::ZERO,
        }
    }

    fn trace(asked: Vec<RecordedElicitation>) -> CallTrace {
        CallTrace {
            elicitations: asked,
            ..CallTrace::default()
        }
    }

    #[test]
    fn each_entry_must_match_an_elicitation() {
        let assertions = Assertions {
            elicitations: vec![ElicitationMatcher {
                tool: Some("delete_file".into()),
                action: Some(ElicitationAction::Accept),
                ..ElicitationMatcher::default()
            }],
            ..Assertions::default()
        };
        let accepted = trace(vec![asked("delete_file", ElicitationAction::Accept)]);
        assert!(check(&assertions, &accepted).is_empty());
        let declined = trace(vec![asked("delete_file", ElicitationAction::Decline)]);
        let failures = check(&assertions, &declined);
        assert_eq!(failures.len(), 1);
        let (kind, expected, actual) = &failures[0];
        assert_eq!(*kind, AssertionKind::Elicitations);
        assert!(
            expected.contains("tool=delete_file action=accept"),
            "{expected}"
        );
        assert!(
            actual
                .contains("files during tool delete_file (form \"Really delete_file?\" → decline)"),
            "{actual}"
        );
        let by_message = Assertions {
            elicitations: vec![ElicitationMatcher {
                message: Regex::new("^Really").ok(),
                mode: Some(ElicitationMode::Url),
                ..ElicitationMatcher::default()
            }],
            ..Assertions::default()
        };
        assert_eq!(check(&by_message, &accepted).len(), 1, "the mode differs");
    }

    #[test]
    fn an_entry_with_a_turn_matches_only_that_turns_elicitations() {
        let assertions = Assertions {
            elicitations: vec![ElicitationMatcher {
                tool: Some("delete_file".into()),
                turn: Some(2),
                ..ElicitationMatcher::default()
            }],
            ..Assertions::default()
        };
        let in_turn = |turn| RecordedElicitation {
            turn: Some(turn),
            ..asked("delete_file", ElicitationAction::Accept)
        };
        assert!(check(&assertions, &trace(vec![in_turn(2)])).is_empty());
        let failures = check(&assertions, &trace(vec![in_turn(1)]));
        let (_, expected, actual) = &failures[0];
        assert!(expected.contains("tool=delete_file turn=2"), "{expected}");
        assert!(
            actual.contains("during tool delete_file in turn 1 ("),
            "{actual}"
        );
    }

    #[test]
    fn counts_and_none_at_all() {
        let assertions = Assertions {
            max_elicitations: Some(1),
            no_elicitation: true,
            ..Assertions::default()
        };
        assert!(check(&assertions, &trace(vec![])).is_empty());
        let one = trace(vec![asked("delete_file", ElicitationAction::Accept)]);
        let kinds: Vec<AssertionKind> = check(&assertions, &one).into_iter().map(|f| f.0).collect();
        assert_eq!(kinds, [AssertionKind::NoElicitation]);
        let two = trace(vec![
            asked("delete_file", ElicitationAction::Accept),
            asked("move_file", ElicitationAction::Cancel),
        ]);
        let kinds: Vec<AssertionKind> = check(&assertions, &two).into_iter().map(|f| f.0).collect();
        assert_eq!(
            kinds,
            [AssertionKind::MaxElicitations, AssertionKind::NoElicitation]
        );
    }
}
