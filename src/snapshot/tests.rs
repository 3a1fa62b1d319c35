use std::path::Path;
use std::time::Duration;

use serde_json::json;

use super::*;
use crate::trace::{CallKind, CallTrace, Outcome, RecordedCall};

fn call(
    kind: CallKind,
    server: &str,
    name: &str,
    arguments: Option<Value>,
    outcome: Outcome,
) -> RecordedCall {
    RecordedCall {
        server: server.into(),
        kind,
        name: name.into(),
        arguments,
        outcome,
        start_offset: Duration::from_millis(5),
        duration: Duration::from_millis(12),
        injected: None,
        rounds: Vec::new(),
        task: Vec::new(),
        turn: None,
    }
}

fn sample() -> CallTrace {
    CallTrace {
        calls: vec![
            call(
                CallKind::Tool,
                "kubernetes",
                "pods_list",
                Some(json!({"namespace": "default", "at": "http://127.0.0.1:4242/x"})),
                Outcome::Ok {
                    result: json!({"content": []}),
                },
            ),
            call(
                CallKind::Resource,
                "docs",
                "file:///readme.md",
                None,
                Outcome::Ok { result: json!({}) },
            ),
            call(
                CallKind::Tool,
                "kubernetes",
                "pods_delete",
                Some(json!({})),
                Outcome::IsError {
                    result: json!({"content": [{"type": "text", "text": "forbidden"}], "isError": true}),
                },
            ),
            call(
                CallKind::Prompt,
                "docs",
                "review",
                Some(json!({"file": "/tmp/.tmpQ1/a.rs"})),
                Outcome::Error {
                    code: -32602,
                    message: "unknown prompt: review".into(),
                },
            ),
        ],
        discovery: vec![],
        advertised: Default::default(),
        elicitations: Vec::new(),
        sampling: Vec::new(),
    }
}

#[test]
fn snapshot_is_normalised_yaml_without_timings() {
    assert_eq!(
        render_snapshot(&sample(), &RunDirs::default()),
        "- tool: kubernetes/pods_list\n  arguments: {\"at\":\"http://127.0.0.1:[port]/x\",\"namespace\":\"default\"}\n  outcome: ok\n\
         - resource: docs/file:///readme.md\n  outcome: ok\n\
         - tool: kubernetes/pods_delete\n  outcome: is_error\n\
         - prompt: docs/review\n  arguments: {\"file\":\"[tmp]/a.rs\"}\n  outcome: \"error: unknown prompt: review\"\n"
    );
}

/// The issue's case, with the real filesystem server's tools: reading a file and listing its
/// directory under a temporary directory rendered the same (`"path":"[tmp]"`).
#[test]
fn calls_on_different_paths_under_one_temporary_directory_render_apart() {
    let ok = || Outcome::Ok { result: json!({}) };
    let trace = CallTrace {
        calls: vec![
            call(
                CallKind::Tool,
                "filesystem",
                "read_text_file",
                Some(json!({"path": "/tmp/.tmpW3xY9z/data/a.txt"})),
                ok(),
            ),
            call(
                CallKind::Tool,
                "filesystem",
                "list_directory",
                Some(json!({"path": "/tmp/.tmpW3xY9z/data"})),
                ok(),
            ),
            call(
                CallKind::Tool,
                "filesystem",
                "write_file",
                Some(
                    json!({"path": "/tmp/mcpeval-e__t-77/out.txt", "content": "see /tmp/.tmpW3xY9z/data"}),
                ),
                ok(),
            ),
        ],
        discovery: vec![],
        advertised: Default::default(),
        elicitations: Vec::new(),
        sampling: Vec::new(),
    };
    let dirs = RunDirs::new(
        Path::new("/work/out/runs/e__t"),
        Path::new("/tmp/mcpeval-e__t-77"),
    );
    assert_eq!(
        render_snapshot(&trace, &dirs),
        "- tool: filesystem/read_text_file\n  arguments: {\"path\":\"[tmp]/data/a.txt\"}\n  outcome: ok\n\
         - tool: filesystem/list_directory\n  arguments: {\"path\":\"[tmp]/data\"}\n  outcome: ok\n\
         - tool: filesystem/write_file\n  arguments: {\"content\":\"see [tmp]/data\",\"path\":\"[work]/out.txt\"}\n  outcome: ok\n"
    );
}

#[test]
fn empty_trace_has_an_explicit_snapshot() {
    assert_eq!(
        render_snapshot(&CallTrace::default(), &RunDirs::default()),
        "[] # no calls\n"
    );
}

#[test]
fn call_lines_show_arguments_outcome_duration_and_result_tokens() {
    let lines = render_call_lines(&sample(), &[Some(1), None, Some(1_234)]);
    let lines: Vec<&str> = lines.lines().collect();
    assert_eq!(
        lines[0],
        "  #1 tool kubernetes/pods_list {\"namespace\":\"default\",\"at\":\"http://127.0.0.1:4242/x\"} → ok (12ms, 1 token)"
    );
    assert_eq!(
        lines[2],
        "  #3 tool kubernetes/pods_delete → is_error \"forbidden\" (12ms, 1,234 tokens)"
    );
    assert_eq!(
        lines[3],
        "  #4 prompt docs/review {\"file\":\"/tmp/.tmpQ1/a.rs\"} → error -32602: unknown prompt: review (12ms)"
    );
}

#[test]
fn accepted_snapshot_body_is_read_after_the_header() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("e__t.snap");
    std::fs::write(
        &path,
        "---\nsource: src/snapshot/mod.rs\ndescription: x\n---\n- tool: a/b\n  outcome: ok\n",
    )
    .unwrap();
    assert_eq!(
        read_accepted(&path).unwrap(),
        "- tool: a/b\n  outcome: ok\n"
    );
    assert!(read_accepted(&dir.path().join("missing.snap")).is_none());
}

#[test]
fn off_never_touches_files() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("task.yaml");
    let always = SnapshotSettings {
        update: SnapshotUpdate::Always,
        ..SnapshotSettings::default()
    };
    let status = check_snapshot(
        SnapshotMode::Off,
        &always,
        dir.path(),
        "e__t",
        &input,
        "x\n",
    );
    assert_eq!(status, SnapshotStatus::Off);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// The accepted snapshot's body, or `None` when there is no `<name>.snap`.
fn body(path: &Path) -> Option<String> {
    path.exists().then(|| read_accepted(path).unwrap())
}

/// What each `INSTA_UPDATE` (under CI or not) writes for a trace that matches, is new (no
/// `.snap`) or changed, as insta writes it; a stale `.snap.new` is there before each check.
/// A mismatch fails a strict eval unless the `.snap` was written or `INSTA_FORCE_PASS=1`.
#[test]
fn each_update_mode_writes_what_insta_writes() {
    use SnapshotUpdate::{Always, Auto, Force, New, No, Unseen};
    use Written::{Accepted, Nothing, Pending};
    let (old, run) = ("- tool: a/b\n", "- tool: a/c\n");
    // (mode, CI, written when matched / new / changed); `None`: matched.
    let cases = [
        (Auto, false, [None, Some(Pending), Some(Pending)]),
        (Auto, true, [None, Some(Nothing), Some(Nothing)]),
        (Always, true, [None, Some(Accepted), Some(Accepted)]),
        (New, true, [None, Some(Pending), Some(Pending)]),
        (No, false, [None, Some(Nothing), Some(Nothing)]),
        (Unseen, false, [None, Some(Accepted), Some(Pending)]),
        (Force, false, [None, Some(Accepted), Some(Accepted)]),
    ];
    for (update, ci, expected) in cases {
        for (accepted, written) in [Some(run), None, Some(old)].into_iter().zip(expected) {
            let case = format!("{update} (CI: {ci}), accepted {accepted:?}");
            let dir = tempfile::tempdir().unwrap();
            let (snap, pending) = (
                dir.path().join("e__t.snap"),
                dir.path().join("e__t.snap.new"),
            );
            if let Some(accepted) = accepted {
                std::fs::write(&snap, format!("---\nsource: old\n---\n{accepted}")).unwrap();
            }
            std::fs::write(&pending, "---\nsource: old\n---\n- tool: stale\n").unwrap();
            let settings = SnapshotSettings {
                update,
                ci,
                force_pass: false,
            };
            let input = Path::new("tasks/t.yaml");
            let status = check_snapshot(
                SnapshotMode::Strict,
                &settings,
                dir.path(),
                "e__t",
                input,
                run,
            );
            assert_eq!(status.written(), written, "{case}: {status:?}");
            let (snap_body, pending_body) = match written {
                None | Some(Accepted) => (Some(run), None),
                Some(Pending) => (accepted, Some(run)),
                Some(Nothing) => (accepted, Some("- tool: stale\n")),
            };
            assert_eq!(body(&snap).as_deref(), snap_body, "{case}: the .snap");
            assert_eq!(
                body(&pending).as_deref(),
                pending_body,
                "{case}: the .snap.new"
            );
            // `force` writes a matching `.snap` anew (its header names the task file now).
            let header = std::fs::read_to_string(&snap).unwrap_or_default();
            let rewritten = header.contains("source: \"tasks/t.yaml\"");
            let expect_rewritten =
                written == Some(Accepted) || (written.is_none() && update == Force);
            assert_eq!(rewritten, expect_rewritten, "{case}: {header}");
            let fails = matches!(written, Some(Pending | Nothing));
            assert_eq!(status.fails_strict(&settings), fails, "{case}");
            let forced = SnapshotSettings {
                force_pass: true,
                ..settings
            };
            assert!(!status.fails_strict(&forced), "{case}: INSTA_FORCE_PASS=1");
            if let SnapshotStatus::Changed { diff, .. } = &status {
                assert!(diff.contains("-- tool: a/b\n+- tool: a/c\n"), "{diff}");
            }
        }
    }
}

#[test]
fn insta_variables_are_read_as_insta_reads_them_and_bad_values_are_named() {
    let read = |vars: &[(&str, &str)]| {
        SnapshotSettings::from_env(|name| {
            (vars.iter())
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        })
    };
    let settings = |update, force_pass, ci| SnapshotSettings {
        update,
        force_pass,
        ci,
    };
    use SnapshotUpdate::{Always, Auto, Force, New, No, Unseen};
    let cases: &[(&[(&str, &str)], SnapshotSettings)] = &[
        (&[], settings(Auto, false, false)),
        (
            &[("INSTA_UPDATE", ""), ("CI", "true")],
            settings(Auto, false, true),
        ),
        (
            &[("INSTA_UPDATE", "auto"), ("TF_BUILD", "True")],
            settings(Auto, false, true),
        ),
        (
            &[("INSTA_UPDATE", "always")],
            settings(Always, false, false),
        ),
        (&[("INSTA_UPDATE", "1")], settings(Always, false, false)),
        (&[("INSTA_UPDATE", "new")], settings(New, false, false)),
        (&[("INSTA_UPDATE", "no")], settings(No, false, false)),
        (
            &[("INSTA_UPDATE", "unseen")],
            settings(Unseen, false, false),
        ),
        (&[("INSTA_UPDATE", "force")], settings(Force, false, false)),
        (&[("INSTA_FORCE_PASS", "1")], settings(Auto, true, false)),
        (&[("INSTA_FORCE_PASS", "0")], settings(Auto, false, false)),
        (&[("INSTA_FORCE_PASS", "")], settings(Auto, false, false)),
    ];
    for (vars, expected) in cases {
        assert_eq!(read(vars), Ok(*expected), "{vars:?}");
    }
    let error = |vars: &[(&str, &str)]| read(vars).unwrap_err().to_string();
    assert_eq!(
        error(&[("INSTA_UPDATE", "yes")]),
        "INSTA_UPDATE: `yes` is not a value it takes; expected one of auto, always, new, no, unseen, force"
    );
    assert_eq!(
        error(&[("INSTA_FORCE_PASS", "true")]),
        "INSTA_FORCE_PASS: `true` is not a value it takes; expected one of 1, 0"
    );
}

fn injected(fault: crate::trace::FaultKind, rule: &str) -> Option<crate::trace::Injected> {
    Some(crate::trace::Injected {
        fault,
        rule: rule.into(),
    })
}

fn list_event(
    at_ms: u64,
    error: Option<&str>,
    fault: Option<crate::trace::Injected>,
) -> crate::trace::DiscoveryEvent {
    crate::trace::DiscoveryEvent {
        server: "demo".into(),
        list: crate::trace::ListKind::Tools,
        cursor: None,
        items: error.is_none().then_some(3),
        error: error.map(Into::into),
        start_offset: Duration::from_millis(at_ms),
        duration: Duration::from_millis(2),
        injected: fault,
    }
}

/// A run with faults: a failed `tools/list` (injected), a listing that went through, an
/// injected tool error, a delayed answer and a call after them all.
fn faulted() -> CallTrace {
    use crate::trace::FaultKind;
    let mut failed = call(
        CallKind::Tool,
        "demo",
        "add",
        Some(json!({"a": 1})),
        Outcome::IsError {
            result: json!({"content": [{"type": "text", "text": "try again"}], "isError": true}),
        },
    );
    failed.injected = injected(FaultKind::ToolError, "config.taskSets[0].faults[1]");
    let mut delayed = call(
        CallKind::Tool,
        "demo",
        "add",
        Some(json!({"a": 1})),
        Outcome::Ok { result: json!({}) },
    );
    delayed.injected = injected(FaultKind::Delay, "spec.faults[0]");
    let mut after = call(
        CallKind::Tool,
        "demo",
        "echo",
        None,
        Outcome::Ok { result: json!({}) },
    );
    after.start_offset = Duration::from_millis(50);
    CallTrace {
        calls: vec![failed, delayed, after],
        discovery: vec![
            list_event(
                1,
                Some("injected failure"),
                injected(FaultKind::Error, "spec.faults[1]"),
            ),
            list_event(2, None, None),
            list_event(
                20,
                Some("injected failure"),
                injected(FaultKind::Error, "spec.faults[1]"),
            ),
        ],
        advertised: Default::default(),
        elicitations: Vec::new(),
        sampling: Vec::new(),
    }
}

#[test]
fn injected_faults_are_shown_as_what_they_were_in_the_snapshot() {
    assert_eq!(
        render_snapshot(&faulted(), &RunDirs::default()),
        "- tools/list: demo\n  outcome: \"error: injected failure\"\n  injected: error (spec.faults[1])\n\
         - tool: demo/add\n  arguments: {\"a\":1}\n  outcome: is_error\n  injected: toolError (config.taskSets[0].faults[1])\n\
         - tool: demo/add\n  arguments: {\"a\":1}\n  outcome: ok\n  injected: delay (spec.faults[0])\n\
         - tools/list: demo\n  outcome: \"error: injected failure\"\n  injected: error (spec.faults[1])\n\
         - tool: demo/echo\n  outcome: ok\n"
    );
    // List calls without a fault stay out of snapshots, as before faults.
    let mut quiet = sample();
    quiet.discovery = vec![list_event(1, None, None)];
    assert_eq!(
        render_snapshot(&quiet, &RunDirs::default()),
        render_snapshot(&sample(), &RunDirs::default())
    );
    let only_a_list = CallTrace {
        calls: vec![],
        ..faulted()
    };
    assert_eq!(
        render_snapshot(&only_a_list, &RunDirs::default()),
        "- tools/list: demo\n  outcome: \"error: injected failure\"\n  injected: error (spec.faults[1])\n\
         - tools/list: demo\n  outcome: \"error: injected failure\"\n  injected: error (spec.faults[1])\n"
    );
}

#[test]
fn call_lines_say_an_injected_answer_is_not_the_servers() {
    let lines = render_call_lines(&faulted(), &[None, Some(1), Some(1)]);
    let lines: Vec<&str> = lines.lines().collect();
    assert_eq!(
        lines,
        [
            "  - tools/list demo → injected error (spec.faults[1]): error: injected failure (2ms)",
            "  #1 tool demo/add {\"a\":1} → injected toolError (config.taskSets[0].faults[1]): is_error \"try again\" (12ms)",
            "  #2 tool demo/add {\"a\":1} → ok (12ms, 1 token; injected delay (spec.faults[0]))",
            "  - tools/list demo → injected error (spec.faults[1]): error: injected failure (2ms)",
            "  #3 tool demo/echo → ok (12ms, 1 token)",
        ]
    );
}

fn elicitation(
    position: Option<usize>,
    action: crate::trace::ElicitationAction,
    rule: Option<&str>,
    failure: Option<&str>,
) -> crate::trace::RecordedElicitation {
    crate::trace::RecordedElicitation {
        server: "kubernetes".into(),
        mode: crate::trace::ElicitationMode::Form,
        message: "Delete pod web-1?".into(),
        requested_schema: Some(json!({"type": "object"})),
        url: None,
        turn: None,
        during: position.map(|position| crate::trace::During {
            kind: CallKind::Tool,
            name: "pods_delete".into(),
            position: Some(position),
        }),
        answered_by: crate::trace::AnsweredBy::Script,
        rule: rule.map(str::to_owned),
        action: Some(action),
        content: None,
        injected: None,
        failure: failure.map(str::to_owned),
        start_offset: Duration::from_millis(7),
    }
}

#[test]
fn elicitations_are_shown_under_the_call_they_came_during() {
    use crate::trace::ElicitationAction::{Accept, Cancel};
    let mut trace = sample();
    trace.elicitations = vec![
        elicitation(Some(3), Accept, Some("spec.elicitation.rules[0]"), None),
        elicitation(None, Cancel, None, Some("no `elicitation` rule answers …")),
    ];
    let snapshot = render_snapshot(&trace, &RunDirs::new(Path::new("/r"), Path::new("/w")));
    assert!(
        snapshot.contains(
            "- tool: kubernetes/pods_delete\n  outcome: is_error\n  elicitations:\n  - form \"Delete pod web-1?\" → accept (spec.elicitation.rules[0])\n"
        ),
        "{snapshot}"
    );
    assert!(
        snapshot.ends_with(
            "- elicitation: kubernetes form \"Delete pod web-1?\" → cancel, failed (unmatched)\n"
        ),
        "{snapshot}"
    );
    let lines = render_call_lines(&trace, &[]);
    assert!(
        lines.contains(
            "\n       asked: form \"Delete pod web-1?\" → accept (spec.elicitation.rules[0])\n  #4 "
        ),
        "{lines}"
    );
    assert!(
        lines.ends_with(
            "  - kubernetes asked: form \"Delete pod web-1?\" → cancel, failed (unmatched)"
        ),
        "{lines}"
    );
    let asked_only = CallTrace {
        elicitations: trace.elicitations.split_off(1),
        ..CallTrace::default()
    };
    let dirs = RunDirs::new(Path::new("/r"), Path::new("/w"));
    assert!(render_snapshot(&asked_only, &dirs).starts_with("- elicitation: "));
}

#[test]
fn a_calls_input_rounds_and_task_statuses_are_shown_with_it() {
    let mut trace = sample();
    let step = |status: &str| crate::trace::TaskStatusStep {
        task_id: "t1".into(),
        status: status.into(),
        message: None,
    };
    trace.calls[0].task = ["working", "working", "input_required", "completed"]
        .map(step)
        .to_vec();
    trace.calls[0].rounds = vec![crate::trace::InputRound {
        asked: [("confirm".to_owned(), "elicitation/create".to_owned())].into(),
        request_state: Some("s1".into()),
    }];
    let snapshot = render_snapshot(&trace, &RunDirs::default());
    assert!(
        snapshot.contains(
            "  outcome: ok\n  task: working → input_required → completed\n  rounds:\n  - confirm elicitation/create\n"
        ),
        "{snapshot}"
    );
    let lines = render_call_lines(&trace, &[]);
    assert!(
        lines.contains(", task working → input_required → completed, 1 input round: confirm elicitation/create)"),
        "{lines}"
    );
}
