//! Values that must never reach a cassette, a message or a results file (API keys, MCP
//! servers' header and environment values, and the like).

use std::fmt;

/// A secret value and what it is. Its `Debug` shows only what it is.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret {
    kind: String,
    value: String,
}

impl Secret {
    /// A secret: `kind` says what it is in messages ("the API key"), `value` is never shown.
    pub fn new(kind: impl Into<String>, value: impl Into<String>) -> Self {
        Self {
            kind: kind.into(),
            value: value.into(),
        }
    }

    /// What the secret is, e.g. "the API key".
    pub fn kind(&self) -> &str {
        &self.kind
    }

    /// The length of the value in bytes.
    pub fn len(&self) -> usize {
        self.value.len()
    }

    /// Whether the value is empty (an empty secret hides nothing).
    pub fn is_empty(&self) -> bool {
        self.value.is_empty()
    }

    /// The forms the value takes in JSON text: as is, and escaped inside a string.
    fn forms(&self) -> Vec<String> {
        if self.value.is_empty() {
            return Vec::new();
        }
        let escaped = serde_json::to_string(&self.value).unwrap_or_default();
        let escaped = escaped
            .strip_prefix('"')
            .and_then(|rest| rest.strip_suffix('"'))
            .unwrap_or(&self.value)
            .to_owned();
        if escaped == self.value {
            vec![escaped]
        } else {
            vec![self.value.clone(), escaped]
        }
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Secret")
            .field("kind", &self.kind)
            .finish_non_exhaustive()
    }
}

/// The first secret whose value occurs in `text`.
pub fn find<'a>(text: &str, secrets: &'a [Secret]) -> Option<&'a Secret> {
    secrets.iter().find(|secret| {
        secret
            .forms()
            .iter()
            .any(|form| text.contains(form.as_str()))
    })
}

/// `text` with every secret value replaced by `<kind>`.
pub fn redact(text: &str, secrets: &[Secret]) -> String {
    let mut text = text.to_owned();
    for secret in secrets {
        for form in secret.forms() {
            text = text.replace(&form, &format!("<{}>", secret.kind));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_plain_and_escaped_values_and_never_shows_them() {
        let secrets = [
            Secret::new("the API key", "sk-a\"b"),
            Secret::new("empty", ""),
        ];
        assert_eq!(
            find(r#"{"k":"sk-a\"b"}"#, &secrets).map(Secret::kind),
            Some("the API key")
        );
        assert_eq!(
            find("sk-a\"b", &secrets).map(Secret::kind),
            Some("the API key")
        );
        assert_eq!(find("nothing here", &secrets), None);
        assert_eq!(redact("key sk-a\"b!", &secrets), "key <the API key>!");
        assert!(!format!("{secrets:?}").contains("sk-a"));
    }
}
