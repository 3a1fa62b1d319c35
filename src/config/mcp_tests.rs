use super::*;

fn env(name: &str) -> Option<String> {
    (name == "TOKEN").then(|| "s3cret".to_owned())
}

#[test]
fn expands_set_variables_and_defaults() {
    assert_eq!(
        expand_vars("Bearer ${TOKEN}", &env).unwrap(),
        "Bearer s3cret"
    );
    assert_eq!(expand_vars("${PORT:-8080}/x", &env).unwrap(), "8080/x");
    assert_eq!(expand_vars("${TOKEN:-no}", &env).unwrap(), "s3cret");
    assert_eq!(expand_vars("plain $HOME", &env).unwrap(), "plain $HOME");
}

#[test]
fn missing_variable_is_named() {
    let e = expand_vars("${NOPE}", &env).unwrap_err();
    assert!(e.contains("`NOPE` is not set"), "{e}");
}

#[test]
fn debug_never_shows_header_or_env_values() {
    let t = Transport::Http {
        url: "http://x".into(),
        headers: [("Authorization".to_owned(), "Bearer s3cret".to_owned())].into(),
    };
    let shown = format!("{t:?}");
    assert!(
        shown.contains("Authorization") && !shown.contains("s3cret"),
        "{shown}"
    );
}
