//! One line of text for an error and its causes, as failure messages show them.

/// `error: cause: cause`, each cause said once (many errors already include their source).
pub fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// What went wrong under a reqwest error, without its `error sending request for url (…)`.
pub fn request_causes(error: &reqwest::Error) -> String {
    match std::error::Error::source(error) {
        Some(source) => error_chain(source),
        None => error.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::error_chain;

    #[test]
    fn causes_are_joined_once() {
        let inner = std::io::Error::other("connection refused");
        let outer = std::io::Error::other(inner);
        assert_eq!(error_chain(&outer), "connection refused");
        let error: Box<dyn std::error::Error> = "plain".into();
        assert_eq!(error_chain(error.as_ref()), "plain");
    }
}
