//! Tests of process groups: output, timeouts, what a group leaves behind.

use super::*;

fn sh(script: &str) -> ProcessSpec {
    ProcessSpec {
        program: "sh".into(),
        args: vec!["-c".into(), script.into()],
        env: vec![("GREETING".into(), "hi".into())],
        cwd: std::env::temp_dir(),
        live: false,
    }
}

/// Running, not gone and not a zombie waiting for init to reap it.
fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

#[tokio::test]
async fn captures_output_status_and_env() {
    let done = run(
        &sh("echo $GREETING; echo oops >&2; exit 3"),
        Duration::from_secs(20),
    )
    .await
    .unwrap();
    assert_eq!(done.stdout, "hi\n");
    assert_eq!(done.stderr, "oops\n");
    assert_eq!(done.status.and_then(|s| s.code()), Some(3));
    assert_eq!(done.describe(Duration::from_secs(1)), "exit code 3");
}

#[tokio::test]
async fn timeout_kills_the_whole_group_even_when_sigterm_is_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let script = format!(
        "trap '' TERM; (trap '' TERM; sleep 300) & echo $! > {p}; echo $$ >> {p}; echo started; sleep 300",
        p = pids.display()
    );
    let done = run(&sh(&script), Duration::from_millis(500)).await.unwrap();
    assert!(done.timed_out());
    assert_eq!(done.stdout, "started\n");
    assert!(
        done.describe(Duration::from_millis(500))
            .starts_with("timed out after 500ms")
    );
    let pids: Vec<i32> = std::fs::read_to_string(&pids)
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    assert_eq!(pids.len(), 2);
    for pid in pids {
        assert!(!alive(pid), "process {pid} survived");
    }
}

#[tokio::test]
async fn a_background_child_left_by_a_finished_script_is_killed() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pid");
    let script = format!("sleep 300 & echo $! > {}; exit 0", pid_file.display());
    let done = run(&sh(&script), Duration::from_secs(20)).await.unwrap();
    assert!(done.success());
    let pid: i32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    for _ in 0..50 {
        if !alive(pid) {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("background process {pid} survived");
}

#[tokio::test]
async fn a_group_left_to_end_by_itself_ends_or_says_it_did_not() {
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("saved");
    let script = format!("(sleep 0.3; echo saved > {}) & exit 0", saved.display());
    let (done, mut group) = run_leaving_group(&sh(&script), Duration::from_secs(20))
        .await
        .unwrap();
    assert!(done.success());
    assert!(group.alive(), "the leader's child is still at work");
    assert!(group.wait_empty(Duration::from_secs(10)).await);
    assert!(saved.exists(), "the child finished its work");
    assert!(!group.alive());
    group.kill();

    let (_, mut lingering) = run_leaving_group(&sh("sleep 300 & exit 0"), Duration::from_secs(20))
        .await
        .unwrap();
    assert!(!lingering.wait_empty(Duration::from_millis(100)).await);
    assert!(lingering.alive());
    lingering.kill();
}

#[tokio::test]
async fn a_guarded_group_is_registered_until_killed() {
    let (done, mut group) = run_leaving_group(&sh("sleep 300 & exit 0"), Duration::from_secs(20))
        .await
        .unwrap();
    assert!(done.success());
    let pgid = group.pgid().unwrap();
    assert!(is_guarded(pgid), "group {pgid} is not in the registry");
    group.kill();
    assert!(!is_guarded(pgid), "group {pgid} is still in the registry");
    assert_eq!(ProcessGroupGuard::new(0).pgid(), None, "pid 0 is no group");
}

#[test]
fn tail_keeps_the_last_lines() {
    assert_eq!(tail("a\nb\nc\n", 2), "[… 1 earlier lines …]\nb\nc");
    assert_eq!(tail("a\n", 5), "a");
}
