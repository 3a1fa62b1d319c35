//! Steps: mcpchecker's step `id:`s in messages and results, the extension steps' timeout.

use super::{fixture, only_result, text};
use std::process::Command;

#[test]
fn step_ids_name_their_steps_in_messages_and_results() {
    let output = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .args([
            "check",
            &fixture("step-ids/eval.yaml").display().to_string(),
        ])
        .env("MCPEVAL_OUTPUT_DIR", output.path())
        .output()
        .unwrap();
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(101), "{stdout}");
    assert!(
        stdout.contains(
            "verify step `check-pod` failed: verify[1] `check-pod` inline script: exit code 1"
        ),
        "{stdout}"
    );
    let result = only_result(output.path());
    let setup = &result["setupOutput"]["steps"][0];
    assert_eq!(setup["id"], "seed");
    let verify = &result["verifyOutput"]["steps"];
    assert!(verify[0].get("id").is_none(), "{verify}");
    assert_eq!(verify[0]["label"], "verify[0] inline script");
    assert_eq!(verify[1]["id"], "check-pod");
    assert_eq!(verify[1]["label"], "verify[1] `check-pod` inline script");
}

#[test]
fn extension_steps_default_to_the_timeout_of_every_other_step() {
    assert_eq!(
        mcpeval::config::DEFAULT_EXTENSION_TIMEOUT,
        mcpeval::config::DEFAULT_STEP_TIMEOUT
    );
}
