//! The parameter coverage of a server as the page shows it: a matrix of its tools (rows)
//! by the properties of their input schemas (columns), each cell exercised, asserted,
//! asserted only, never, or empty where the tool has no such property; then each enum's
//! values, seen or never.

use serde::Serialize;

use crate::report::summary::ServerParameters;

/// One server's matrix.
#[derive(Serialize)]
pub(super) struct ParameterMatrix {
    server: String,
    /// `3 of 6 properties exercised (50.0%), 1 asserted`.
    figures: String,
    /// The property paths over its tools, in order.
    columns: Vec<String>,
    rows: Vec<ParameterRow>,
    /// `deploy.strategy: rolling, never recreate, canary`, one per enum or boolean.
    values: Vec<String>,
}

/// One tool's row: a cell per column, and its calls that erred.
#[derive(Serialize)]
struct ParameterRow {
    tool: String,
    /// `(state, title)`: `exercised`, `asserted`, `asserted only`, `never`, or empty where
    /// the tool has no such property; the title says how many tests.
    cells: Vec<(&'static str, String)>,
    /// `2 of 4 calls erred`, or empty.
    errors: String,
}

/// The matrix of `server`.
pub(super) fn parameter_matrix(server: &str, coverage: &ServerParameters) -> ParameterMatrix {
    let mut columns: Vec<String> = (coverage.tools.values())
        .flat_map(|tool| tool.properties.keys().cloned())
        .collect();
    columns.sort();
    columns.dedup();
    let mut values = Vec::new();
    let rows = (coverage.tools.iter())
        .map(|(tool, parameters)| {
            let cells = (columns.iter())
                .map(|column| match parameters.properties.get(column) {
                    Some(property) => (
                        property.state(),
                        format!(
                            "{tool} {column}: exercised by {} tests, asserted by {}",
                            property.exercised, property.asserted
                        ),
                    ),
                    None => ("", String::new()),
                })
                .collect();
            for (path, property) in &parameters.properties {
                if property.values.is_empty() {
                    continue;
                }
                let (seen, never): (Vec<&String>, Vec<&String>) =
                    (property.values.iter()).partition(|value| property.seen.contains(value));
                let mut text = format!("{tool}.{path}: ");
                let seen: Vec<&str> = seen.into_iter().map(String::as_str).collect();
                let never: Vec<&str> = never.into_iter().map(String::as_str).collect();
                text.push_str(&seen.join(", "));
                if !never.is_empty() {
                    let gap = if seen.is_empty() { "" } else { ", " };
                    text.push_str(&format!("{gap}never {}", never.join(", ")));
                }
                values.push(text);
            }
            let errors = if parameters.errors > 0 {
                format!("{} of {} calls erred", parameters.errors, parameters.calls)
            } else {
                String::new()
            };
            ParameterRow {
                tool: tool.clone(),
                cells,
                errors,
            }
        })
        .collect();
    ParameterMatrix {
        server: server.to_owned(),
        figures: format!(
            "{} of {} properties exercised ({:.1}%), {} asserted",
            coverage.exercised,
            coverage.properties,
            coverage.coverage * 100.0,
            coverage.asserted
        ),
        columns,
        rows,
        values,
    }
}
