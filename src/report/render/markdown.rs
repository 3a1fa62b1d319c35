//! Markdown for a pull-request comment (`mcpeval diff --format markdown`, `mcpeval report
//! --format markdown`, the job summary under GitHub Actions): a stable first line
//! ([`MARKER`]) a workflow finds its comment by, the figures that matter first, details
//! folded in `<details>`, and at most [`COMMENT_LIMIT`] bytes however large the suite: the
//! longest lists are cut, with a count of what was left out.

use std::fmt::Write;

use crate::plumbing::text::shorten;
use crate::report::diff::{Change, ReportDiff, Runs, TaskDiff, percent};

/// The first line of every markdown mcpeval writes: a workflow updates the comment that
/// starts with it instead of adding one per push.
pub const MARKER: &str = "<!-- mcpeval -->";

/// GitHub's limit on a comment's body (65,536 characters; counted here in bytes, which are
/// never fewer).
pub const COMMENT_LIMIT: usize = 65_536;

/// Room kept for the line that says how many rows of a list were cut.
const CUT_NOTE: usize = 160;
/// The longest a table cell of free text (what changed, a reason) gets.
const CELL: usize = 300;

/// One part of a comment: a fixed text, or a list whose rows may be cut to fit.
pub(super) enum Part {
    /// Always shown whole.
    Fixed(String),
    /// `head`, as many `rows` as fit (the lower `priority` first), a cut note, `tail`.
    List {
        priority: usize,
        head: String,
        rows: Vec<String>,
        tail: String,
        /// What a row is, for the cut note (`tasks`, `servers`).
        what: &'static str,
    },
}

/// `parts` joined, at most `limit` bytes: rows of lists are kept by priority while they
/// fit, and a list that lost rows says how many.
pub(super) fn fitted(parts: Vec<Part>, limit: usize) -> String {
    let mut used = 0;
    for part in &parts {
        used += match part {
            Part::Fixed(text) => text.len(),
            Part::List {
                head, rows, tail, ..
            } if !rows.is_empty() => head.len() + tail.len() + CUT_NOTE,
            Part::List { .. } => 0,
        };
    }
    let mut kept = vec![0; parts.len()];
    let mut order: Vec<(usize, usize)> = (parts.iter().enumerate())
        .filter_map(|(index, part)| match part {
            Part::List { priority, .. } => Some((*priority, index)),
            Part::Fixed(_) => None,
        })
        .collect();
    order.sort();
    for (_, index) in order {
        if let Part::List { rows, .. } = &parts[index] {
            for row in rows {
                if used + row.len() + 1 > limit {
                    break;
                }
                used += row.len() + 1;
                kept[index] += 1;
            }
        }
    }
    let mut out = String::new();
    for (part, kept) in parts.into_iter().zip(kept) {
        match part {
            Part::Fixed(text) => out.push_str(&text),
            Part::List {
                head,
                rows,
                tail,
                what,
                ..
            } => {
                if rows.is_empty() {
                    continue;
                }
                out.push_str(&head);
                for row in &rows[..kept] {
                    out.push_str(row);
                    out.push('\n');
                }
                if kept < rows.len() {
                    let _ = writeln!(
                        out,
                        "\n_… {} more {what} not shown: the comment's limit; `--format json` lists them all._",
                        rows.len() - kept
                    );
                }
                out.push_str(&tail);
            }
        }
    }
    if out.len() > limit {
        // Only fixed parts longer than the limit get here: cut at a character boundary.
        out.truncate(crate::plumbing::text::boundary(&out, limit));
    }
    out
}

/// A test name as inline code in a table cell.
pub(super) fn code(name: &str) -> String {
    let name = name.replace('|', "\\|");
    if name.contains('`') {
        format!("`` {name} ``")
    } else {
        format!("`{name}`")
    }
}

/// Free text for a table cell: one line, no markup of its own, at most [`CELL`] bytes.
pub(super) fn cell(text: &str) -> String {
    plain(&shorten(text, CELL))
}

/// A list for a table cell, its items joined with `; `: as many whole items as fit in
/// [`CELL`] bytes, then how many were left out (`… and 12 more`).
pub(super) fn cell_list(items: &[String]) -> String {
    // Room for `; … and N more`.
    let budget = CELL - 24;
    let mut shown = String::new();
    let mut count = 0;
    for item in items {
        let separator = if count == 0 { "" } else { "; " };
        if shown.len() + separator.len() + item.len() > budget {
            break;
        }
        shown.push_str(separator);
        shown.push_str(item);
        count += 1;
    }
    if let (0, Some(first)) = (count, items.first()) {
        shown = shorten(first, budget);
        count = 1;
    }
    let left = items.len() - count;
    if left > 0 {
        shown.push_str(&format!("; … and {left} more"));
    }
    plain(&shown)
}

/// `text` on one line, with no markup of its own.
fn plain(text: &str) -> String {
    let text = text.replace(['\n', '\r'], " ").replace('|', "\\|");
    text.replace('<', "&lt;").replace('>', "&gt;")
}

fn rate(runs: Option<Runs>) -> String {
    runs.map_or_else(|| "–".to_owned(), |r| percent(r.pass_rate))
}

/// The diff as a pull-request comment of at most `limit` bytes.
pub fn diff_markdown(diff: &ReportDiff, limit: usize) -> String {
    let mut parts = vec![Part::Fixed(diff_head(diff))];
    parts.push(Part::List {
        priority: 0,
        head: "**Budgets**\n\n".into(),
        rows: (diff.budgets.iter())
            .map(|b| {
                let mark = if b.passed { "✅" } else { "❌" };
                format!("- {mark} {}", shorten(&b.describe("→"), 2 * CELL))
            })
            .collect(),
        tail: "\n".into(),
        what: "budgets",
    });
    parts.extend(changed_parts(diff));
    parts.push(Part::List {
        priority: 2,
        head: "\n**Flaky** (runs both passed and failed; not counted as regressions or fixes):\n\n\
               | task | runs passed | pass rate (95% Wilson interval) | pass rate moved |\n|---|---|---|---|\n"
            .into(),
        rows: diff.with(Change::Flaky).map(flaky_row).collect(),
        tail: String::new(),
        what: "flaky tasks",
    });
    parts.push(Part::List {
        priority: 3,
        head: "\n**Servers**\n\n".into(),
        rows: (diff.server_lines("→").into_iter())
            .map(|line| format!("- {}", shorten(&line, 2 * CELL)))
            .collect(),
        tail: String::new(),
        what: "server lines",
    });
    parts.push(unclear_part(diff));
    parts.push(unchanged_part(diff));
    fitted(parts, limit)
}

/// The comment's marker, the pass rate before and after, and the count of each change.
fn diff_head(diff: &ReportDiff) -> String {
    let (before, after) = diff.pass_rate;
    let (delta, token_delta) = diff.deltas();
    let counts = diff.counts();
    let count = |change| counts.get(&change).copied().unwrap_or(0);
    let mut head = format!(
        "{MARKER}\n### mcpeval: {} → {} pass rate ({delta:+.1} points)\n\n",
        percent(before),
        percent(after)
    );
    let _ = writeln!(
        head,
        "{} regressed · {} fixed · {} flaky · {} new · {} removed · tokens {} → {} ({token_delta:+}) · {} lower or higher, not clearly · {} unchanged\n",
        count(Change::Regressed),
        count(Change::Fixed),
        count(Change::Flaky),
        count(Change::New),
        count(Change::Removed),
        diff.tokens.0,
        diff.tokens.1,
        count(Change::Lower) + count(Change::Higher),
        count(Change::Unchanged),
    );
    head
}

/// The table of the tasks that changed their verdict (regressed, fixed, new, removed), after a
/// line saying none did when none did.
fn changed_parts(diff: &ReportDiff) -> Vec<Part> {
    let changed: Vec<String> = [
        (Change::Regressed, "❌ regressed"),
        (Change::Fixed, "✅ fixed"),
        (Change::New, "🆕 new"),
        (Change::Removed, "🗑️ removed"),
    ]
    .into_iter()
    .flat_map(|(change, label)| diff.with(change).map(move |task| changed_row(label, task)))
    .collect();
    let mut parts = Vec::new();
    if changed.is_empty() {
        parts.push(Part::Fixed("No task changed its verdict.\n".into()));
    }
    parts.push(Part::List {
        priority: 1,
        head: "| change | task | before | after | what changed |\n|---|---|---|---|---|\n".into(),
        rows: changed,
        tail: String::new(),
        what: "tasks",
    });
    parts
}

/// The folded table of tasks whose pass rate moved, but not clearly.
fn unclear_part(diff: &ReportDiff) -> Part {
    let unclear = (diff.with(Change::Lower)).chain(diff.with(Change::Higher));
    let unclear: Vec<String> = unclear.map(unclear_row).collect();
    Part::List {
        priority: 4,
        head: format!(
            "\n<details><summary>Lower or higher, not clearly ({}): the one-sided Fisher test finds the change may be chance</summary>\n\n\
             | task | before | after | runs passed | what changed |\n|---|---|---|---|---|\n",
            unclear.len()
        ),
        rows: unclear,
        tail: "\n</details>\n".into(),
        what: "tasks",
    }
}

/// The folded list of unchanged tasks, each with what changed besides its verdict.
fn unchanged_part(diff: &ReportDiff) -> Part {
    let unchanged: Vec<String> = (diff.with(Change::Unchanged))
        .map(|task| match task.changes.is_empty() {
            true => format!("- {}", code(&task.test_name)),
            false => format!(
                "- {}: {}",
                code(&task.test_name),
                cell_list(&task.change_list("→"))
            ),
        })
        .collect();
    Part::List {
        priority: 5,
        head: format!(
            "\n<details><summary>Unchanged ({})</summary>\n\n",
            unchanged.len()
        ),
        rows: unchanged,
        tail: "\n</details>\n".into(),
        what: "tasks",
    }
}

fn changed_row(label: &str, task: &TaskDiff) -> String {
    let mut what = Vec::new();
    if task.p_value.is_some() {
        what.push(task.describe_runs("→"));
    }
    what.extend(task.change_list("→"));
    format!(
        "| {label} | {} | {} | {} | {} |",
        code(&task.test_name),
        rate(task.base),
        rate(task.current),
        cell_list(&what)
    )
}

fn flaky_row(task: &TaskDiff) -> String {
    let Some(count) = task.current_count() else {
        return String::new();
    };
    let (low, high) = count.interval();
    format!(
        "| {} | {} | {} ({}–{}) | {} |",
        code(&task.test_name),
        task.describe_counts("→"),
        percent(count.rate()),
        percent(low),
        percent(high),
        task.describe_direction()
    )
}

fn unclear_row(task: &TaskDiff) -> String {
    format!(
        "| {} | {} | {} | {} | {} |",
        code(&task.test_name),
        rate(task.base),
        rate(task.current),
        task.describe_runs("→"),
        cell_list(&task.change_list("→"))
    )
}

#[cfg(test)]
#[path = "markdown_tests.rs"]
mod tests;
