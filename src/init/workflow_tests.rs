use std::path::PathBuf;

use serde_json::Value;

use super::*;

fn written(crate_harness: bool, agent: AgentChoice, server: ServerEntry) -> (String, Value) {
    let eval_file = PathBuf::from("evals/acme/eval.yaml");
    let dependency = Dependency::Version("0.3.1".to_owned());
    let (text, warning) = workflow(&WorkflowInput {
        eval_file: &eval_file,
        crate_harness,
        agent: &agent,
        server: &server,
        dependency: &dependency,
        root: Path::new("/work/acme"),
    });
    assert_eq!(warning, None);
    let parsed: Value = serde_saphyr::from_str(&text).unwrap();
    (text, parsed)
}

fn claude() -> AgentChoice {
    AgentChoice::Builtin {
        kind: "claude-code".to_owned(),
        model: None,
    }
}

fn binary() -> ServerEntry {
    ServerEntry::Binary {
        bin: "acme".to_owned(),
        var: "ACME_BIN".to_owned(),
    }
}

/// The `run:` lines of a job's steps.
fn runs(parsed: &Value, job: &str) -> Vec<String> {
    parsed["jobs"][job]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|step| step["run"].as_str().map(|run| run.trim().to_owned()))
        .collect()
}

#[test]
fn a_crate_replays_with_cargo_test_and_the_gate_installs_mcpeval() {
    let (text, parsed) = written(true, claude(), binary());
    assert_eq!(
        runs(&parsed, "evals"),
        [
            "npm install --global @anthropic-ai/claude-code@2.1.330",
            "cargo test --test evals"
        ]
    );
    assert_eq!(
        runs(&parsed, "gate"),
        [
            "cargo binstall --no-confirm mcpeval-harness@0.3.1 || cargo install --locked \
             mcpeval-harness --version 0.3.1",
            "mcpeval action merge",
            "mcpeval action gate"
        ]
    );
    let record = &parsed["jobs"]["record"]["steps"];
    let recording = record
        .as_array()
        .unwrap()
        .iter()
        .find(|step| step["run"] == "cargo test --test evals")
        .unwrap();
    assert_eq!(
        recording["env"],
        serde_json::json!({
            "ANTHROPIC_API_KEY": "${{ secrets.ANTHROPIC_API_KEY }}",
            "MCPEVAL_RECORD_MODE": "all",
            "INSTA_UPDATE": "always",
        })
    );
    assert_eq!(
        parsed["on"]["workflow_dispatch"]["inputs"]["record"]["type"],
        "boolean"
    );
    assert!(!text.contains("your-org"), "{text}");
}

#[test]
fn a_command_server_runs_through_mcpeval_check_which_is_installed_first() {
    let server = ServerEntry::Stdio {
        command: "python3".to_owned(),
        args: vec!["server.py".to_owned()],
    };
    let agent = AgentChoice::Builtin {
        kind: "llm-agent".to_owned(),
        model: Some("gemini:gemini-2.5-flash".to_owned()),
    };
    let (text, parsed) = written(false, agent, server);
    let evals = runs(&parsed, "evals");
    assert_eq!(evals.len(), 2, "{evals:?}");
    assert!(evals[0].starts_with("cargo binstall"), "{evals:?}");
    assert_eq!(evals[1], "mcpeval check evals/acme/eval.yaml");
    assert!(text.contains("# The server's command (\"python3\") must run here"));
    assert!(
        text.contains("GEMINI_API_KEY: ${{ secrets.GEMINI_API_KEY }}"),
        "{text}"
    );
    assert!(
        !text.contains("npm install"),
        "the llm-agent is mcpeval's own"
    );
}

#[test]
fn a_crates_command_server_gets_its_comment_and_mcpeval_when_it_is_the_server() {
    let python = ServerEntry::Stdio {
        command: "python3".to_owned(),
        args: vec!["server.py".to_owned()],
    };
    let (text, parsed) = written(true, claude(), python);
    assert!(text.contains("# The server's command (\"python3\") must run here"));
    assert!(
        !runs(&parsed, "evals")
            .iter()
            .any(|run| run.contains("binstall"))
    );
    let mcpeval = ServerEntry::Stdio {
        command: "mcpeval".to_owned(),
        args: vec!["demo-server".to_owned()],
    };
    let (text, parsed) = written(true, claude(), mcpeval);
    assert!(!text.contains("# The server's command"), "{text}");
    for job in ["evals", "record"] {
        let steps = runs(&parsed, job);
        assert!(steps[1].starts_with("cargo binstall"), "{job}: {steps:?}");
        assert_eq!(steps[2], "cargo test --test evals", "{job}: {steps:?}");
    }
}

#[test]
fn an_agent_file_gets_no_secret_it_cannot_name() {
    let agent = AgentChoice::File {
        path: "../../agents/script.yaml".to_owned(),
    };
    let (text, parsed) = written(true, agent, binary());
    assert!(!text.contains("secrets."), "{text}");
    assert!(text.contains("The agent is an Agent file"), "{text}");
    let recording = &parsed["jobs"]["record"]["steps"].as_array().unwrap();
    assert!(
        recording
            .iter()
            .any(|step| step["env"]["INSTA_UPDATE"] == "always")
    );
}

#[test]
fn the_agent_programs_are_the_versions_mcpeval_is_tested_with() {
    let peers =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/.ci/install-peers.sh"))
            .unwrap();
    let programs = crate::config::BUILTINS
        .iter()
        .filter_map(|kind| kind.program);
    assert_eq!(programs.clone().count(), 3);
    for program in programs {
        let (name, version) = (program.package, program.tested_version);
        assert!(
            peers.contains(&format!("install {name} {version}\n")),
            "{name}@{version} is not what .ci/install-peers.sh installs"
        );
    }
}

/// The book's workflow (docs/src/ci/evals.yml) is what init writes for a crate with the
/// default agent and a version dependency.
#[test]
fn the_books_workflow_is_the_written_one() {
    let eval_file = PathBuf::from("evals/acme/eval.yaml");
    let dependency = Dependency::Version(env!("CARGO_PKG_VERSION").to_owned());
    let (text, _) = workflow(&WorkflowInput {
        eval_file: &eval_file,
        crate_harness: true,
        agent: &claude(),
        server: &binary(),
        dependency: &dependency,
        root: Path::new("/work/acme"),
    });
    let book = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/src/ci/evals.yml"
    ))
    .unwrap();
    assert_eq!(book, text, "docs/src/ci/evals.yml is not what init writes");
}
