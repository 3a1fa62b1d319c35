//! The HTML report in a real browser: headless Chromium (`.ci/install-peers.sh` installs
//! Debian's package) opens the page of a run of the repository's own evals (`evals/demo`,
//! `evals/openai-agent`, replayed from its cassette) plus `tests/fixtures/html-report` (a
//! failed task with a snapshot diff and a tool result holding `<script>`), and the tests
//! read the DOM after the page's script ran (`--dump-dom`). Interaction goes through the
//! page's own code: filters, search and sorting are URL parameters it honours, an anchor
//! opens a task. Screenshots are saved under `target/tmp/html-report/` to look at.
//!
//! Without `chromium` on PATH the browser tests are skipped with a note; with `CI` set they
//! fail instead.

use crate::support::cli;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use cli::{mcpeval, text};

/// The output directory of one run of the evals, with its `report.html`.
fn run_dir() -> &'static Path {
    static RUN: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, output) = RUN.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary directory");
        // A changed snapshot writes a .snap.new beside the accepted one: not in the repository.
        let fixture = dir.path().join("html-report");
        crate::support::files::copy_tree(&repo().join("tests/fixtures/html-report"), &fixture);
        let output = dir.path().join("out");
        let run = Command::new(env!("CARGO_BIN_EXE_mcpeval"))
            .args([
                "check",
                "evals/demo/eval.yaml",
                "evals/openai-agent/eval.yaml",
            ])
            .arg(fixture.join("eval.yaml"))
            .arg("--output")
            .arg(&output)
            .current_dir(repo())
            .env("MCPEVAL_RECORD_MODE", "none")
            .env("OPENAI_API_KEY", "sk-offline-fake-key")
            .env("OPENAI_BASE_URL", "http://127.0.0.1:9")
            .env("JUDGE_API_KEY", "sk-offline-fake-judge-key")
            .env("JUDGE_BASE_URL", "http://127.0.0.1:9")
            .env("JUDGE_MODEL_NAME", "fake-judge")
            .env_remove("NEXTEST")
            .output()
            .expect("run mcpeval check");
        let stderr = text(&run.stderr);
        let page = output.join("report.html");
        assert!(
            stderr.contains(&format!("html report: {}", page.display())),
            "the run prints where the page is:\n{stderr}"
        );
        (dir, output)
    });
    output
}

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `chromium`, or `None` after a skip note; with `CI` set a missing one fails the test.
fn chromium() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join("chromium"))
            .find(|candidate| candidate.is_file())
    });
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "chromium is missing (CI is set): run .ci/install-peers.sh"
        );
        eprintln!("skipped: chromium is not on PATH: run .ci/install-peers.sh");
    }
    found
}

/// Chromium, headless, on the page with `query` (`?…`, `#…` or empty) and `extra`
/// arguments; its stdout.
fn browse(chromium: &Path, query: &str, extra: &[String]) -> String {
    browse_page(chromium, &run_dir().join("report.html"), query, extra)
}

/// The same on the page `page`.
fn browse_page(chromium: &Path, page: &Path, query: &str, extra: &[String]) -> String {
    let profile = tempfile::tempdir().expect("a profile directory");
    let url = format!("file://{}{query}", page.display());
    let output = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            // The page inflates its runs asynchronously (DecompressionStream): dump the DOM
            // and take screenshots once the page is idle, not at its load event.
            "--virtual-time-budget=10000",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(extra)
        .arg(&url)
        .output()
        .expect("run chromium");
    assert!(
        output.status.success(),
        "chromium failed on {url}: {}",
        text(&output.stderr)
    );
    text(&output.stdout)
}

/// The DOM after the page's script ran.
fn dom(chromium: &Path, query: &str) -> String {
    dom_of(chromium, &run_dir().join("report.html"), query)
}

/// The same of the page `page`.
fn dom_of(chromium: &Path, page: &Path, query: &str) -> String {
    let dom = browse_page(chromium, page, query, &["--dump-dom".to_owned()]);
    assert!(
        dom.contains(r#"data-ready="true""#),
        "the page's script ran to its end"
    );
    dom
}

/// The text of the element with `id`.
fn text_of<'a>(dom: &'a str, id: &str) -> &'a str {
    let start = dom
        .find(&format!(r#" id="{id}""#))
        .unwrap_or_else(|| panic!("no element {id}"));
    let rest = &dom[start..];
    let open = rest.find('>').unwrap() + 1;
    let close = rest[open..].find('<').unwrap() + open;
    &rest[open..close]
}

/// The rows of the task table in their order: (test name, hidden).
fn rows(dom: &str) -> Vec<(String, bool)> {
    let body = &dom[dom.find(r#"id="task-table""#).unwrap()..];
    let body = &body[..body.find("</table>").unwrap()];
    body.split("<tr ")
        .skip(1)
        .map(|row| {
            let tag = &row[..row.find('>').unwrap()];
            let id = tag.split(r#"data-id=""#).nth(1).unwrap();
            (
                id[..id.find('"').unwrap()].to_owned(),
                tag.contains("hidden"),
            )
        })
        .collect()
}

fn shown(dom: &str) -> Vec<String> {
    (rows(dom).into_iter())
        .filter(|(_, hidden)| !hidden)
        .map(|(name, _)| name)
        .collect()
}

/// The `<details>` of a task run, up to the next one.
fn task_section<'a>(dom: &'a str, id: &str) -> &'a str {
    let start = dom
        .find(&format!(r#" id="{id}""#))
        .unwrap_or_else(|| panic!("no task section {id}"));
    let start = dom[..start].rfind("<details").unwrap();
    let end = dom[start + 8..]
        .find(r#"<details class="task"#)
        .map_or(dom.len(), |i| i + start + 8);
    &dom[start..end]
}

#[test]
fn the_page_shows_the_counts_of_the_run() {
    let Some(chromium) = chromium() else { return };
    let dom = dom(&chromium, "");
    assert_eq!(text_of(&dom, "count-runs"), "5");
    assert_eq!(text_of(&dom, "count-passed"), "4");
    assert_eq!(text_of(&dom, "count-failed"), "1");
    assert_eq!(text_of(&dom, "count-flaky"), "0");
    assert_eq!(text_of(&dom, "pass-rate"), "80.0%");
    assert_eq!(text_of(&dom, "llm-runs"), "1 · 0 · 0");
    assert_eq!(text_of(&dom, "shown"), "5 of 5 shown");
    assert_eq!(
        rows(&dom).len(),
        5,
        "one row per task run: {:?}",
        rows(&dom)
    );
}

#[test]
fn a_failed_task_is_open_with_its_assertion_and_coloured_snapshot_diff() {
    let Some(chromium) = chromium() else { return };
    let dom = dom(&chromium, "");
    let failed = task_section(&dom, "acme::injects");
    assert!(failed.starts_with(r#"<details class="task failed" id="acme::injects" open"#));
    assert!(failed.contains("toolsUsed"), "{failed}");
    assert!(failed.contains("a tool call matching each of: demo/lookup_user"));
    assert!(failed.contains(r#"<span class="del">-  arguments: {"text":"hello"}"#));
    assert!(failed.contains(r#"<span class="add">+  arguments: {"text":"&lt;script&gt;"#));
    // The setup step's 60 lines start collapsed behind a button.
    assert!(failed.contains("setup line 60"));
    assert!(failed.contains(r#"<button type="button" class="expand" aria-expanded="false">"#));
    let passed = task_section(&dom, "acme::adds");
    assert!(passed.starts_with(r#"<details class="task passed" id="acme::adds">"#));
}

#[test]
fn the_timeline_shows_steps_calls_and_the_recorded_llm_turns() {
    let Some(chromium) = chromium() else { return };
    let dom = dom(&chromium, "");
    let run = task_section(&dom, "acme::injects");
    let kinds: Vec<&str> = run
        .split(r#"<li class="ev "#)
        .skip(1)
        .map(|ev| ev.split(' ').next().unwrap())
        .collect();
    assert_eq!(kinds, ["setup", "agent", "mcp", "mcp"]);
    assert!(run.contains("#1 demo echo"));
    // The openai-agent run replays its cassette: each turn, then the calls it asked for.
    let llm = task_section(&dom, "openai-agent::add");
    let kinds: Vec<&str> = llm
        .split(r#"<li class="ev "#)
        .skip(1)
        .map(|ev| ev.split(' ').next().unwrap())
        .collect();
    assert_eq!(kinds, ["agent", "llm", "mcp", "llm", "verify", "llm"]);
    // Each turn is placed when the run made it; replayed, it took no time of the model's.
    for turn in llm.split(r#"<li class="ev llm "#).skip(1) {
        let when = &turn[turn.find(r#"<span class="when">"#).unwrap()..];
        let when = &when[..when.find("</span>").unwrap()];
        assert!(
            when.contains("+") && when.ends_with(" · replayed"),
            "{when}"
        );
        assert!(turn[..turn.find("</summary>").unwrap()].contains(r#"class="bar""#));
    }
    assert!(llm.contains("tool add {"), "{llm}");
    assert!(llm.contains("The sum is 42."));
}

/// The setup output of `acme::adds` (200 KB) as its results file holds it.
fn adds_setup_output(results_file: &Path) -> String {
    let text = std::fs::read_to_string(results_file)
        .unwrap_or_else(|e| panic!("{}: {e}", results_file.display()));
    let result: serde_json::Value = serde_json::from_str(&text).unwrap();
    result["setupOutput"]["steps"][0]["output"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The cut text of `acme::adds` on `page`: its first 2 KB shown, a button that says so with
/// the real size, and a note whose link (`href`, checked) leads from the page to the
/// results file that holds the whole.
fn assert_cut_and_linked(chromium: &Path, page: &Path, href: &str) {
    let whole = adds_setup_output(&run_dir().join("results/acme__adds.json"));
    assert!(whole.len() > 200 * 1000, "{} bytes", whole.len());
    // Binary units, as the page's: a KB is 1024 bytes.
    let size = format!("{:.1} KB", whole.len() as f64 / 1024.0);
    let dom = dom_of(chromium, page, "");
    let run = task_section(&dom, "acme::adds");
    let text = &run[run
        .find(r#"<div class="text long"><pre>"#)
        .expect("a long text")..];
    let text = &text[..text.find("</div>").unwrap()];
    let shown = &text[text.find("<pre>").unwrap() + 5..text.find("</pre>").unwrap()];
    assert_eq!(shown, &whole[..2048], "the first 2 KB are shown");
    assert!(
        text.contains(&format!(
            r#"aria-expanded="false">Show the first 2.0 KB of {size}</button>"#
        )),
        "the button says what it shows, with the whole text's size: {text}"
    );
    assert!(!text.contains("Show all"), "the page does not hold it all");
    let note = format!(
        r#"<p class="cut">Cut at 2.0 KB of {size}: the whole text is in <a href="{href}">{href}</a>.</p>"#
    );
    assert!(text.contains(&note), "{note}\nnot in\n{text}");
    let target = page.parent().unwrap().join(href);
    assert_eq!(adds_setup_output(&target), whole, "{href} holds it all");
}

#[test]
fn a_cut_text_shows_its_first_2_kb_and_links_to_the_results_file() {
    let Some(chromium) = chromium() else { return };
    let page = run_dir().join("report.html");
    assert_cut_and_linked(&chromium, &page, "results/acme__adds.json");
    // The page of `mcpeval report` in another directory links there too.
    let merged = run_dir().parent().unwrap().join("merged/report.html");
    let json = run_dir().parent().unwrap().join("merged.json");
    let run = mcpeval(
        &[
            "report",
            run_dir().to_str().unwrap(),
            "--output",
            json.to_str().unwrap(),
            "--html",
            merged.to_str().unwrap(),
        ],
        None,
    );
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert_cut_and_linked(&chromium, &merged, "../out/results/acme__adds.json");
}

#[test]
fn filters_and_search_come_from_the_url() {
    let Some(chromium) = chromium() else { return };
    let failed = dom(&chromium, "?status=failed");
    assert_eq!(shown(&failed), ["acme::injects"]);
    assert_eq!(text_of(&failed, "shown"), "1 of 5 shown");
    // Filtered-out runs are hidden below the table too.
    assert!(task_section(&failed, "acme::adds").contains("hidden"));
    let labelled = dom(&chromium, "?label=area%3Dmath");
    assert_eq!(shown(&labelled), ["acme::adds"]);
    let by_eval = dom(&chromium, "?eval=demo&agent=script-agent");
    assert_eq!(shown(&by_eval), ["demo::arithmetic", "demo::lookup-user"]);
    let searched = dom(&chromium, "?q=ARITH");
    assert_eq!(shown(&searched), ["demo::arithmetic"]);
}

#[test]
fn sorting_comes_from_the_url() {
    let Some(chromium) = chromium() else { return };
    let sorted = dom(&chromium, "?sort=status");
    let order: Vec<String> = rows(&sorted).into_iter().map(|(name, _)| name).collect();
    assert_eq!(order[0], "acme::injects", "failed first: {order:?}");
    let by_calls = dom(&chromium, "?sort=calls&desc=1");
    let order: Vec<String> = rows(&by_calls).into_iter().map(|(name, _)| name).collect();
    assert_eq!(order[0], "demo::lookup-user", "3 calls first: {order:?}");
    assert!(by_calls.contains(r#"data-key="calls" class="num" aria-sort="descending""#));
}

#[test]
fn an_anchor_opens_its_task() {
    let Some(chromium) = chromium() else { return };
    let dom = dom(&chromium, "#acme::adds");
    let section = task_section(&dom, "acme::adds");
    assert!(
        section.starts_with(r#"<details class="task passed targeted" id="acme::adds" open"#),
        "{}",
        &section[..120]
    );
}

#[test]
fn a_tool_result_with_a_script_element_is_inert_text() {
    let Some(chromium) = chromium() else { return };
    let dom = dom(&chromium, "");
    assert!(
        dom.contains("<title>mcpeval report</title>"),
        "the title stays"
    );
    assert!(!dom.contains("INJECTED</title>"));
    assert!(!dom.contains("<img"), "no element comes from a tool result");
    assert!(dom.contains("&lt;script&gt;document.title='INJECTED'&lt;/script&gt;"));
}

#[test]
fn screenshots_light_dark_and_phone() {
    let Some(chromium) = chromium() else { return };
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("html-report");
    std::fs::create_dir_all(&dir).unwrap();
    let shots = [
        ("light.png", "", "1280,1800"),
        ("dark-failed.png", "?theme=dark&status=failed", "1280,1800"),
        ("phone.png", "?q=openai&open=all", "390,2400"),
    ];
    for (name, query, size) in shots {
        let file = dir.join(name);
        let _ = std::fs::remove_file(&file);
        browse(
            &chromium,
            query,
            &[
                format!("--screenshot={}", file.display()),
                format!("--window-size={size}"),
            ],
        );
        let png = std::fs::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        assert!(png.starts_with(b"\x89PNG"), "{} is a PNG", file.display());
        eprintln!("screenshot: {}", file.display());
    }
}

#[test]
fn report_writes_the_page_of_merged_results_and_names_a_bad_path() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("merged.html");
    let shards = ["current-shard-1", "current-shard-2"]
        .map(|shard| repo().join("tests/fixtures/results").join(shard));
    let shard_args: Vec<&str> = shards.iter().map(|p| p.to_str().unwrap()).collect();
    let json = dir.path().join("report.json");
    let mut args = vec!["report"];
    args.extend(&shard_args);
    args.extend(["--output", json.to_str().unwrap(), "--html"]);
    args.push(page.to_str().unwrap());
    // Results files written before the page existed (no labels, no step offsets) load.
    let run = mcpeval(&args, None);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert!(text(&run.stdout).contains(&format!("html: {}", page.display())));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.starts_with("<!doctype html>"));
    assert!(!html.contains("src=\"http") && !html.contains("href=\"http"));
    // The runs' details are in the page compressed (the browser tests read them inflated).
    assert!(html.contains(
        r#"<script type="application/octet-stream" id="runs-data" data-encoding="gzip-base64">H4sI"#
    ));
    assert!(!html.contains(r#"<details class="task"#));
    let bad = dir.path().join("report.json/page.html");
    let mut args = vec!["report"];
    args.extend(&shard_args);
    args.extend(["--output", json.to_str().unwrap(), "--html"]);
    args.push(bad.to_str().unwrap());
    let run = mcpeval(&args, None);
    assert_eq!(run.status.code(), Some(mcpeval::exit::REPORT_ERROR as i32));
    let stderr = text(&run.stderr);
    assert!(
        stderr.contains(&format!("cannot write the HTML report {}", bad.display())),
        "{stderr}"
    );
}
