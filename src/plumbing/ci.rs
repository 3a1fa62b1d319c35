//! Whether this process runs under CI, decided as insta decides it, for every default that
//! differs there (the record mode, what a changed snapshot writes).

/// Whether `CI` says this is a CI run: set to anything but empty, `false` or `0`; when `CI`
/// is not set at all, whether `TF_BUILD` (Azure Pipelines) is. `lookup` reads a variable,
/// e.g. `|name| std::env::var(name).ok()`.
pub fn is_ci(lookup: impl Fn(&str) -> Option<String>) -> bool {
    match lookup("CI").as_deref() {
        Some("" | "false" | "0") => false,
        Some(_) => true,
        None => lookup("TF_BUILD").is_some(),
    }
}

/// The nextest run this process is a test of (`NEXTEST_RUN_ID`), when nextest runs it.
pub(crate) fn nextest_run_id() -> Option<String> {
    std::env::var_os("NEXTEST")?;
    std::env::var("NEXTEST_RUN_ID")
        .ok()
        .filter(|id| !id.is_empty())
}

#[cfg(test)]
mod tests {
    use super::is_ci;

    #[test]
    fn ci_is_detected_as_insta_detects_it() {
        let cases: &[(&[(&str, &str)], bool)] = &[
            (&[], false),
            (&[("CI", "true")], true),
            (&[("CI", "1")], true),
            (&[("CI", "yes")], true),
            (&[("CI", "false")], false),
            (&[("CI", "0")], false),
            (&[("CI", "")], false),
            (&[("TF_BUILD", "True")], true),
            (&[("TF_BUILD", "")], true),
            (&[("CI", "false"), ("TF_BUILD", "True")], false),
        ];
        for (vars, expected) in cases {
            let lookup = |name: &str| {
                (vars.iter())
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.to_string())
            };
            assert_eq!(is_ci(lookup), *expected, "{vars:?}");
        }
    }
}
