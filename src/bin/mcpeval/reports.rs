//! `mcpeval report` and `mcpeval diff`: their flags, their output (text, markdown, JSON),
//! their gates and, under GitHub Actions, the job summary.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use mcpeval::exit;
use mcpeval::report::{BudgetCheck, Budgets, DiffFormat, Report, github};

/// The flags of `mcpeval report`.
#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// Output directories (with `results/`), results folders, results files or reports;
    /// default `target/mcpeval`.
    #[arg(value_name = "DIR")]
    dirs: Vec<PathBuf>,
    /// Where to write the merged report (default: `report.json` in the first directory).
    #[arg(long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Also write JUnit XML here: one test suite per eval, one test case per test (the runs of
    /// a task that runs several times are one test case; a failed run of a test that passed
    /// is a `<flakyFailure>`).
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Also write the HTML report here: one self-contained page (summary, a filterable
    /// table of task runs, each run's timeline, failed assertions and snapshot diff).
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Exit with code 1 when a server's surface coverage (the share of the tools,
    /// resources, resource templates and prompts it advertised that some task used) is
    /// below this share, from 0 to 1, or when no server advertised anything.
    #[arg(long, value_name = "SHARE", value_parser = parse_share)]
    min_coverage: Option<f64>,
    /// Exit with code 1 when a server's parameter coverage (the share of its tools'
    /// input-schema properties some task's succeeded call passed) is below this share, from
    /// 0 to 1, or when no server's tools have properties.
    #[arg(long, value_name = "SHARE", value_parser = parse_share)]
    min_parameter_coverage: Option<f64>,
    /// Exit with code 1 when the runs' priced model calls cost more than USD US dollars in
    /// total (unpriced models are named, not counted).
    #[arg(long, value_name = "USD", value_parser = parse_dollars)]
    max_cost: Option<f64>,
    /// `text` (default), `markdown` (the summary as a pull-request comment) or `json` (the
    /// merged report, as written to `--output`), on stdout (with `markdown` or `json` the
    /// paths written go to stderr).
    #[arg(long, value_enum, default_value = "text")]
    format: ReportFormat,
}

/// The flags of `mcpeval diff`.
#[derive(Debug, clap::Args)]
pub struct DiffArgs {
    /// The baseline: a results directory or a report.
    base: PathBuf,
    /// The current run: a results directory or a report.
    current: PathBuf,
    /// `text`, `markdown` (a pull-request comment under 65,536 characters) or `json`
    /// (`schema/diff.schema.json`).
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Exit with code 1 when a task regressed (with several runs: its drop is unlikely to
    /// be chance, one-sided Fisher test at α = 0.05).
    #[arg(long)]
    fail_on_regression: bool,
    /// Exit with code 1 when a server's tool-definition tokens grew more than PCT percent.
    #[arg(long, value_name = "PCT", value_parser = parse_percent)]
    max_definition_growth: Option<f64>,
    /// Exit with code 1 when a tool's median tokens per result grew more than PCT percent.
    #[arg(long, value_name = "PCT", value_parser = parse_percent)]
    max_result_growth: Option<f64>,
    /// Exit with code 1 when the current run has schema findings the base did not: a broken
    /// tool definition, or a tool whose results (or arguments) break its schema where none
    /// did.
    #[arg(long)]
    fail_on_new_schema_findings: bool,
    /// Exit with code 1 when a server's surface coverage in the current run is below this
    /// share, from 0 to 1 (as `mcpeval report --min-coverage`).
    #[arg(long, value_name = "SHARE", value_parser = parse_share)]
    min_coverage: Option<f64>,
    /// Exit with code 1 when a server's parameter coverage in the current run is below this
    /// share, from 0 to 1 (as `mcpeval report --min-parameter-coverage`).
    #[arg(long, value_name = "SHARE", value_parser = parse_share)]
    min_parameter_coverage: Option<f64>,
    /// Exit with code 1 when the total cost of the runs' priced model calls grew more than
    /// PCT percent.
    #[arg(long, value_name = "PCT", value_parser = parse_percent)]
    max_cost_growth: Option<f64>,
}

/// How `report` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ReportFormat {
    Text,
    Markdown,
    Json,
}

/// How `diff` prints.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Format {
    Text,
    Markdown,
    Json,
}

pub fn report(args: ReportArgs) -> ExitCode {
    let dirs = if args.dirs.is_empty() {
        vec![mcpeval::harness::output_dir()]
    } else {
        args.dirs
    };
    let results = match mcpeval::report::load_results(&dirs) {
        Ok(results) if !results.is_empty() => results,
        Ok(_) => {
            let shown: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
            return report_error(format!("no results files in {}", shown.join(", ")));
        }
        Err(e) => return report_error(e),
    };
    let report = mcpeval::report::merge(results);
    let output = args.output.unwrap_or_else(|| {
        let first = &dirs[0];
        if first.is_dir() {
            first.join("report.json")
        } else {
            PathBuf::from("report.json")
        }
    });
    let json = match write_report_files(
        &report,
        &output,
        args.junit.as_deref(),
        args.html.as_deref(),
    ) {
        Ok(json) => json,
        Err(message) => return report_error(message),
    };
    let budgets = Budgets {
        min_coverage: args.min_coverage,
        min_parameter_coverage: args.min_parameter_coverage,
        max_cost: args.max_cost,
        ..Default::default()
    };
    // The coverage gates read the current report only.
    let checks = mcpeval::report::check_budgets(&report, &report, &budgets);
    let markdown =
        || mcpeval::report::report_markdown(&report, &checks, mcpeval::report::COMMENT_LIMIT);
    let mut written = vec![("report", output)];
    written.extend(args.junit.map(|junit| ("junit", junit)));
    written.extend(args.html.map(|html| ("html", html)));
    match args.format {
        ReportFormat::Markdown | ReportFormat::Json => {
            if args.format == ReportFormat::Json {
                print!("{json}");
            } else {
                print!("{}", markdown());
            }
            for (what, path) in written {
                eprintln!("  {what}: {}", path.display());
            }
        }
        ReportFormat::Text => {
            print!("{}", report.summary.render());
            for (what, path) in written {
                println!("  {what}: {}", path.display());
            }
        }
    }
    job_summary(&markdown);
    // Each failed gate, a line per server (or per total) below or above its limit; a gate
    // that found nothing to check names its flag.
    let failed: Vec<&BudgetCheck> = checks.iter().filter(|check| !check.passed).collect();
    for check in &failed {
        for line in &check.over {
            match check.limit.filter(|_| check.checked == 0) {
                Some(limit) => eprintln!("mcpeval: {} {limit}: {line}", check.budget),
                None => eprintln!("mcpeval: {line}"),
            }
        }
    }
    if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(exit::BUDGET_EXCEEDED)
    }
}

/// `message` on stderr; the exit code of a report that could not be made.
fn report_error(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("mcpeval: {message}");
    ExitCode::from(exit::REPORT_ERROR)
}

/// The merged report written to `output` (its JSON returned), and to `--junit` and `--html`
/// when given.
fn write_report_files(
    report: &Report,
    output: &Path,
    junit: Option<&Path>,
    html: Option<&Path>,
) -> Result<String, String> {
    let json = serde_json::to_string_pretty(report)
        .map(|text| text + "\n")
        .map_err(|e| format!("cannot serialise the report: {e}"))?;
    std::fs::write(output, &json).map_err(|e| format!("cannot write {}: {e}", output.display()))?;
    if let Some(junit) = junit {
        std::fs::write(junit, mcpeval::report::junit_xml(report))
            .map_err(|e| format!("cannot write {}: {e}", junit.display()))?;
    }
    if let Some(html) = html {
        mcpeval::report::write_html(report, "mcpeval report", html).map_err(|e| e.to_string())?;
    }
    Ok(json)
}

/// Under GitHub Actions, appends `markdown` to the job summary (a note when it cannot).
fn job_summary(markdown: &dyn Fn() -> String) {
    if !github::in_actions() {
        return;
    }
    if let Err(e) = github::append_step_summary(&markdown()) {
        eprintln!(
            "note: cannot append to the job summary (${}): {e}",
            github::STEP_SUMMARY_VAR
        );
    }
}

fn parse_share(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(share) if (0.0..=1.0).contains(&share) => Ok(share),
        _ => Err(format!(
            "expected a share from 0 to 1 (0.8 for 80%), not {text}"
        )),
    }
}

fn parse_dollars(text: &str) -> Result<f64, String> {
    let number = text.strip_prefix('$').unwrap_or(text);
    match number.parse::<f64>() {
        Ok(usd) if usd.is_finite() && usd >= 0.0 => Ok(usd),
        _ => Err(format!(
            "expected US dollars, 0 or more (2.50 or $2.50), not {text}"
        )),
    }
}

fn parse_percent(text: &str) -> Result<f64, String> {
    let number = text.strip_suffix('%').unwrap_or(text);
    match number.parse::<f64>() {
        Ok(percent) if percent.is_finite() && percent >= 0.0 => Ok(percent),
        _ => Err(format!(
            "expected a percent of 0 or more (10 or 10% for 10%), not {text}"
        )),
    }
}

fn load(path: &Path) -> Result<Report, mcpeval::report::ReportError> {
    mcpeval::report::load_results(&[path.to_path_buf()]).map(mcpeval::report::merge)
}

pub fn diff(args: DiffArgs) -> ExitCode {
    let (base, current) = match (load(&args.base), load(&args.current)) {
        (Ok(base), Ok(current)) => (base, current),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("mcpeval: {e}");
            return ExitCode::from(exit::REPORT_ERROR);
        }
    };
    let mut diff = mcpeval::report::diff_reports(&base, &current);
    let budgets = Budgets {
        max_definition_growth: args.max_definition_growth,
        max_result_growth: args.max_result_growth,
        fail_on_new_schema_findings: args.fail_on_new_schema_findings,
        min_coverage: args.min_coverage,
        min_parameter_coverage: args.min_parameter_coverage,
        max_cost: None,
        max_cost_growth: args.max_cost_growth,
    };
    diff.budgets = mcpeval::report::check_budgets(&base, &current, &budgets);
    let format = match args.format {
        Format::Text => DiffFormat::Text,
        Format::Markdown => DiffFormat::Markdown,
        Format::Json => DiffFormat::Json,
    };
    print!("{}", diff.render(format));
    job_summary(&|| diff.render(DiffFormat::Markdown));
    let regressed = args.fail_on_regression && diff.has_regressions();
    if regressed {
        eprintln!("mcpeval: a task regressed (--fail-on-regression)");
    }
    for budget in diff.budgets.iter().filter(|b| !b.passed) {
        eprintln!("mcpeval: {}", budget.describe("->"));
    }
    if regressed {
        ExitCode::from(exit::REGRESSION)
    } else if !diff.budgets_passed() {
        ExitCode::from(exit::BUDGET_EXCEEDED)
    } else {
        ExitCode::SUCCESS
    }
}
