//! The fast header reader against serde, case by case: whenever it answers, its answer is
//! serde's; what only serde can decide it leaves to serde.

use std::path::Path;

use super::scan_task_header;
use crate::config::task::header::serde_task_header;

/// Who reads the header of a case.
#[derive(Debug, PartialEq)]
enum HeaderReader {
    Events,
    Serde,
}
use HeaderReader::{Events, Serde};

const TASK: &str = "kind: Task\napiVersion: mcpchecker/v1alpha2\n";

const CASES: &[(&str, &str, HeaderReader)] = &[
    (
        "a v1alpha2 task",
        "metadata: {name: pods, labels: {suite: k8s}}\nspec:\n  prompt: {inline: \"list pods\"}\n  setup:\n    - script: {inline: echo hi, timeout: 10s, continueOnError: true}\n",
        Events,
    ),
    (
        "block scalars and comments",
        "# a task\nmetadata:\n  name: 'quoted name'\n  labels:\n    level: \"3\"\nspec:\n  prompt:\n    inline: |\n      many\n      lines\n",
        Events,
    ),
    (
        "numbers and booleans below the header",
        "metadata: {name: t}\nspec:\n  limits: {timeout: 2m}\n  x: [1, -2, 0.5, 0x1F, true, ~, null, '']\n",
        Events,
    ),
    (
        "metadata without a name",
        "metadata: {labels: {a: b}}\n",
        Events,
    ),
    (
        "a name that is a mapping",
        "metadata: {name: {a: b}}\n",
        Events,
    ),
    (
        "labels that are a list",
        "metadata: {name: t, labels: [a, b]}\n",
        Events,
    ),
    ("metadata that is a scalar", "metadata: just-text\n", Events),
    (
        "a name that could be a number",
        "metadata: {name: 42}\n",
        Serde,
    ),
    (
        "a name that could be a boolean",
        "metadata: {name: yes}\n",
        Serde,
    ),
    ("a name that is null", "metadata: {name: }\n", Serde),
    (
        "a label that is a number",
        "metadata: {name: t, labels: {level: 3}}\n",
        Serde,
    ),
    (
        "a label that is a list",
        "metadata: {name: t, labels: {level: [3]}}\n",
        Serde,
    ),
    (
        "a non-finite float",
        "metadata: {name: t}\nspec: {x: .inf}\n",
        Serde,
    ),
    (
        "a float that overflows",
        "metadata: {name: t}\nspec: {x: 1e999}\n",
        Serde,
    ),
    (
        "a duplicate key",
        "metadata: {name: t}\nspec: {a: 1, a: 2}\n",
        Serde,
    ),
    (
        "a duplicate key, once quoted",
        "metadata: {name: t, 'name': m}\n",
        Serde,
    ),
    (
        "a number as a key",
        "metadata: {name: t}\nspec: {200: ok}\n",
        Serde,
    ),
    (
        "a merge key",
        "metadata: {name: t}\nbase: &b {a: 1}\nspec: {<<: *b}\n",
        Serde,
    ),
    ("an anchor", "metadata: &m {name: t}\n", Serde),
    ("a tag", "metadata: {name: !!str 42}\n", Serde),
    (
        "a complex key",
        "metadata: {name: t}\nspec: {? [a, b] : c}\n",
        Serde,
    ),
    (
        "a syntax error below the header",
        "metadata: {name: t}\nspec: {prompt: [unclosed\n",
        Serde,
    ),
    (
        "several documents",
        "metadata: {name: t}\n---\nkind: Pod\n",
        Serde,
    ),
];

#[test]
fn the_event_reader_answers_as_serde_does_or_leaves_the_file_to_serde() {
    for (what, body, reader) in CASES {
        let source = format!("{TASK}{body}");
        let serde = serde_task_header(Path::new("task.yaml"), &source);
        match scan_task_header(&source) {
            Some(header) => {
                assert_eq!(Ok(header), serde.map_err(|e| e.message), "{what}");
                assert_eq!(*reader, Events, "{what}: read from the events");
            }
            None => assert_eq!(*reader, Serde, "{what}: left to serde"),
        }
    }
}

#[test]
fn files_that_are_no_task_are_told_from_the_events() {
    for source in [
        "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\n",
        "kind: [Task]\n",
        "kind: 'Task '\n",
    ] {
        assert_eq!(scan_task_header(source), Some(None), "{source}");
        assert_eq!(
            serde_task_header(Path::new("f.yaml"), source).unwrap(),
            None
        );
    }
    // A list or a scalar document, or none at all: serde decides.
    for source in ["- a\n- b\n", "just text\n", ""] {
        assert_eq!(scan_task_header(source), None, "{source}");
    }
}
