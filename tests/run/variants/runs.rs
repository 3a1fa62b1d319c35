//! Each task × variant is a test of its own, and what each variant changes reaches its run,
//! results and trace.

use crate::support;

use serde_json::Value;
use support::cli::text;

use super::{check, eval_dir, result, validate_eval};

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
