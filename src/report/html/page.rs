//! The page of a merged report rendered (`render_html`) and written atomically
//! (`write_html`). It is rendered by minijinja from `report.html` with HTML auto-escaping:
//! every value from a results file is text on the page, never markup. The runs' details
//! (`runs.html`, most of the page) are held gzip-compressed and base64-encoded in an inert
//! `<script type="application/octet-stream">`; the page's script inflates them with the
//! browser's `DecompressionStream` into `<section id="runs">`. Its script honours URL
//! parameters (`?status=failed&eval=demo&label=area=users&agent=…&q=…&sort=duration&desc=1&theme=dark&open=all`)
//! and opens the run an anchor names (`report.html#demo::arithmetic`).

use std::path::{Path, PathBuf};

use minijinja::{Environment, Value};

use super::view;
use crate::report::summary::Report;

const TEMPLATE: &str = include_str!("report.html");
const RUNS: &str = include_str!("runs.html");
const VARIANTS: &str = include_str!("variants.html");
const STYLE: &str = include_str!("report.css");
const SCRIPT: &str = include_str!("report.js");

/// Problems making the HTML report.
#[derive(Debug, thiserror::Error)]
pub enum HtmlError {
    /// The template failed to render (a bug in mcpeval).
    #[error("cannot render the HTML report: {0:#}")]
    Render(#[from] minijinja::Error),
    /// The file cannot be written.
    #[error("cannot write the HTML report {path}: {source}")]
    Write {
        /// The path.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// The page of `report`, to be written into `page_dir` (its links to results files are
/// relative to it). Cassettes named by the results (to show each LLM turn) are read where
/// the results say, relative paths also from `base`; `page_dir` and the results files, when
/// relative, are read from `base` too.
pub fn render_html(
    report: &Report,
    title: &str,
    base: &Path,
    page_dir: &Path,
) -> Result<String, HtmlError> {
    let env = environment()?;
    let page = Value::from_serialize(view::page(report, title, base, page_dir));
    let runs = render_runs(&env, &page)?;
    let template = env.get_template("report.html")?;
    let html = template.render(minijinja::context! {
        page => page,
        runs_encoding => "gzip-base64",
        // Base64 holds no character HTML gives a meaning to (`/` would be escaped).
        runs_data => Value::from_safe_string(gzip_base64(&runs)),
        style => Value::from_safe_string(STYLE.to_owned()),
        script => Value::from_safe_string(SCRIPT.to_owned()),
    })?;
    Ok(html)
}

/// The templates of the page, and the four filters they use. minijinja's built-in filters
/// are left out of the build (`builtins`, four seconds of a user's build); these behave
/// as theirs do for the values the page passes.
fn environment() -> Result<Environment<'static>, minijinja::Error> {
    let mut env = Environment::new();
    env.add_filter("join", |items: Vec<String>, separator: String| {
        items.join(&separator)
    });
    env.add_filter("replace", |text: String, from: String, to: String| {
        text.replace(&from, &to)
    });
    env.add_filter("lower", |text: String| text.to_lowercase());
    env.add_filter("length", |value: Value| {
        value.len().ok_or_else(|| {
            minijinja::Error::new(
                minijinja::ErrorKind::InvalidOperation,
                "length of a value that has none",
            )
        })
    });
    env.add_template("report.html", TEMPLATE)?;
    env.add_template("runs.html", RUNS)?;
    env.add_template("variants.html", VARIANTS)?;
    Ok(env)
}

/// The runs' details (`runs.html`) of `page`, as markup.
fn render_runs(env: &Environment<'_>, page: &Value) -> Result<String, minijinja::Error> {
    env.get_template("runs.html")?
        .render(minijinja::context! { page => page.clone() })
}

/// `text` gzip-compressed, then base64-encoded (standard alphabet, padded): what
/// `DecompressionStream("gzip")` inflates after `atob`. Base64 needs no escaping in HTML.
fn gzip_base64(text: &str) -> String {
    use base64::Engine as _;
    use std::io::Write as _;
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    // Writing into a Vec cannot fail.
    let _ = gzip.write_all(text.as_bytes());
    let bytes = gzip.finish().unwrap_or_default();
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Renders the page of `report` into `path` (its directory created), atomically: a reader
/// never sees half a page.
pub fn write_html(report: &Report, title: &str, path: &Path) -> Result<(), HtmlError> {
    let base = std::env::current_dir().unwrap_or_default();
    let html = render_html(report, title, &base, path.parent().unwrap_or(Path::new("")))?;
    let write = |source| HtmlError::Write {
        path: path.to_owned(),
        source,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(write)?;
    }
    let name = path.file_name().map_or_else(
        || "report.html".into(),
        |n| n.to_string_lossy().into_owned(),
    );
    let temporary = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&temporary, html).map_err(write)?;
    std::fs::rename(&temporary, path).map_err(|e| {
        let _ = std::fs::remove_file(&temporary);
        write(e)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::results::{CallHistory, CallRecord, FaultNote, TaskResult};
    use crate::report::summary::merge;
    use crate::trace::{FaultKind, Injected};

    #[test]
    fn the_templates_filters_behave_as_minijinjas_builtins() {
        let env = environment().unwrap();
        let shown = env
            .render_str(
                "{{ labels|join(', ') }}|{{ state|replace(' ', '-') }}|{{ labels|length }}|\
                 {{ 'a' ~ name|lower }}|{{ tasks|length }}|{{ labels|join('|') }}",
                minijinja::context! {
                    labels => vec!["suite", "<b>"],
                    state => "not run",
                    name => "Add Two",
                    tasks => vec![1, 2, 3],
                },
            )
            .unwrap();
        // Auto-escaping holds for what a filter returns: `.html` templates only, so the
        // string template here shows the text as it is.
        assert_eq!(shown, "suite, <b>|not-run|2|aadd two|3|suite|<b>");
        let error = env.render_str("{{ 3|length }}", ()).unwrap_err();
        assert!(error.to_string().contains("length"), "{error}");
    }

    #[test]
    fn the_timeline_labels_an_injected_answer_as_the_proxys() {
        let call = |position: usize, injected: Option<Injected>| CallRecord {
            position,
            outcome: "is_error".into(),
            result: serde_json::json!({"content": [{"type": "text", "text": "try again"}]}),
            start_offset_ms: 1.0,
            duration_ms: 1.0,
            injected,
            ..CallRecord::succeeded("demo", "add")
        };
        let fault = Injected {
            fault: FaultKind::ToolError,
            rule: "config.taskSets[0].faults[1]".into(),
        };
        let result = TaskResult {
            test_name: "demo::add".into(),
            call_history: CallHistory {
                tool_calls: vec![call(1, Some(fault)), call(2, None)],
                ..CallHistory::default()
            },
            ..TaskResult::default()
        };
        let report = merge(vec![result]);
        let page = Value::from_serialize(view::page(&report, "t", Path::new("."), Path::new(".")));
        let runs = render_runs(&environment().unwrap(), &page).unwrap();
        let events: Vec<&str> = runs.split("<li class=\"ev ").skip(1).collect();
        assert_eq!(events.len(), 2, "{runs}");
        assert!(events[0].starts_with("mcp injected\">"), "{}", events[0]);
        assert!(
            events[0].contains(
                "<span class=\"injected\">injected toolError (config.taskSets[0].faults[1])</span>"
            ),
            "{}",
            events[0]
        );
        assert!(
            events[0].contains("<span class=\"block-label\">injected result</span>"),
            "{}",
            events[0]
        );
        assert!(events[1].starts_with("mcp is_error\">"), "{}", events[1]);
        assert!(!events[1].contains("injected"), "{}", events[1]);
    }

    #[test]
    fn a_run_lists_what_its_fault_rules_did() {
        let note = |rule: &str, matched: u32, injected: u32| FaultNote {
            rule: rule.into(),
            target: "tool `add` of server `demo`".into(),
            fault: FaultKind::Timeout,
            matched,
            injected,
        };
        let result = TaskResult {
            test_name: "demo::add".into(),
            faults: vec![note("spec.faults[0]", 3, 1), note("spec.faults[1]", 0, 0)],
            fault_seed: Some(7),
            ..TaskResult::default()
        };
        let report = merge(vec![result]);
        let page = Value::from_serialize(view::page(&report, "t", Path::new("."), Path::new(".")));
        let runs = render_runs(&environment().unwrap(), &page).unwrap();
        let expected = "<h3>Faults on purpose</h3>\n    <ul class=\"faults\"><li>MCPEVAL_SEED=7</li>\
                        <li>spec.faults[0]: timeout on tool `add` of server `demo`, injected 1 of 3 matching calls</li>\
                        <li>spec.faults[1]: timeout on tool `add` of server `demo`, never matched a call</li></ul>";
        assert!(runs.contains(expected), "{runs}");
    }

    #[test]
    fn a_conversation_lists_each_turn_with_prompt_answer_and_outcome() {
        use crate::report::results::TurnRecord;
        let turn = |turn: u32, answer: Option<&str>, passed: bool, failures: &[&str]| TurnRecord {
            turn,
            prompt: format!("prompt {turn}"),
            answer: answer.map(str::to_owned),
            passed,
            not_run: answer.is_none(),
            calls: usize::from(answer.is_some()),
            tokens: None,
            duration_ms: None,
            failures: failures.iter().map(|f| (*f).to_owned()).collect(),
        };
        let result = TaskResult {
            test_name: "deploy::deploy".into(),
            turns: vec![
                turn(1, Some("Created web."), true, &[]),
                turn(2, Some("Scaled."), false, &["toolsUsed: no scale"]),
                turn(3, None, false, &[]),
            ],
            ..TaskResult::default()
        };
        let report = merge(vec![result]);
        let page = Value::from_serialize(view::page(&report, "t", Path::new("."), Path::new(".")));
        let runs = render_runs(&environment().unwrap(), &page).unwrap();
        let turns: Vec<&str> = runs.split("<li class=\"turn ").skip(1).collect();
        assert_eq!(turns.len(), 3, "{runs}");
        assert!(
            turns[0].starts_with("passed\">") && turns[0].contains("Created web."),
            "{}",
            turns[0]
        );
        assert!(
            turns[1].starts_with("failed\">")
                && turns[1].contains("<strong>Turn 2</strong> · failed · 1 call</p>")
                && turns[1].contains("prompt 2")
                && turns[1].contains("<li>toolsUsed: no scale</li>"),
            "{}",
            turns[1]
        );
        assert!(
            turns[2].starts_with("not-run\">") && turns[2].contains("· not run · 0 calls"),
            "{}",
            turns[2]
        );
        // A task of one turn has no conversation section.
        let single = merge(vec![TaskResult::default()]);
        let page = Value::from_serialize(view::page(&single, "t", Path::new("."), Path::new(".")));
        let runs = render_runs(&environment().unwrap(), &page).unwrap();
        assert!(!runs.contains("Conversation"), "{runs}");
    }

    #[test]
    fn a_run_shows_each_models_tokens_and_cost_and_its_own() {
        use crate::llm::ModelUsage;
        use crate::llm::pricing::{PricedUsage, RunCost};
        use crate::report::results::LlmCalls;
        let usage = |model: &str, cost_usd: Option<f64>| PricedUsage {
            usage: ModelUsage {
                model: model.into(),
                calls: 2,
                input_tokens: 20,
                output_tokens: 10,
                cache_read_tokens: 5,
                cache_write_tokens: 0,
            },
            cost_usd,
            price_date: None,
        };
        let result = TaskResult {
            test_name: "demo::add".into(),
            llm_calls: vec![LlmCalls {
                who: "agent".into(),
                api: "openai-chat".into(),
                used: "replayed".into(),
                replayed: 2,
                usage: vec![usage("gpt-test", Some(0.00012)), usage("local", None)],
                ..LlmCalls::default()
            }],
            cost: Some(RunCost {
                usd: 0.00012,
                unpriced: vec!["local".into()],
                replayed: true,
            }),
            ..TaskResult::default()
        };
        let report = merge(vec![result]);
        let page = Value::from_serialize(view::page(&report, "t", Path::new("."), Path::new(".")));
        let runs = render_runs(&environment().unwrap(), &page).unwrap();
        for shown in [
            "<li>  gpt-test: 2 calls, 20 input, 10 output, 5 cache read, 0 cache write tokens: $0.000120</li>",
            "<li>  local: 2 calls, 20 input, 10 output, 5 cache read, 0 cache write tokens: unpriced</li>",
            "<li>cost of the run: $0.000120 (what the replayed calls cost when recorded)</li>",
        ] {
            assert!(runs.contains(shown), "lacks {shown}:\n{runs}");
        }
    }
}
