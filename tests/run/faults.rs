//! Faults on purpose (`faults` rules) through the file agent (the script agent) and the
//! demo server: every fault kind reaches the agent as what it is, the trace and the
//! results say it was injected, a rule that never matched is noted, a `probability` rule is
//! reproduced by its seed, and bad rules are load errors at their key paths. The real Claude
//! Code's recorded runs through every fault kind (`evals/claude-code-faults`) hold each
//! fault as its model saw it.

use crate::support;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Output;

use mcpeval::fault::FaultAction;
use mcpeval::trace::FaultKind;
use serde_json::Value;
use support::cli::{result_file, text};
use support::eval_run::AGENT;

const MCP: &str = "mcpServers:\n  demo:\n    command: ${MCPEVAL_BIN}\n    args: [demo-server]\n";

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A task running the script `lines` (one directive per line) with `faults` (YAML list
/// items, indented for `spec.faults`).
fn task(name: &str, lines: &[&str], faults: &str) -> String {
    let prompt = lines.join("\n      ");
    let faults = if faults.is_empty() {
        String::new()
    } else {
        format!("  faults:\n{faults}")
    };
    format!(
        "kind: Task\napiVersion: mcpchecker/v1alpha2\nmetadata: {{name: {name}}}\nspec:\n  \
         limits: {{timeout: 60s}}\n{faults}  prompt:\n    inline: |\n      {prompt}\n"
    )
}

const ADD: &str = "call demo add {\"a\": 2, \"b\": 3}";

/// An eval whose task set adds `set_faults` (YAML list items) and `assertions`, with the
/// tasks given.
fn eval_dir(set_faults: &str, assertions: &str, tasks: &[(&str, String)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut eval = "kind: Eval\nmetadata: {name: faulty}\nconfig:\n  agent: {type: file, path: agent.yaml}\n  \
         mcpConfigFile: mcp.yaml\n  snapshot: off\n  taskSets:\n    - glob: tasks/*.yaml\n"
        .to_owned();
    if !set_faults.is_empty() {
        eval.push_str(&format!("      faults:\n{set_faults}"));
    }
    if !assertions.is_empty() {
        eval.push_str(&format!("      assertions:\n{assertions}"));
    }
    write(dir.path(), "eval.yaml", &eval);
    write(dir.path(), "agent.yaml", AGENT);
    write(dir.path(), "mcp.yaml", MCP);
    for (name, text) in tasks {
        write(dir.path(), &format!("tasks/{name}.yaml"), text);
    }
    dir
}

fn check(dir: &Path, seed: Option<&str>, libtest: &[&str]) -> Output {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_mcpeval"));
    command
        .arg("check")
        .arg(dir.join("eval.yaml"))
        .arg("--")
        .args(libtest)
        .env("MCPEVAL_OUTPUT_DIR", dir.join("out"))
        .env("RUST_BACKTRACE", "0")
        .env_remove("MCPEVAL_SEED");
    if let Some(seed) = seed {
        command.env("MCPEVAL_SEED", seed);
    }
    command.output().expect("run mcpeval check")
}

/// `mcpeval validate` of the eval in `dir`: whether it passed, and all it printed.
fn validate(dir: &Path) -> (bool, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .arg("validate")
        .arg(dir.join("eval.yaml"))
        .output()
        .unwrap();
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    (out.status.success(), all)
}

fn result(dir: &Path, task: &str) -> Value {
    result_file(&dir.join("out"), &format!("faulty__{task}"))
}

fn calls(result: &Value) -> Vec<Value> {
    result["callHistory"]["toolCalls"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn injected(call: &Value) -> Option<&str> {
    call["injected"]["fault"].as_str()
}

#[test]
fn every_fault_kind_reaches_the_file_agent_and_is_recorded_as_injected() {
    let tool_error = "    - {tool: add, call: 1, toolError: \"rate limited, try again\"}\n";
    let error =
        "    - {server: demo, tool: add, call: 1, error: {code: -32000, message: upstream busy}}\n";
    let delay = "    - {tool: add, every: true, delay: 1s}\n";
    let timeout = "    - {tool: add, call: 1, timeout: true}\n";
    let disconnect = "    - {tool: add, call: 1, disconnect: true}\n";
    let malformed = "    - {tool: add, call: 1, malformed: true}\n";
    let replace = "    - tool: add\n      call: 1\n      replace: {content: [{type: text, text: forty-two}]}\n";
    let changed = "    - tool: add\n      call: 1\n      toolsChanged:\n        \
                   add: [{name: multiply, description: Multiplies, inputSchema: {type: object}}]\n        \
                   remove: [echo]\n";
    let resource =
        "    - {method: resources/read, call: 1, error: {code: -32002, message: resource gone}}\n";
    let tasks = [
        ("tool-error", task("tool-error", &[ADD, ADD], tool_error)),
        ("error", task("error", &[ADD, ADD], error)),
        ("delay", task("delay", &[ADD], delay)),
        (
            "timeout",
            task("timeout", &["give-up 1", ADD, ADD], timeout),
        ),
        (
            "disconnect",
            task("disconnect", &[ADD, ADD, "reconnect demo", ADD], disconnect),
        ),
        ("malformed", task("malformed", &[ADD, ADD], malformed)),
        ("replace", task("replace", &[ADD], replace)),
        (
            "tools-changed",
            task(
                "tools-changed",
                &[
                    "list demo",
                    ADD,
                    "pick demo /^Multiplies$/ {}",
                    "call demo echo {\"text\": \"hi\"}",
                ],
                changed,
            ),
        ),
        (
            "resource",
            task(
                "resource",
                &["read demo demo://readme", "read demo demo://readme"],
                resource,
            ),
        ),
    ];
    let dir = eval_dir("", "", &tasks);
    let out = check(dir.path(), None, &["--test-threads", "4"]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));

    // toolError: the agent got an isError result with the rule's text; the retry is real.
    let r = result(dir.path(), "tool-error");
    let c = calls(&r);
    assert_eq!(injected(&c[0]), Some("toolError"), "{c:?}");
    assert_eq!(c[0]["injected"]["rule"], "spec.faults[0]");
    assert_eq!(c[0]["outcome"], "is_error");
    assert_eq!(
        c[0]["result"]["content"][0]["text"],
        "rate limited, try again"
    );
    assert_eq!(
        (
            injected(&c[1]),
            c[1]["result"]["content"][0]["text"].as_str()
        ),
        (None, Some("5"))
    );
    assert_eq!(r["toolErrors"], 0, "an injected error is not the server's");
    assert_eq!(r["faultSeed"], 0);
    let note = &r["faults"][0];
    assert_eq!(
        (note["matched"].as_u64(), note["injected"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(note["fault"], "toolError");
    assert_eq!(note["target"], "tool `add`");

    // error: a JSON-RPC error with the rule's code and message.
    let c = calls(&result(dir.path(), "error"));
    assert_eq!(injected(&c[0]), Some("error"));
    assert_eq!(
        c[0]["result"],
        serde_json::json!({"code": -32000, "message": "upstream busy"})
    );
    assert_eq!(c[1]["outcome"], "ok");

    // delay: the server's answer, a second late.
    let c = calls(&result(dir.path(), "delay"));
    assert_eq!(
        (injected(&c[0]), c[0]["outcome"].as_str()),
        (Some("delay"), Some("ok"))
    );
    assert!(c[0]["durationMs"].as_f64().unwrap() >= 1000.0, "{c:?}");

    // timeout: no answer until the agent gave up (after 1 s) and cancelled.
    let c = calls(&result(dir.path(), "timeout"));
    assert_eq!(injected(&c[0]), Some("timeout"), "{c:?}");
    assert_eq!(c[0]["result"]["code"], -32800, "{c:?}");
    // The agent's second starts when it sends; the proxy's clock starts when the call
    // arrives and stops when the cancel does, so the two differ by the pipe's latency
    // each way: the proxy held the call about that second, not exactly.
    let held = c[0]["durationMs"].as_f64().unwrap();
    assert!(held >= 900.0, "held {held} ms: {c:?}");
    assert_eq!(c[1]["outcome"], "ok");

    // disconnect: the session ends with the connection; rmcp's client, refused (404) on
    // its old session, opens a new one by itself, and later calls are the server's.
    let r = result(dir.path(), "disconnect");
    let c = calls(&r);
    assert_eq!(injected(&c[0]), Some("disconnect"), "{c:?}");
    assert_eq!(c.len(), 3, "{c:?}");
    assert!(
        c[1..]
            .iter()
            .all(|c| injected(c).is_none() && c["outcome"] == "ok"),
        "{c:?}"
    );
    let agent = r["agentOutput"]["steps"][0]["output"].as_str().unwrap();
    assert!(
        agent.contains("failed"),
        "the agent saw its call fail: {agent}"
    );

    // malformed: the agent's request failed on a body that is not JSON-RPC.
    let r = result(dir.path(), "malformed");
    let c = calls(&r);
    assert_eq!(injected(&c[0]), Some("malformed"));
    assert_eq!(c[1]["outcome"], "ok");
    let agent = r["agentOutput"]["steps"][0]["output"].as_str().unwrap();
    assert!(agent.contains("failed"), "{agent}");

    // replace: the task's own result, which the agent answers with.
    let r = result(dir.path(), "replace");
    assert_eq!(injected(&calls(&r)[0]), Some("replace"));
    let agent = r["agentOutput"]["steps"][0]["output"].as_str().unwrap();
    assert!(agent.starts_with("forty-two"), "{agent}");

    // toolsChanged: the add call is the server's; the list after it has multiply and lacks
    // echo; calling echo then is an "unknown tool" error.
    let r = result(dir.path(), "tools-changed");
    let c = calls(&r);
    assert_eq!(
        (injected(&c[0]), c[0]["outcome"].as_str()),
        (Some("toolsChanged"), Some("ok"))
    );
    // The agent listed again (pick lists every page) and found the added tool: its call
    // goes to the server, which has no such tool.
    assert_eq!(
        (c[1]["name"].as_str(), injected(&c[1])),
        (Some("multiply"), None),
        "{c:?}"
    );
    assert_eq!(injected(&c[2]), Some("removedTool"), "{c:?}");
    assert_eq!(c[2]["result"]["message"], "Unknown tool: echo");
    assert_eq!(
        r["toolErrors"], 1,
        "the server's error for multiply; not the removed echo"
    );
    let surface = &r["surface"]["demo"]["tools"];
    assert!(
        !surface.to_string().contains("multiply"),
        "what the server advertised: {surface}"
    );

    // A method rule: resources/read.
    let r = result(dir.path(), "resource");
    let reads = r["callHistory"]["resourceReads"].as_array().unwrap();
    assert_eq!(injected(&reads[0]), Some("error"));
    assert_eq!(reads[1]["outcome"], "ok");
}

#[test]
fn a_rule_that_never_matches_is_noted_and_a_task_set_rule_reaches_every_task() {
    let set = "        - {tool: no_such_tool, every: true, toolError: never}\n        \
               - {server: demo, tool: echo, call: 2, toolError: second echo fails}\n";
    let echo = "call demo echo {\"text\": \"hi\"}";
    let tasks = [
        ("one", task("one", &[echo, echo], "")),
        ("two", task("two", &[echo, echo, echo], "")),
    ];
    let dir = eval_dir(set, "", &tasks);
    let out = check(dir.path(), None, &[]);
    assert!(out.status.success(), "{}", text(&out.stdout));
    for name in ["one", "two"] {
        let r = result(dir.path(), name);
        let faults = r["faults"].as_array().unwrap();
        assert_eq!(faults[0]["rule"], "config.taskSets[0].faults[0]");
        assert_eq!(faults[0]["matched"], 0, "never matched: {faults:?}");
        assert_eq!(faults[1]["injected"], 1);
        let c = calls(&r);
        assert_eq!(injected(&c[1]), Some("toolError"));
        assert_eq!(c[1]["injected"]["rule"], "config.taskSets[0].faults[1]");
    }
    let stdout = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(
        stdout.contains("config.taskSets[0].faults[0]") && stdout.contains("never matched"),
        "a rule that never matched is said: {stdout}"
    );
}

#[test]
fn a_probability_rule_is_reproduced_by_its_seed() {
    let echo = "call demo echo {\"text\": \"hi\"}";
    let lines = vec![echo; 24];
    let faults = "    - {tool: echo, probability: 0.5, toolError: flaky}\n";
    let tasks = [("coin", task("coin", &lines, faults))];
    let dir = eval_dir("", "", &tasks);
    let pattern = |seed: &str| -> (Vec<bool>, Value) {
        let out = check(dir.path(), Some(seed), &[]);
        assert!(out.status.success(), "{}", text(&out.stdout));
        let r = result(dir.path(), "coin");
        let hits = calls(&r).iter().map(|c| injected(c).is_some()).collect();
        (hits, r["faultSeed"].clone())
    };
    let (first, seed) = pattern("7");
    assert_eq!(seed, 7);
    assert_eq!(first.len(), 24);
    let hits = first.iter().filter(|hit| **hit).count();
    assert!((3..=21).contains(&hits), "about half: {first:?}");
    assert_eq!(pattern("7").0, first, "the same seed, the same faults");
    assert_ne!(pattern("8").0, first, "another seed, other faults");
    let out = check(dir.path(), Some("seven"), &[]);
    assert!(!out.status.success());
    assert!(
        text(&out.stdout).contains("MCPEVAL_SEED=\"seven\""),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn bad_rules_are_load_errors_at_their_key_paths() {
    let set = "        - {tool: add, call: 0, toolError: x}\n        \
               - {tool: add, method: tools/call, every: true, timeout: true}\n        \
               - {server: demo2, tool: add, every: true, timeout: true}\n        \
               - {method: resources/reed, every: true, timeout: true}\n        \
               - {method: tools/list, every: true, toolError: x}\n        \
               - {tool: add, every: true, delay: soon}\n        \
               - {tool: add, probability: 1.5, timeout: true}\n        \
               - {tool: add, every: true}\n        \
               - {tool: add, every: true, timeout: true, malformed: true}\n        \
               - {tool: add, every: true, replace: {content: 3}}\n";
    let dir = eval_dir(set, "", &[("t", task("t", &[ADD], ""))]);
    let (ok, all) = validate(dir.path());
    assert!(!ok, "{all}");
    let f = "config.taskSets[0].faults";
    for expected in [
        format!("{f}[0].call"),
        "expected a call number from 1".to_owned(),
        format!("{f}[1]"),
        "both `tool` and `method`".to_owned(),
        format!("{f}[2].server"),
        "did you mean demo?".to_owned(),
        format!("{f}[3].method"),
        "did you mean resources/read?".to_owned(),
        format!("{f}[4].toolError"),
        format!("{f}[5].delay"),
        format!("{f}[6].probability"),
        format!("{f}[7]"),
        "no fault".to_owned(),
        "expected only one fault".to_owned(),
        format!("{f}[9].replace"),
    ] {
        assert!(all.contains(&expected), "missing {expected:?} in:\n{all}");
    }
    // The task file's own rules are checked when it loads: that task fails, the others run.
    let bad = task(
        "bad",
        &[ADD],
        "    - {tool: add, calls: [], timeout: true}\n",
    );
    let tasks = [("bad", bad), ("good", task("good", &[ADD], ""))];
    let dir = eval_dir("", "", &tasks);
    let out = check(dir.path(), None, &[]);
    let stdout = text(&out.stdout);
    assert!(!out.status.success(), "{stdout}");
    assert!(
        stdout.contains("spec.faults[0].calls: expected at least one call number"),
        "{stdout}"
    );
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("test faulty::good ") && l.ends_with("... ok")),
        "{stdout}"
    );

    // A misspelled key is named, with what was meant.
    let set = "        - {tool: add, every: true, toolErorr: x}\n";
    let dir = eval_dir(set, "", &[("t", task("t", &[ADD], ""))]);
    let (ok, all) = validate(dir.path());
    assert!(
        !ok && all.contains("config.taskSets[0].faults[0].toolErorr")
            && all.contains("did you mean toolError"),
        "{all}"
    );
}

#[test]
fn after_fault_reads_the_recovery_and_max_tool_errors_leaves_injected_errors_out() {
    let assertions = "        maxToolErrors: 0\n        afterFault:\n          retried: true\n          \
                      toolsUsed: [{server: demo, tool: echo}]\n";
    let fault = "    - {tool: add, call: 1, toolError: \"try again\"}\n";
    let echo = "call demo echo {\"text\": \"done\"}";
    let tasks = [
        ("recovers", task("recovers", &[ADD, ADD, echo], fault)),
        (
            "gives-up",
            task(
                "gives-up",
                &[ADD, echo],
                &format!("{fault}    - {{tool: nope, every: true, toolError: x}}\n"),
            ),
        ),
        ("unfaulted", task("unfaulted", &[ADD, echo], "")),
    ];
    let dir = eval_dir("", assertions, &tasks);
    let out = check(dir.path(), None, &[]);
    let stdout = text(&out.stdout);
    let line = |test: &str| {
        stdout
            .lines()
            .find(|l| l.starts_with(&format!("test {test} ")))
            .unwrap_or("")
    };
    assert!(line("faulty::recovers").ends_with("... ok"), "{stdout}");
    let gives_up = support::cli::failure_of(&stdout, "faulty::gives-up");
    assert!(gives_up.contains("afterFault"), "{gives_up}");
    assert!(
        gives_up.contains("faults injected on purpose: 1 (MCPEVAL_SEED=0 injects the same again)"),
        "{gives_up}"
    );
    assert!(gives_up.contains("injected toolError"), "{gives_up}");
    assert!(
        gives_up.contains("  spec.faults[1]: toolError on tool `nope`, never matched a call"),
        "{gives_up}"
    );
    let unfaulted = support::cli::failure_of(&stdout, "faulty::unfaulted");
    assert!(unfaulted.contains("no fault was injected"), "{unfaulted}");
    let r = result(dir.path(), "recovers");
    assert_eq!(r["assertionResults"]["afterFault"]["passed"], true);
    assert_eq!(r["assertionResults"]["maxToolErrors"]["passed"], true);
}

/// The tool results of a recorded conversation, in order, as Claude Code passed them to the
/// model: whether each was an error (`is_error`), and its text.
fn recorded_tool_results(cassette: &Path) -> Vec<(bool, String)> {
    let text = std::fs::read_to_string(cassette).unwrap_or_else(|e| panic!("{cassette:?}: {e}"));
    let cassette: Value = serde_json::from_str(&text).unwrap();
    let resolve = |value: &Value| match value["$blob"].as_str() {
        Some(hash) => cassette["blobs"][hash].clone(),
        None => value.clone(),
    };
    let last = cassette["interactions"].as_array().unwrap().last().unwrap();
    let messages = last["request"]["normalized"]["messages"]
        .as_array()
        .unwrap();
    let blocks = messages
        .iter()
        .map(resolve)
        .flat_map(|message| message["content"].as_array().cloned().unwrap_or_default());
    let text_of = |content: &Value| match content {
        Value::String(text) => text.clone(),
        content => (content.as_array().into_iter().flatten())
            .filter_map(|part| part["text"].as_str())
            .collect(),
    };
    blocks
        .filter(|block| block["type"] == "tool_result")
        .map(|block| (block["is_error"] == true, text_of(&block["content"])))
        .collect()
}

/// The tool names Claude Code offered the model in any request of `cassette`.
fn offered_tools(cassette: &Path) -> BTreeSet<String> {
    let cassette: Value =
        serde_json::from_str(&std::fs::read_to_string(cassette).unwrap()).unwrap();
    let tools = (cassette["interactions"].as_array().into_iter().flatten()).map(|interaction| {
        let tools = &interaction["request"]["normalized"]["tools"];
        match tools["$blob"].as_str() {
            Some(hash) => cassette["blobs"][hash].clone(),
            None => tools.clone(),
        }
    });
    let tools: Vec<Value> = tools.collect();
    (tools
        .iter()
        .flat_map(|tools| tools.as_array().cloned().unwrap_or_default()))
    .filter_map(|tool| tool["name"].as_str().map(str::to_owned))
    .collect()
}

/// The real Claude Code through every fault kind (`evals/claude-code-faults`, replayed by
/// `cargo test --test evals`): each task's fault hits the first `add` call, and its
/// committed cassette holds what Claude Code passed to the model: the injected error's text
/// and then the retry's real answer, or the task's replacement, or the server's answer (a
/// delay, a tool-list change). An eval that stopped injecting could not have recorded them.
#[test]
fn the_claude_code_faults_eval_recorded_each_fault_as_the_model_saw_it() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("evals/claude-code-faults");
    let lookup = |name: &str| (name == "MCPEVAL_BIN").then(|| env!("CARGO_BIN_EXE_mcpeval").into());
    let eval = mcpeval::config::load_eval_with(&dir.join("eval.yaml"), &lookup).unwrap();
    let plan = mcpeval::plan::plan_eval(eval).unwrap();
    let mut kinds = BTreeSet::new();
    let mut places = BTreeSet::new();
    for case in &plan.cases {
        let task = case.load(&plan.eval).unwrap();
        let rules = (case.assertion_sets.iter())
            .flat_map(|set| set.faults.iter())
            .chain(&task.faults);
        let mut first_call = rules.filter(|rule| rule.matches("demo", "tools/call", Some("add")));
        let rule = (first_call.find(|rule| rule.fires(1, 0, &case.name)))
            .unwrap_or_else(|| panic!("{}: no rule hits the first add call", case.name));
        kinds.insert(rule.action.kind());
        places.insert(rule.key_path.split('[').next().unwrap().to_owned());
        let stem = format!("{}__{}", plan.eval.name, case.task_name(&plan.eval));
        let cassette = dir.join(format!("cassettes/{stem}.json"));
        let results = recorded_tool_results(&cassette);
        let answer = (false, "42".to_owned());
        let failed_then_retried = |says: &str| {
            assert_eq!(results.len(), 2, "{stem}: {results:?}");
            let (is_error, text) = &results[0];
            assert!(*is_error && text.contains(says), "{stem}: {results:?}");
            assert_eq!(results[1], answer, "{stem}: the retry's answer");
        };
        match &rule.action {
            FaultAction::Error { message, .. } => failed_then_retried(message),
            FaultAction::ToolError(text) => failed_then_retried(text),
            // Claude Code's own words for what it met.
            FaultAction::Timeout => failed_then_retried("tool \"add\" timed out after 5s"),
            FaultAction::Disconnect => failed_then_retried("ECONNRESET"),
            FaultAction::Malformed => failed_then_retried("could not be parsed"),
            FaultAction::Replace(result) => {
                let text = result["content"][0]["text"].as_str().unwrap().to_owned();
                assert_eq!(results, [(false, text)], "{stem}");
            }
            FaultAction::Delay(_) => assert_eq!(results, [answer], "{stem}"),
            FaultAction::ToolsChanged(change) => {
                assert_eq!(results, [answer], "{stem}");
                // Claude Code lists the tools again some 30 ms after the notification: too
                // late for its next request, the last one of the script. (A longer script
                // sees the added tool offered from the request after that.)
                let offered = offered_tools(&cassette);
                for tool in &change.add {
                    let name = format!("mcp__demo__{}", tool["name"].as_str().unwrap());
                    assert!(!offered.contains(&name), "{stem}: {name} offered");
                }
            }
            // The user's answers hit elicitations, never this tool call.
            FaultAction::Decline | FaultAction::Cancel => {
                panic!("{stem}: a user's answer hit a tool call")
            }
        }
    }
    let every_kind = [
        FaultKind::Error,
        FaultKind::ToolError,
        FaultKind::Delay,
        FaultKind::Timeout,
        FaultKind::Disconnect,
        FaultKind::Malformed,
        FaultKind::Replace,
        FaultKind::ToolsChanged,
    ];
    assert_eq!(kinds, BTreeSet::from(every_kind));
    assert_eq!(
        places,
        BTreeSet::from(["config.taskSets".into(), "spec.faults".into()])
    );
}
