//! `mcpeval init --header "Name: value"`: the headers an HTTP server needs, sent when init
//! lists it and written into the MCP config. A value that looks like a credential is never
//! written: the MCP config names a variable in its place (`${<EVAL>_<HEADER>}`, expanded
//! when the eval loads), and the README and a warning say to set it.

use std::fmt;

use super::{InitError, ServerEntry};

/// Words of a header's name that make its value a credential (case-insensitive).
const CREDENTIAL_WORDS: [&str; 6] = ["auth", "token", "key", "secret", "cookie", "password"];

/// One `--header`: its name, its value as typed and as sent. `Debug` shows the name only.
#[derive(Clone, PartialEq, Eq)]
pub struct InitHeader {
    /// The header's name, as typed.
    pub name: String,
    /// Its value as typed (`${VAR}` left as it is): what the MCP config may write.
    pub typed: String,
    /// Its value as sent (`${VAR}` expanded from the environment).
    pub sent: String,
}

impl fmt::Debug for InitHeader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InitHeader")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// Reads one `--header "Name: value"`; `lookup` reads the variables a `${VAR}` in the value
/// names. An error never shows the value.
pub(super) fn parse_header(
    arg: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<InitHeader, InitError> {
    let usage = |message: String| InitError::Usage(format!("--header: {message}"));
    let Some((name, value)) = arg.split_once(':') else {
        return Err(usage(
            "expected \"Name: value\" (such as \"Authorization: Bearer …\"), found no `:`".into(),
        ));
    };
    let (name, typed) = (name.trim(), value.trim());
    if name.is_empty() {
        return Err(usage(
            "the header's name (before the `:`) is empty; expected \"Name: value\"".into(),
        ));
    }
    if http::HeaderName::from_bytes(name.as_bytes()).is_err() {
        return Err(usage(format!(
            "`{name}` is not a header name (letters, digits and !#$%&'*+-.^_`|~ only)"
        )));
    }
    let sent = crate::config::expand_vars(typed, lookup)
        .map_err(|e| usage(format!("the value of `{name}`: {e}")))?;
    if http::HeaderValue::from_str(&sent).is_err() {
        return Err(usage(format!(
            "the value of `{name}` is not a header value (it holds a control character)"
        )));
    }
    Ok(InitHeader {
        name: name.to_owned(),
        typed: typed.to_owned(),
        sent,
    })
}

/// Every `--header`, refusing a name given twice (header names are case-insensitive).
pub(super) fn parse_headers(
    args: &[String],
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<InitHeader>, InitError> {
    let mut headers: Vec<InitHeader> = Vec::new();
    for arg in args {
        let header = parse_header(arg, lookup)?;
        if headers
            .iter()
            .any(|h| h.name.eq_ignore_ascii_case(&header.name))
        {
            return Err(InitError::Usage(format!(
                "--header: `{}` is given twice",
                header.name
            )));
        }
        headers.push(header);
    }
    Ok(headers)
}

/// Whether a header of this name carries a credential: its name holds one of
/// [`CREDENTIAL_WORDS`] (`Authorization`, `X-API-Key`, `X-Auth-Token`, `Cookie`, …).
pub fn is_credential(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    CREDENTIAL_WORDS.iter().any(|word| name.contains(word))
}

/// A header as the MCP config writes it.
#[derive(Clone, PartialEq, Eq)]
pub struct WrittenHeader {
    /// Its name.
    pub name: String,
    /// Its value as written: the typed value, or with the credential a `${VAR}`.
    pub text: String,
    /// The variable that holds the credential, and the value init was given for it.
    pub variable: Option<(String, String)>,
}

/// The headers of eval `eval` as its MCP config writes them: a credential typed as it is
/// becomes `${<EVAL>_<HEADER>}` (an `Authorization` value keeps its scheme: `Bearer
/// ${…}`); a value typed with a `${VAR}` of its own is written as typed.
pub fn written_headers(eval: &str, headers: &[InitHeader]) -> Vec<WrittenHeader> {
    let mut taken: Vec<String> = Vec::new();
    headers
        .iter()
        .map(|header| {
            if !is_credential(&header.name) || header.typed.contains("${") {
                return WrittenHeader {
                    name: header.name.clone(),
                    text: header.typed.clone(),
                    variable: None,
                };
            }
            let mut var = variable_name(eval, &header.name);
            let base = var.clone();
            let mut n = 1;
            while taken.contains(&var) {
                n += 1;
                var = format!("{base}_{n}");
            }
            taken.push(var.clone());
            let (scheme, secret) = match authorization_scheme(&header.name, &header.typed) {
                Some((scheme, secret)) => (format!("{scheme} "), secret),
                None => (String::new(), header.typed.as_str()),
            };
            WrittenHeader {
                name: header.name.clone(),
                text: format!("{scheme}${{{var}}}"),
                variable: Some((var, secret.to_owned())),
            }
        })
        .collect()
}

/// The headers of an HTTP server entry as written, none for another server.
pub fn entry_headers(eval: &str, entry: &ServerEntry) -> Vec<WrittenHeader> {
    match entry {
        ServerEntry::Http { headers, .. } => written_headers(eval, headers),
        _ => Vec::new(),
    }
}

/// The value init was given for a variable the MCP config names in a header.
pub fn variable_value(eval: &str, entry: &ServerEntry, name: &str) -> Option<String> {
    entry_headers(eval, entry)
        .into_iter()
        .filter_map(|header| header.variable)
        .find(|(var, _)| var == name)
        .map(|(_, value)| value)
}

/// What to tell the user about each header written as a variable.
pub fn variable_warnings(eval: &str, entry: &ServerEntry) -> Vec<String> {
    entry_headers(eval, entry)
        .into_iter()
        .filter_map(|header| {
            let (var, _) = header.variable?;
            Some(format!(
                "the header `{}` looks like a credential: mcp-config.yaml reads it from the \
                 variable {var} (`{}`), not from the file; set {var} wherever the evals run \
                 (README.md says so)",
                header.name, header.text
            ))
        })
        .collect()
}

/// `Bearer` and the token of an `Authorization: Bearer TOKEN` (any one-word scheme).
fn authorization_scheme<'a>(name: &str, value: &'a str) -> Option<(&'a str, &'a str)> {
    let authorization = name.eq_ignore_ascii_case("authorization")
        || name.eq_ignore_ascii_case("proxy-authorization");
    let (scheme, rest) = value.split_once(' ')?;
    let rest = rest.trim();
    let word = !scheme.is_empty() && scheme.chars().all(|c| c.is_ascii_alphabetic());
    (authorization && word && !rest.is_empty()).then_some((scheme, rest))
}

/// `<EVAL>_<HEADER>`, upper case, every other character `_` (`_` first if it would start
/// with a digit).
fn variable_name(eval: &str, header: &str) -> String {
    super::names::env_var_name(&format!("{eval}_{header}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(arg: &str) -> Result<InitHeader, String> {
        parse_header(arg, &|name| (name == "TOKEN").then(|| "t0k".to_owned()))
            .map_err(|e| e.to_string())
    }

    /// A written header: its name, its text, its variable and value.
    type Row = (String, String, Option<(String, String)>);

    fn written(eval: &str, args: &[&str]) -> Vec<Row> {
        let headers: Vec<InitHeader> = args.iter().map(|a| header(a).unwrap()).collect();
        written_headers(eval, &headers)
            .into_iter()
            .map(|h| (h.name, h.text, h.variable))
            .collect()
    }

    fn var(name: &str, value: &str) -> Option<(String, String)> {
        Some((name.to_owned(), value.to_owned()))
    }

    #[test]
    fn a_header_is_a_name_a_colon_and_a_value() {
        let h = header("X-Tenant:  acme ").unwrap();
        assert_eq!((h.name.as_str(), h.typed.as_str()), ("X-Tenant", "acme"));
        let h = header("Authorization: Bearer ${TOKEN}").unwrap();
        assert_eq!(h.typed, "Bearer ${TOKEN}");
        assert_eq!(h.sent, "Bearer t0k");
    }

    #[test]
    fn a_bad_header_names_the_flag_and_never_the_value() {
        for (arg, says) in [
            ("Bearer s3cret", "found no `:`"),
            (": s3cret", "the header's name (before the `:`) is empty"),
            ("Bad Name: s3cret", "`Bad Name` is not a header name"),
            (
                "X-Key: s3cret\u{1}",
                "the value of `X-Key` is not a header value",
            ),
            ("X-Key: ${UNSET_VAR}", "`UNSET_VAR` is not set"),
        ] {
            let error = header(arg).unwrap_err();
            assert!(error.starts_with("--header: "), "{arg:?}: {error}");
            assert!(error.contains(says), "{arg:?}: {error}");
            assert!(!error.contains("s3cret"), "{arg:?}: {error}");
        }
        let twice = parse_headers(&["A: 1".into(), "a: 2".into()], &|_| None).unwrap_err();
        assert_eq!(twice.to_string(), "--header: `a` is given twice");
    }

    #[test]
    fn credentials_are_written_as_variables() {
        assert_eq!(
            written(
                "my-server",
                &[
                    "Authorization: Bearer abc.def",
                    "X-API-Key: k3y",
                    "X-Tenant: acme",
                    "X-Auth-Token: ${TOKEN}",
                ]
            ),
            [
                (
                    "Authorization".into(),
                    "Bearer ${MY_SERVER_AUTHORIZATION}".into(),
                    var("MY_SERVER_AUTHORIZATION", "abc.def")
                ),
                (
                    "X-API-Key".into(),
                    "${MY_SERVER_X_API_KEY}".into(),
                    var("MY_SERVER_X_API_KEY", "k3y")
                ),
                ("X-Tenant".into(), "acme".into(), None),
                ("X-Auth-Token".into(), "${TOKEN}".into(), None),
            ]
        );
        // A value without a scheme is the variable's whole; names that differ only in
        // punctuation get variables of their own.
        assert_eq!(
            written("9s", &["Authorization: abc", "X-Key: 1", "X_Key: 2"]),
            [
                (
                    "Authorization".into(),
                    "${_9S_AUTHORIZATION}".into(),
                    var("_9S_AUTHORIZATION", "abc")
                ),
                ("X-Key".into(), "${_9S_X_KEY}".into(), var("_9S_X_KEY", "1")),
                (
                    "X_Key".into(),
                    "${_9S_X_KEY_2}".into(),
                    var("_9S_X_KEY_2", "2")
                ),
            ]
        );
    }

    #[test]
    fn debug_shows_no_value() {
        let h = header("Authorization: Bearer s3cret").unwrap();
        assert!(!format!("{h:?}").contains("s3cret"));
    }
}
