//! `config.variants`: each task × variant is a test of its own (`<eval>::<task>@<variant>`)
//! with its own results file; a variant's agent variables, tool-description overrides,
//! decoy tools and `servers: none` reach the run, and what each did is in the results.

use crate::support;

use std::path::Path;
use std::process::Output;

use mcpeval::plan::validate_eval_with;
use serde_json::Value;
use support::cli::{result_file, text};
use support::eval_run::AGENT;

/// The demo server, started by `mcpeval demo-server`; `${DEMO_ARG}` lets a variant start
/// something else.
const MCP: &str =
    "mcpServers:\n  demo:\n    command: ${MCPEVAL_BIN}\n    args: [\"${DEMO_ARG}\"]\n";

const VARIANTS: &str = r#"
  variants:
    - name: base
    - name: flag
      env: {FLAG: "on"}
    - name: described
      baseline: true
      toolOverrides:
        demo:
          add:
            title: Adder
            description: Sums two numbers and nothing else, exactly as a pocket calculator would do it
            inputSchema:
              properties:
                a: {description: the first number to add}
    - name: decoyed
      decoys:
        demo:
          - name: add_numbers
            description: Adds numbers
            inputSchema: {type: object, properties: {a: {type: number}}}
    - name: misnamed
      toolOverrides:
        demo:
          nope: {description: a tool the server does not have}
    - name: alone
      servers: none
    - name: broken-build
      env: {DEMO_ARG: no-such-command}
"#;

/// What `${VAR}` in the MCP config finds when an eval is validated here.
fn lookup(name: &str) -> Option<String> {
    match name {
        "MCPEVAL_BIN" => Some(env!("CARGO_BIN_EXE_mcpeval").to_owned()),
        "DEMO_ARG" => Some("demo-server".to_owned()),
        _ => None,
    }
}

fn validate_eval(path: &Path) -> Result<Vec<String>, mcpeval::config::ConfigErrors> {
    validate_eval_with(path, &lookup)
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

fn task(name: &str, prompt: &str) -> String {
    format!(
        "kind: Task\napiVersion: mcpchecker/v1alpha2\nmetadata: {{name: {name}}}\nspec:\n  \
         limits: {{timeout: 60s}}\n  prompt:\n    inline: |\n      {prompt}\n  verify:\n    \
         - script:\n        inline: 'echo \"flag=${{FLAG:-unset}}\"'\n"
    )
}

/// An eval `vary` with two tasks (`sum`: list the tools, call `add`; `decoy`: call
/// `add_numbers`) and the variants above.
fn eval_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let eval = format!(
        "kind: Eval\nmetadata: {{name: vary}}\nconfig:\n  agent: {{type: file, path: agent.yaml}}\n  \
         mcpConfigFile: mcp.yaml\n  snapshot: off\n  taskSets:\n    - glob: tasks/*.yaml\n      \
         assertions:\n        toolsUsed: [{{server: demo, tool: add}}]\n{VARIANTS}"
    );
    write(dir.path(), "eval.yaml", &eval);
    write(dir.path(), "agent.yaml", AGENT);
    write(dir.path(), "mcp.yaml", MCP);
    std::fs::create_dir(dir.path().join("tasks")).unwrap();
    let sum = "list demo\n      call demo add {\"a\": 2, \"b\": 3}";
    write(dir.path(), "tasks/sum.yaml", &task("sum", sum));
    let decoy = "call demo add_numbers {\"a\": 1}\n      call demo add {\"a\": 1, \"b\": 1}";
    write(dir.path(), "tasks/decoy.yaml", &task("decoy", decoy));
    dir
}

fn check(dir: &Path, libtest: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .arg("check")
        .arg(dir.join("eval.yaml"))
        .arg("--")
        .args(libtest)
        .env("MCPEVAL_OUTPUT_DIR", dir.join("out"))
        .env("DEMO_ARG", "demo-server")
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("run mcpeval check")
}

fn result(dir: &Path, stem: &str) -> Value {
    result_file(&dir.join("out"), stem)
}

const NAMES: [&str; 14] = [
    "vary::decoy@alone",
    "vary::decoy@base",
    "vary::decoy@broken-build",
    "vary::decoy@decoyed",
    "vary::decoy@described",
    "vary::decoy@flag",
    "vary::decoy@misnamed",
    "vary::sum@alone",
    "vary::sum@base",
    "vary::sum@broken-build",
    "vary::sum@decoyed",
    "vary::sum@described",
    "vary::sum@flag",
    "vary::sum@misnamed",
];

#[test]
fn each_task_and_variant_is_a_test() {
    let dir = eval_dir();
    let mut names = validate_eval(&dir.path().join("eval.yaml")).unwrap();
    names.sort();
    assert_eq!(names, NAMES);
    let listed = check(dir.path(), &["--list"]);
    let stdout = text(&listed.stdout);
    for name in NAMES {
        assert!(stdout.contains(&format!("{name}: test")), "{stdout}");
    }
    // A filter on `@flag` selects that variant's tests, `--exact` one of them.
    let filtered = text(&check(dir.path(), &["--list", "@flag"]).stdout);
    assert_eq!(filtered.matches(": test").count(), 2, "{filtered}");
    let exact = check(dir.path(), &["--exact", "vary::sum@flag"]);
    assert!(exact.status.success(), "{}", text(&exact.stdout));
    let results: Vec<_> = std::fs::read_dir(dir.path().join("out/results"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(results, ["vary__sum@flag.json"]);
    let unknown = check(dir.path(), &["--exact", "vary::sum@nope"]);
    assert_eq!(unknown.status.code(), Some(2), "{}", text(&unknown.stderr));
}

#[test]
fn what_each_variant_changes_reaches_the_run() {
    let dir = eval_dir();
    let out = check(dir.path(), &[]);
    let stdout = text(&out.stdout);
    let passed = |stem: &str| result(dir.path(), stem)["taskPassed"] == true;

    // The variables of a variant reach its scripts, and not the other variants'.
    let verify =
        |stem: &str| result(dir.path(), stem)["verifyOutput"]["steps"][0]["output"].clone();
    assert!(
        verify("vary__sum@flag")
            .as_str()
            .unwrap()
            .contains("flag=on")
    );
    assert!(
        verify("vary__sum@base")
            .as_str()
            .unwrap()
            .contains("flag=unset")
    );
    assert!(
        passed("vary__sum@flag") && passed("vary__sum@base"),
        "{stdout}"
    );
    let base = result(dir.path(), "vary__sum@base");
    assert_eq!(base["variant"], "base");
    assert_eq!(base["testName"], "vary::sum@base");
    assert_eq!(base["taskName"], "sum");
    assert_eq!(base["variantDetails"]["baseline"], "described");

    // …and `${VAR}` in the MCP config: this build does not start.
    let broken = result(dir.path(), "vary__sum@broken-build");
    assert_eq!(broken["taskPassed"], false);
    assert!(
        broken["reasons"].to_string().contains("exited with code 2"),
        "{broken:#}"
    );

    // Overrides: the agent was shown the rewritten definition (more tokens), the call went
    // to the real tool, the results say what applied.
    let described = result(dir.path(), "vary__sum@described");
    assert_eq!(described["taskPassed"], true, "{described:#}");
    let overrides = &described["variantDetails"]["toolOverrides"][0];
    assert_eq!(overrides["tool"], "add");
    assert_eq!(overrides["applied"], true);
    assert_eq!(
        overrides["fields"],
        serde_json::json!([
            "title",
            "description",
            "inputSchema.properties.a.description"
        ])
    );
    let definition_tokens = |result: &Value| {
        result["toolTokens"]["servers"]["demo"]["definitionTokens"]
            .as_u64()
            .unwrap_or_else(|| panic!("{:#}", result["toolTokens"]))
    };
    assert!(definition_tokens(&described) > definition_tokens(&base));
    assert_eq!(
        described["callHistory"]["toolCalls"][0]["result"]["content"][0]["text"],
        "5"
    );

    // An override of a tool the server does not advertise fails the task, naming it.
    let misnamed = result(dir.path(), "vary__sum@misnamed");
    assert_eq!(misnamed["taskPassed"], false);
    assert!(
        misnamed["reasons"].to_string().contains("tool `nope`"),
        "{misnamed:#}"
    );

    // A decoy: offered, its call answered with an error by the proxy, recorded, failing.
    let decoyed = result(dir.path(), "vary__decoy@decoyed");
    assert_eq!(decoyed["taskPassed"], false);
    assert_eq!(
        decoyed["decoyCalls"],
        serde_json::json!([{"server": "demo", "tool": "add_numbers", "position": 1}])
    );
    let call = &decoyed["callHistory"]["toolCalls"][0];
    assert_eq!(call["outcome"], "is_error");
    assert_eq!(
        call["result"]["content"][0]["text"],
        mcpeval::proxy::DECOY_ANSWER
    );
    assert_eq!(
        decoyed["variantDetails"]["decoys"],
        serde_json::json!(["demo/add_numbers"])
    );
    assert!(text(&out.stdout).contains("the agent called decoy tool `add_numbers`"));
    // Without the decoy the same call goes to the server, which has no such tool: no
    // decoy call, and the task passes (its later `add` call counts).
    let undecoyed = result(dir.path(), "vary__decoy@base");
    assert!(undecoyed["decoyCalls"].is_null(), "{undecoyed:#}");
    assert_eq!(undecoyed["taskPassed"], true, "{undecoyed:#}");
    // The decoy is listed only in its variant.
    let sum_decoyed = result(dir.path(), "vary__sum@decoyed");
    assert!(
        sum_decoyed["surface"]["demo"]["tools"]
            .to_string()
            .contains("add_numbers")
    );
    assert!(
        !base["surface"]["demo"]["tools"]
            .to_string()
            .contains("add_numbers")
    );

    // No server: the call assertions are skipped (not passed), and reported so.
    let alone = result(dir.path(), "vary__sum@alone");
    assert_eq!(alone["variantDetails"]["noServers"], true);
    assert_eq!(
        alone["variantDetails"]["skippedAssertions"],
        serde_json::json!(["toolsUsed"])
    );
    assert!(
        alone["assertionResults"].get("toolsUsed").is_none(),
        "{alone:#}"
    );
    assert!(
        alone["callHistory"]["toolCalls"]
            .as_array()
            .unwrap()
            .is_empty()
    );

    for name in NAMES {
        let stem = name.replace("::", "__");
        let result = result(dir.path(), &stem);
        let errors = support::results_schema::violations(&result);
        assert!(errors.is_empty(), "{stem}: {errors:#?}");
    }
}

/// (variants YAML, key path, words of the message)
const BAD: &[(&str, &str, &[&str])] = &[
    (
        "  variants:\n    - name: a b\n",
        "config.variants[0].name",
        &["letters, digits"],
    ),
    (
        "  variants:\n    - name: a\n    - name: a\n",
        "config.variants[1].name",
        &["duplicate variant name `a`"],
    ),
    (
        "  variants:\n    - {name: a, baseline: true}\n    - {name: b, baseline: true}\n",
        "config.variants",
        &["2 variants say `baseline: true` (a, b)"],
    ),
    (
        "  variants:\n    - name: a\n      toolOverrides: {demoo: {add: {description: x}}}\n",
        "config.variants[0].toolOverrides.demoo",
        &["unknown server `demoo`", "did you mean demo?"],
    ),
    (
        "  variants:\n    - name: a\n      servers: some\n",
        "config.variants[0].servers",
        &["expected `none`"],
    ),
    (
        "  variants:\n    - name: a\n      servers: none\n      decoys: {demo: [{name: x}]}\n",
        "config.variants[0].decoys",
        &["servers: none"],
    ),
    (
        "  variants:\n    - name: a\n      toolOverrides: {demo: {add: {}}}\n",
        "config.variants[0].toolOverrides.demo.add",
        &["changes nothing"],
    ),
    (
        "  variants:\n    - name: a\n      decoys: {demo: [{name: x, inputSchema: 3}]}\n",
        "config.variants[0].decoys.demo[0].inputSchema",
        &["expected a JSON Schema object"],
    ),
    (
        "  variants:\n    - name: a\n      agent: {type: builtin.codx}\n",
        "config.variants[0].agent.type",
        &["unknown agent type"],
    ),
    (
        "  variants:\n    - name: a\n      toolOverides: {}\n",
        "config.variants[0].toolOverides",
        &["unknown field", "did you mean toolOverrides?"],
    ),
    ("  variants: []\n", "config.variants", &["is empty"]),
];

#[test]
fn a_bad_variant_is_an_error_at_its_key_path() {
    for (variants, key_path, words) in BAD {
        let dir = tempfile::tempdir().unwrap();
        let eval = format!(
            "kind: Eval\nmetadata: {{name: vary}}\nconfig:\n  agent: {{type: file, path: agent.yaml}}\n  \
             mcpConfigFile: mcp.yaml\n  taskSets:\n    - path: sum.yaml\n{variants}"
        );
        write(dir.path(), "eval.yaml", &eval);
        write(dir.path(), "agent.yaml", AGENT);
        write(dir.path(), "mcp.yaml", MCP);
        write(dir.path(), "sum.yaml", &task("sum", "say hi"));
        let errors = validate_eval(&dir.path().join("eval.yaml")).unwrap_err();
        let error = errors
            .iter()
            .find(|e| e.key_path.starts_with(key_path))
            .unwrap_or_else(|| panic!("{variants}: no error at {key_path}: {errors}"));
        for word in *words {
            assert!(error.message.contains(word), "{variants}: {error}");
        }
        assert!(
            error.location.is_some() || key_path.ends_with(']'),
            "{error}"
        );
    }
}

/// The Claude Code eval with variants (`evals/claude-code-variants`, replayed by
/// `cargo test --test evals`): each variant has its own cassette, and what the variant
/// changes is in the requests recorded there, so a replay without it diverges.
#[test]
fn the_claude_code_variants_recorded_what_each_changes() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("evals/claude-code-variants");
    let cassette = |variant: &str| {
        let file = dir.join(format!(
            "cassettes/claude-code-variants__add@{variant}.json"
        ));
        std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{file:?}: {e}"))
    };
    let (haiku, described) = (cassette("haiku"), cassette("described"));
    assert!(haiku.contains("\"model\": \"claude-haiku-4-5\""));
    assert!(!described.contains("claude-haiku-4-5"));
    let description = "Adds two numbers a and b and returns their sum as text.";
    assert!(described.contains(description) && !haiku.contains(description));
    let names = validate_eval(&dir.join("eval.yaml")).unwrap();
    assert_eq!(
        names,
        [
            "claude-code-variants::add@haiku",
            "claude-code-variants::add@described"
        ]
    );
    for variant in ["haiku", "described"] {
        let snapshot = dir.join(format!(
            "snapshots/claude-code-variants__add@{variant}.snap"
        ));
        assert!(snapshot.is_file(), "{snapshot:?}");
    }
}

/// 30 tasks in which the script agent picks the demo server's tool whose description
/// matches (`pick demo /REGEX/`), in four variants: the baseline; `reworded`, whose
/// description of `lookup_user` no task's regex matches (clearly worse: every task fails);
/// `same`, which rewrites a tool no task picks (no difference); `partly`, whose description
/// only the 4 tasks with an anchored regex miss (fewer than 6 tasks differ: no exact test can
/// tell).
fn stats_eval_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let eval = "kind: Eval\nmetadata: {name: stats}\nconfig:\n  agent: {type: file, path: agent.yaml}\n  \
         mcpConfigFile: mcp.yaml\n  snapshot: off\n  parallel: true\n  taskSets:\n    - glob: tasks/*.yaml\n      \
         assertions:\n        toolsUsed: [{server: demo, tool: lookup_user}]\n  variants:\n    \
         - name: baseline\n    \
         - name: reworded\n      toolOverrides: {demo: {lookup_user: {description: Looks up a person}}}\n    \
         - name: same\n      toolOverrides: {demo: {echo: {description: Says it again}}}\n    \
         - name: partly\n      toolOverrides: {demo: {lookup_user: {description: Finds a user by id or email}}}\n";
    write(dir.path(), "eval.yaml", eval);
    write(dir.path(), "agent.yaml", AGENT);
    write(dir.path(), "mcp.yaml", MCP);
    std::fs::create_dir(dir.path().join("tasks")).unwrap();
    for i in 0..30 {
        let regex = if i < 4 {
            "^Finds a user by id$"
        } else {
            "^Finds a user"
        };
        let name = format!("find-{i:02}");
        let prompt = format!("pick demo /{regex}/ {{\"id\": \"{}\"}}", i % 3 + 1);
        let task = format!(
            "kind: Task\napiVersion: mcpchecker/v1alpha2\nmetadata: {{name: {name}}}\nspec:\n  \
             prompt:\n    inline: '{prompt}'\n"
        );
        write(dir.path(), &format!("tasks/{name}.yaml"), &task);
    }
    dir
}

#[test]
fn the_comparison_tells_a_worse_variant_from_noise() {
    let dir = stats_eval_dir();
    let out = check(dir.path(), &["--test-threads", "2"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(101), "{}", text(&out.stdout));
    let passed = |stem: &str| result(dir.path(), stem)["taskPassed"] == true;
    assert!(passed("stats__find-00@baseline") && passed("stats__find-29@same"));
    assert!(!passed("stats__find-10@reworded"));
    assert!(!passed("stats__find-00@partly") && passed("stats__find-04@partly"));

    let report_file = dir.path().join("report.json");
    let merged = support::cli::mcpeval(
        &[
            "report",
            dir.path().join("out").to_str().unwrap(),
            "--output",
            report_file.to_str().unwrap(),
        ],
        None,
    );
    assert!(!text(&merged.stdout).is_empty() || !text(&merged.stderr).is_empty());
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&report_file).unwrap()).unwrap();
    let summary = &report["summary"];
    let variant = |name: &str| {
        (summary["variants"].as_array().unwrap().iter())
            .find(|v| v["name"] == name)
            .unwrap_or_else(|| panic!("no variant {name}: {:#}", summary["variants"]))
            .clone()
    };
    assert_eq!(variant("baseline")["baseline"], true);
    assert_eq!(variant("baseline")["passed"], 30);
    assert_eq!(variant("reworded")["passed"], 0);
    assert_eq!(variant("partly")["passed"], 26);
    let comparison = |name: &str| {
        (summary["comparisons"].as_array().unwrap().iter())
            .find(|c| c["variant"] == name)
            .unwrap_or_else(|| panic!("no comparison {name}: {:#}", summary["comparisons"]))
            .clone()
    };
    let reworded = comparison("reworded");
    assert_eq!(reworded["baseline"], "baseline");
    assert_eq!(reworded["tasks"], 30);
    assert_eq!(reworded["worse"], 30);
    assert_eq!(reworded["better"], 0);
    assert_eq!(reworded["verdict"], "worse", "{reworded:#}");
    // McNemar exact, 30 discordant pairs all one way: 2 × 0.5^30; Holm over 3 variants
    // multiplies the smallest p by 3.
    let p = reworded["pValue"].as_f64().unwrap();
    assert!((p - 2.0 * 0.5f64.powi(30)).abs() < 1e-15, "{p}");
    let adjusted = reworded["adjustedPValue"].as_f64().unwrap();
    assert!(
        (adjusted - 3.0 * 2.0 * 0.5f64.powi(30)).abs() < 1e-15,
        "{adjusted}"
    );

    let same = comparison("same");
    assert_eq!(
        (same["same"].as_u64(), same["worse"].as_u64()),
        (Some(30), Some(0))
    );
    assert_eq!(same["verdict"], "no clear difference", "{same:#}");
    let partly = comparison("partly");
    assert_eq!(partly["worse"], 4);
    assert_eq!(partly["verdict"], "no clear difference", "{partly:#}");
    assert!(
        partly["reason"].as_str().unwrap_or_default().contains('6'),
        "{partly:#}"
    );
    // The summary printed after the run says the same.
    assert!(stderr.contains("reworded"), "{stderr}");
}

#[test]
fn a_variants_trace_says_which_tool_overrides_applied() {
    let dir = eval_dir();
    check(dir.path(), &["vary::sum@"]);
    let trace = |stem: &str| -> Value {
        let path = dir.path().join(format!("out/runs/{stem}/trace.json"));
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
    };
    let described = trace("vary__sum@described");
    assert_eq!(described["variant"]["name"], "described", "{described:#}");
    let applied = &described["variant"]["toolOverrides"][0];
    assert_eq!(
        (&applied["server"], &applied["tool"]),
        (&"demo".into(), &"add".into())
    );
    assert_eq!(applied["applied"], true, "{described:#}");
    let misnamed = trace("vary__sum@misnamed");
    assert_eq!(misnamed["variant"]["toolOverrides"][0]["tool"], "nope");
    assert_eq!(misnamed["variant"]["toolOverrides"][0]["applied"], false);
}
