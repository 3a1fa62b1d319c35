//! The snapshot files: reading the accepted body, what each `INSTA_UPDATE` mode writes, and
//! insta's variables read from the environment.

use std::path::Path;

use crate::snapshot::{
    SnapshotMode, SnapshotSettings, SnapshotStatus, SnapshotUpdate, Written, check_snapshot,
    read_accepted,
};

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
