//! The HTML report: one self-contained page (styles and scripts inline, nothing fetched)
//! of a merged report — the summary, a sortable and filterable table of task runs, and per
//! run its timeline, failed assertions, snapshot diff and step outputs.
//!
//! The page is rendered by minijinja from `report.html` with HTML auto-escaping: every
//! value from a results file is text on the page, never markup. Its script honours URL
//! parameters (`?status=failed&eval=demo&label=area=users&agent=…&q=…&sort=duration&desc=1&theme=dark&open=all`)
//! and opens the run an anchor names (`report.html#demo::arithmetic`).

mod shown;
mod timeline;
mod view;

use std::path::{Path, PathBuf};

use minijinja::{Environment, Value};

use super::Report;

pub use view::anchor;

const TEMPLATE: &str = include_str!("report.html");
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

/// The page of `report`. Cassettes named by the results (to show each LLM turn) are read
/// where the results say, relative paths also from `base`.
pub fn render_html(report: &Report, title: &str, base: &Path) -> Result<String, HtmlError> {
    let mut env = Environment::new();
    env.add_template("report.html", TEMPLATE)?;
    let page = view::page(report, title, base);
    let template = env.get_template("report.html")?;
    let html = template.render(minijinja::context! {
        page => Value::from_serialize(&page),
        style => Value::from_safe_string(STYLE.to_owned()),
        script => Value::from_safe_string(SCRIPT.to_owned()),
    })?;
    Ok(html)
}

/// Renders the page of `report` into `path` (its directory created), atomically: a reader
/// never sees half a page.
pub fn write_html(report: &Report, title: &str, path: &Path) -> Result<(), HtmlError> {
    let base = std::env::current_dir().unwrap_or_default();
    let html = render_html(report, title, &base)?;
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
