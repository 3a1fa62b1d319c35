//! How the programs fail: refused by the API, hanging past the task timeout (and reaped),
//! not installed.

use super::{CODEX, GEMINI, KEY, Llm, Program, check, fixture, path_with};
use crate::support::fake_llm::{FakeLlm, Reply};
use std::sync::Arc;
use std::time::Duration;

/// The processes whose environment mentions `needle` (a run's own directory).
fn processes_mentioning(needle: &str) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|entry| entry.file_name().to_string_lossy().parse::<u32>().is_ok())
        .filter_map(|entry| {
            let environ = std::fs::read(entry.path().join("environ")).ok()?;
            String::from_utf8_lossy(&environ)
                .contains(needle)
                .then(|| std::fs::read_to_string(entry.path().join("cmdline")).unwrap_or_default())
        })
        .map(|cmdline| cmdline.replace('\0', " "))
        .collect()
}

async fn an_api_refusal_fails_the_task_with_status_and_message(program: Program, said: &str) {
    let Some(path) = path_with(program) else {
        return;
    };
    // Codex retries five times; every attempt is refused.
    let api = FakeLlm::start(vec![program.refusal(); 8]).await;
    let output = tempfile::tempdir().unwrap();
    let run = check(
        program,
        &fixture(),
        output.path(),
        "lookup",
        &path,
        Llm::Live(&api),
        "passthrough",
    )
    .await;
    assert_eq!(run.code, Some(101), "{}", run.text);
    let message = run.message();
    assert!(message.contains(said), "{message}");
    assert!(!message.contains(KEY), "{message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_refused_by_the_api_fails_with_the_status_and_the_message() {
    an_api_refusal_fails_the_task_with_status_and_message(
        CODEX,
        "agent failed: Codex failed with exit code 1: unexpected status 401 Unauthorized: \
         Incorrect API key provided: sk-cl***",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gemini_cli_refused_by_the_api_fails_with_the_status_and_the_message() {
    an_api_refusal_fails_the_task_with_status_and_message(
        GEMINI,
        ": API error 401 UNAUTHENTICATED: API key not valid. Please pass a valid API key.",
    )
    .await;
}

async fn a_hanging_program_is_stopped_by_the_task_timeout(program: Program) {
    let Some(path) = path_with(program) else {
        return;
    };
    // The answer's first event arrives, the rest never does.
    let gate = Arc::new(tokio::sync::Notify::new());
    let api = FakeLlm::start(vec![Reply::Gated("hello".into(), gate); 4]).await;
    let output = tempfile::tempdir().unwrap();
    let run = check(
        program,
        &fixture(),
        output.path(),
        "hang",
        &path,
        Llm::Live(&api),
        "passthrough",
    )
    .await;
    assert_eq!(run.code, Some(101), "{}", run.text);
    assert!(
        run.message().contains(
            "timed out: the task took longer than its timeout; it was in the agent phase"
        ),
        "{}",
        run.message()
    );
    assert!(run.took < Duration::from_secs(60), "took {:?}", run.took);
    // It hung where the answer stopped (its timeout, 12 s, leaves it time to get there).
    assert!(!api.seen().is_empty(), "the program never asked the API");
    // Its process group went with it: no process of the run is left.
    let left = processes_mentioning(&output.path().display().to_string());
    assert!(left.is_empty(), "left running: {left:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_hanging_is_stopped_by_the_task_timeout_and_reaped() {
    a_hanging_program_is_stopped_by_the_task_timeout(CODEX).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gemini_cli_hanging_is_stopped_by_the_task_timeout_and_reaped() {
    a_hanging_program_is_stopped_by_the_task_timeout(GEMINI).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_program_fails_the_task_naming_its_package() {
    for program in [CODEX, GEMINI] {
        let output = tempfile::tempdir().unwrap();
        let run = check(
            program,
            &fixture(),
            output.path(),
            "lookup",
            "/usr/bin:/bin",
            Llm::Nowhere,
            "passthrough",
        )
        .await;
        assert_eq!(run.code, Some(101), "{}", run.text);
        let expected = format!(
            "`{}` is not on PATH: builtin.{} runs ",
            program.bin, program.eval
        );
        let message = run.message();
        assert!(
            message.contains(&expected) && message.contains(program.package),
            "{message}"
        );
    }
}
