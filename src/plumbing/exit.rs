//! The exit codes of the test harness and of the `mcpeval` command, in one place.
//!
//! | code | meaning |
//! |---|---|
//! | 0 | everything selected passed (or the command did what it was asked) |
//! | 1 | a gate failed: `mcpeval diff --fail-on-regression` found a regression, a budget of `mcpeval diff` was exceeded (`--max-definition-growth`, `--max-result-growth`, `--fail-on-new-schema-findings`, `--min-coverage`, `--min-parameter-coverage`: a line names it), or `mcpeval report --min-coverage` or `--min-parameter-coverage` found a server below the minimum |
//! | 2 | nothing ran: an eval file is invalid, `--exact` names no task (`mcpeval check`, nextest), `INSTA_UPDATE` or `INSTA_FORCE_PASS` has a value insta does not take, or the arguments are wrong (clap's code; also `mcpeval init`'s arguments: no server to start, an unknown agent, a crate binary not chosen) |
//! | 3 | `mcpeval report` / `diff` cannot read or write results or a report |
//! | 4 | `mcpeval init` wrote nothing: the server did not start or answer, a file it would write exists, or the crate's binary did not build |
//! | 101 | a task failed (libtest's code; nextest reports its own, 100) |
//! | 130 | SIGINT stopped the run (128 + 2, as shells report it): the running tasks' cleanup ran, later tasks did not run |
//! | 143 | SIGTERM stopped the run (128 + 15), likewise (nextest's `terminate-after`) |

/// Everything selected passed.
pub const OK: u8 = 0;
/// `mcpeval diff --fail-on-regression` found a task whose verdict got worse.
pub const REGRESSION: u8 = 1;
/// `mcpeval report --min-coverage` found a server whose surface coverage is below the
/// minimum (or no coverage at all): the same code as any failed gate.
pub const COVERAGE_BELOW_MINIMUM: u8 = 1;
/// A budget of `mcpeval diff` was exceeded (tool-definition or result growth, new schema
/// findings, coverage): the same code as any failed gate; a line on stderr and in the output
/// names the budget.
pub const BUDGET_EXCEEDED: u8 = 1;
/// Nothing ran: an eval file does not load, `--exact` names no task, or a variable of
/// insta's has a value it does not take (the same code clap uses for bad arguments).
pub const INVALID_CONFIG: u8 = 2;
/// `mcpeval report` or `diff` cannot read or write results or a report.
pub const REPORT_ERROR: u8 = 3;
/// `mcpeval init` wrote nothing: the server did not start or answer, a file it would write
/// exists, or the crate's binary did not build.
pub const INIT_FAILED: u8 = 4;
/// A task failed: libtest's exit code for failed tests.
pub const TESTS_FAILED: u8 = 101;
/// SIGINT stopped the run: 128 + the signal's number, as shells report a process it killed.
/// The same after a second SIGINT, which stops without cleanup.
pub const INTERRUPTED: u8 = 130;
/// SIGTERM stopped the run: 128 + the signal's number.
pub const TERMINATED: u8 = 143;
