//! Every key the loaders accept (the `Raw…` serde types under `src/config/`) is named in the
//! book's code.

use std::collections::BTreeSet;

use super::{doc_files, root};

/// Every key of the files' serde types (`struct Raw…` under `src/config/`, as written in the
/// files: camelCase or renamed).
fn loader_keys() -> BTreeSet<String> {
    let mut keys = BTreeSet::new();
    // The wings of `src/config/` are folders.
    for path in crate::support::files::rust_files(&root().join("src/config")) {
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (index, line) in lines.iter().enumerate() {
            let Some(rest) = line
                .trim_start()
                .trim_start_matches("pub ")
                .trim_start_matches("pub(super) ")
                .trim_start_matches("pub(crate) ")
                .trim_start_matches("pub(in crate::config) ")
                .strip_prefix("struct Raw")
            else {
                continue;
            };
            if !rest.trim_end().ends_with('{') {
                continue;
            }
            let attributes: String = lines[..index]
                .iter()
                .rev()
                .take_while(|l| {
                    l.trim_start().starts_with("#[") || l.trim_start().starts_with("///")
                })
                .copied()
                .collect();
            if !attributes.contains("Deserialize") {
                continue;
            }
            let camel = attributes.contains("rename_all = \"camelCase\"");
            let mut rename: Option<String> = None;
            let mut skip = false;
            for field in &lines[index + 1..] {
                let field = field.trim();
                if field == "}" {
                    break;
                }
                if let Some(attr) = field.strip_prefix("#[serde(") {
                    if let Some(at) = attr.find("rename = \"") {
                        let name = &attr[at + 10..];
                        rename = name.split('"').next().map(str::to_owned);
                    }
                    skip |= attr.contains("flatten") || attr.contains("skip");
                    continue;
                }
                if field.starts_with("//") || field.starts_with("#[") {
                    continue;
                }
                let field = field
                    .trim_start_matches("pub ")
                    .trim_start_matches("pub(super) ")
                    .trim_start_matches("pub(crate) ")
                    .trim_start_matches("pub(in crate::config) ");
                if let Some((name, _)) = field.split_once(':')
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    && !name.is_empty()
                {
                    let key = rename.take().unwrap_or_else(|| {
                        if camel {
                            camel_case(name)
                        } else {
                            name.to_owned()
                        }
                    });
                    if !std::mem::take(&mut skip) {
                        keys.insert(key.trim_start_matches("r#").to_owned());
                    }
                }
            }
        }
    }
    keys
}

fn camel_case(snake: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// The words of the book's code: its inline code spans and code blocks, split at anything
/// that is not part of a key (so `{timeout, cleanupTimeout}` names both keys).
fn code_words(text: &str) -> BTreeSet<String> {
    let mut code = String::new();
    let mut in_block = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if in_block {
            code.push_str(line);
            code.push('\n');
            continue;
        }
        for (index, span) in line.split('`').enumerate() {
            if index % 2 == 1 {
                code.push_str(span);
                code.push('\n');
            }
        }
    }
    code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|word| !word.is_empty())
        .map(str::to_owned)
        .collect()
}

#[test]
fn every_key_the_loaders_accept_is_documented() {
    let keys = loader_keys();
    assert!(keys.len() >= 50, "only {} keys found: {keys:?}", keys.len());
    let mut words = BTreeSet::new();
    for file in doc_files()
        .iter()
        .filter(|file| file.starts_with(root().join("docs")))
    {
        words.extend(code_words(&std::fs::read_to_string(file).unwrap()));
    }
    let missing: Vec<&String> = keys.iter().filter(|key| !words.contains(*key)).collect();
    assert!(
        missing.is_empty(),
        "keys the loaders accept that the book's code does not name: {missing:?}"
    );
}
