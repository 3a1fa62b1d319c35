//! SIGTERM and SIGINT in the middle of a run (issue 14, point 2).
//!
//! The eval, `tests/fixtures/signals`: task `a-finishes` ends before the signal; `b-hangs`
//! has a setup script that leaves a process running in the background, an agent that calls
//! the stdio demo server and then sleeps, and a cleanup step that writes a marker; `c-later`
//! would run after it. Every setup script, agent, server and cleanup step appends `<what>
//! <its process group>` to `$SIGNALS_DIR/groups` (a temporary directory), so the test knows
//! every process group mcpeval started. The signal is sent once `b-hangs`'s agent is
//! connected to its server.
//!
//! Expected after one signal: the exit code names it (130 SIGINT, 143 SIGTERM), `b-hangs`'s
//! cleanup ran, `a-finishes` keeps its passing results file, `b-hangs`'s results file says
//! it was interrupted, `c-later` did not run, and no process of any recorded group is left.
//! After a second SIGINT during the (slow) cleanup: mcpeval exits at once, still with 130,
//! and kills every group, the cleanup's too. Under nextest, `terminate-after` sends the
//! SIGTERM, and the same holds.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crate::support::peers::nextest_available;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::Value;

/// How long mcpeval may take to stop after the last signal.
const STOP_WITHIN: Duration = Duration::from_secs(10);

/// How long killed processes may take to be gone.
const GONE_WITHIN: Duration = Duration::from_secs(3);

/// The eval, relative to the package.
const EVAL: &str = "tests/fixtures/signals/eval.yaml";

/// A run of the `signals` fixture: its processes record their groups and markers in a
/// temporary directory, where its results go too.
struct SignalsEval {
    dir: tempfile::TempDir,
    /// Seconds `b-hangs`'s cleanup sleeps before it writes its marker.
    cleanup_sleep: u32,
}

impl SignalsEval {
    fn new(cleanup_sleep: u32) -> Self {
        let dir = tempfile::tempdir().expect("a temporary directory");
        SignalsEval { dir, cleanup_sleep }
    }

    /// `command` in the package's directory with the fixture's variables.
    fn command(&self, mut command: Command) -> Command {
        command
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("SIGNALS_DIR", self.dir.path())
            .env("SIGNALS_CLEANUP_SLEEP", self.cleanup_sleep.to_string())
            .env("RUST_BACKTRACE", "0");
        command
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `mcpeval check` on the eval, one task at a time, output into files.
    fn check(&self) -> Running {
        let file = |name: &str| std::fs::File::create(self.path(name)).expect("an output file");
        let child = self
            .command(Command::new(env!("CARGO_BIN_EXE_mcpeval")))
            .args(["check", EVAL, "--output"])
            .arg(self.path("out"))
            .args(["--", "--test-threads", "1"])
            .stdin(Stdio::null())
            .stdout(file("stdout.txt"))
            .stderr(file("stderr.txt"))
            .spawn()
            .expect("mcpeval starts");
        Running { child }
    }

    /// Every `(what, process group)` the eval's processes recorded.
    fn groups(&self) -> Vec<(String, i32)> {
        let text = std::fs::read_to_string(self.path("groups")).unwrap_or_default();
        text.lines()
            .filter_map(|line| line.split_once(' '))
            .filter_map(|(what, pgid)| Some((what.to_owned(), pgid.trim().parse().ok()?)))
            .collect()
    }

    fn recorded(&self, what: &str) -> usize {
        self.groups().iter().filter(|(w, _)| w == what).count()
    }

    /// Polls until `b-hangs`'s agent is connected to its server (the second server started)
    /// and its setup left its background process.
    fn wait_for_the_hanging_agent(&self, running: &mut Running) {
        wait_until("b-hangs's agent and server are up", running, || {
            self.recorded("server") >= 2 && self.recorded("setup") == 1
        });
    }

    /// The results files under `out`, by task name.
    fn results(&self, out: &str) -> BTreeMap<String, Value> {
        let dir = self.path(out).join("results");
        let entries = std::fs::read_dir(&dir).map(|d| d.flatten().collect::<Vec<_>>());
        let mut results = BTreeMap::new();
        for entry in entries.unwrap_or_default() {
            let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
            if let Ok(result) = serde_json::from_str::<Value>(&text) {
                let name = result["taskName"].as_str().unwrap_or_default().to_owned();
                results.insert(name, result);
            }
        }
        results
    }

    /// What mcpeval printed, for assertion messages.
    fn output(&self) -> String {
        let read = |name: &str| std::fs::read_to_string(self.path(name)).unwrap_or_default();
        format!(
            "--- stdout ---\n{}\n--- stderr ---\n{}",
            read("stdout.txt"),
            read("stderr.txt")
        )
    }
}

/// A started mcpeval, killed and reaped if the test ends before it does.
struct Running {
    child: Child,
}

impl Running {
    fn signal(&self, signal: Signal) {
        let pid = Pid::from_raw(i32::try_from(self.child.id()).expect("a pid"));
        kill(pid, signal).expect("mcpeval is there to signal");
    }

    /// Waits for mcpeval to exit; `None` when it runs on past `within`.
    fn exit_within(&mut self, within: Duration) -> Option<ExitStatus> {
        let started = Instant::now();
        while started.elapsed() < within {
            if let Some(status) = self.child.try_wait().expect("mcpeval's status") {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }

    fn exited(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(Some(_)))
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Polls `ready` for up to 20 s; fails when mcpeval exits or time runs out first.
fn wait_until(what: &str, running: &mut Running, ready: impl Fn() -> bool) {
    let started = Instant::now();
    while !ready() {
        assert!(!running.exited(), "mcpeval exited before {what}");
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "expected {what} within 20 s; it did not happen"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Processes of these groups that still run, as `pid (what): command`. Zombies do not count:
/// they are dead and only wait for init to reap them.
fn survivors(groups: &[(String, i32)]) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // After the command's `)`: state, ppid, process group.
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .map_or(vec![], |(_, rest)| rest.split_whitespace().collect());
        let (Some(state), Some(pgid)) = (fields.first(), fields.get(2)) else {
            continue;
        };
        let member = groups.iter().find(|(_, g)| pgid.parse() == Ok(*g));
        let signalable = kill(Pid::from_raw(pid), None).is_ok();
        if let Some((what, _)) = member.filter(|_| *state != "Z" && signalable) {
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            found.push(format!("{pid} ({what}): {cmdline}"));
        }
    }
    found
}

/// Asserts that no process of `groups` is left, allowing killed ones a moment to go.
fn assert_no_survivors(groups: &[(String, i32)], output: &str) {
    let started = Instant::now();
    let mut left = survivors(groups);
    while !left.is_empty() && started.elapsed() < GONE_WITHIN {
        std::thread::sleep(Duration::from_millis(50));
        left = survivors(groups);
    }
    assert!(
        left.is_empty(),
        "expected no process of mcpeval's groups {groups:?} to be left; these run on:\n{left:#?}\n{output}"
    );
}

/// The checks after one signal: `b-hangs` stopped in its agent phase with its cleanup run,
/// `a-finishes` kept, `c-later` not run, nothing left.
fn assert_stopped_gracefully(eval: &SignalsEval, status: ExitStatus, code: i32, signal: &str) {
    let output = eval.output();
    assert_eq!(
        status.code(),
        Some(code),
        "expected exit code {code} after {signal}; observed {status}\n{output}"
    );
    assert!(
        eval.path("cleanup-b").exists(),
        "expected b-hangs's cleanup to run after {signal}; its marker is missing\n{output}"
    );
    let results = eval.results("out");
    let finished = &results.get("a-finishes").map(|r| &r["taskPassed"]);
    assert_eq!(
        *finished,
        Some(&Value::Bool(true)),
        "expected the passing results file of a-finishes, written before the signal, kept; observed {results:#?}"
    );
    let reasons = results.get("b-hangs").map(|r| r["reasons"].to_string());
    let expected = format!("interrupted by {signal} in the agent phase");
    assert!(
        reasons.as_deref().is_some_and(|r| r.contains(&expected)),
        "expected b-hangs's results to say `{expected}`; observed reasons {reasons:?}\n{output}"
    );
    assert!(
        !results.contains_key("c-later") && !eval.path("cleanup-c").exists(),
        "expected c-later, not started at the signal, not to run; it did\n{output}"
    );
    assert!(
        output.contains("not run: mcpeval was stopped by"),
        "expected c-later to fail as not run\n{output}"
    );
    assert_no_survivors(&eval.groups(), &output);
}

/// One signal in the agent phase of a running `mcpeval check`, then the graceful checks.
fn one_signal_case(signal: Signal, code: i32) {
    let eval = SignalsEval::new(0);
    let mut running = eval.check();
    eval.wait_for_the_hanging_agent(&mut running);
    running.signal(signal);
    let status = running.exit_within(STOP_WITHIN);
    let status = status.unwrap_or_else(|| {
        panic!(
            "expected mcpeval to stop within {STOP_WITHIN:?} of {signal}\n{}",
            eval.output()
        )
    });
    assert_stopped_gracefully(&eval, status, code, signal.as_str());
}

/// SIGTERM mid-run: cleanup runs, every process group is stopped, finished results are
/// kept, exit code 143.
#[test]
fn sigterm_mid_run_runs_cleanup_stops_every_group_and_keeps_finished_results() {
    one_signal_case(Signal::SIGTERM, 143);
}

/// SIGINT (Ctrl-C) mid-run: the same, exit code 130.
#[test]
fn sigint_mid_run_runs_cleanup_stops_every_group_and_keeps_finished_results() {
    one_signal_case(Signal::SIGINT, 130);
}

/// A second SIGINT while cleanup runs: mcpeval exits at once with 130, without finishing
/// cleanup, and still kills every group (the cleanup's and the server's too).
#[test]
fn a_second_sigint_stops_at_once_and_still_kills_every_group() {
    let eval = SignalsEval::new(300);
    let mut running = eval.check();
    eval.wait_for_the_hanging_agent(&mut running);
    running.signal(Signal::SIGINT);
    wait_until("b-hangs's cleanup started", &mut running, || {
        eval.recorded("cleanup") == 1
    });
    running.signal(Signal::SIGINT);
    let status = running.exit_within(Duration::from_secs(2));
    let output = eval.output();
    let status = status.unwrap_or_else(|| {
        panic!("expected mcpeval to exit within 2 s of the second SIGINT; it ran on\n{output}")
    });
    assert_eq!(
        status.code(),
        Some(130),
        "expected exit code 130; observed {status}\n{output}"
    );
    assert!(
        !eval.path("cleanup-b").exists(),
        "expected the sleeping cleanup not to finish; its marker exists\n{output}"
    );
    let finished = eval
        .results("out")
        .get("a-finishes")
        .map(|r| r["taskPassed"].clone());
    assert_eq!(
        finished,
        Some(Value::Bool(true)),
        "expected a-finishes's results file kept\n{output}"
    );
    assert_no_survivors(&eval.groups(), &output);
}

/// Under nextest each task is a process of its own; `terminate-after` sends SIGTERM to the
/// hanging one. Its cleanup runs, its results say so, nothing is left, and a-finishes passes.
#[test]
fn nextest_terminate_after_runs_cleanup_and_leaves_no_process() {
    if !nextest_available() {
        return;
    }
    let eval = SignalsEval::new(0);
    let config = eval.path("nextest.toml");
    std::fs::write(
        &config,
        "[[profile.default.overrides]]\nfilter = 'test(/b-hangs$/)'\n\
         slow-timeout = { period = \"3s\", terminate-after = 1 }\n",
    )
    .expect("the nextest config");
    let out = eval
        .command(crate::support::cargo::command())
        .args(["nextest", "run", "--test", "fixture", "--no-fail-fast"])
        .args(["--color", "never", "--config-file"])
        .arg(&config)
        .args(["-E", "test(/signals::(a-finishes|b-hangs)$/)"])
        .env("MCPEVAL_FIXTURE", "tests/fixtures/signals")
        .env("MCPEVAL_OUTPUT_DIR", eval.path("nextest-out"))
        .output()
        .expect("cargo nextest runs");
    let output = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        output
            .lines()
            .any(|l| l.contains("TIMEOUT") && l.contains("signals::b-hangs")),
        "expected nextest to time b-hangs out\n{output}"
    );
    assert!(
        eval.path("cleanup-b").exists(),
        "expected b-hangs's cleanup to run after nextest's SIGTERM\n{output}"
    );
    let results = eval.results("nextest-out");
    let reasons = results.get("b-hangs").map(|r| r["reasons"].to_string());
    assert!(
        reasons
            .as_deref()
            .is_some_and(|r| r.contains("interrupted by SIGTERM")),
        "expected b-hangs's results to say it was interrupted by SIGTERM; observed {reasons:?}\n{output}"
    );
    let passed = results.get("a-finishes").map(|r| r["taskPassed"].clone());
    assert_eq!(
        passed,
        Some(Value::Bool(true)),
        "expected a-finishes to pass\n{output}"
    );
    assert_no_survivors(&eval.groups(), &output);
}
