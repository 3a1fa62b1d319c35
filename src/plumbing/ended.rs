//! How a step or an agent run ended: it passed, or it failed for a reason. One type, so a
//! caller matches on the outcome instead of reading a flag and a string that may be empty.

/// How a step or an agent run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ended {
    /// It did what it should.
    Passed,
    /// It failed, for this reason (`exit code 1`, `timed out after 5m`, …).
    Failed(String),
}

impl Ended {
    /// Passed when there is no failure, else failed for the failures joined by `; `.
    pub fn unless(failures: &[String]) -> Self {
        match failures {
            [] => Ended::Passed,
            failures => Ended::Failed(failures.join("; ")),
        }
    }

    /// Whether it passed.
    pub fn passed(&self) -> bool {
        matches!(self, Ended::Passed)
    }

    /// Why it failed; empty when it passed.
    pub fn reason(&self) -> &str {
        match self {
            Ended::Passed => "",
            Ended::Failed(reason) => reason,
        }
    }

    /// Failed for `reason`, after what it already failed for (`first; reason`), if anything.
    pub fn and_failed(self, reason: String) -> Self {
        match self {
            Ended::Passed => Ended::Failed(reason),
            Ended::Failed(first) => Ended::Failed(format!("{first}; {reason}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_after_another_says_both_in_order() {
        assert_eq!(Ended::unless(&[]), Ended::Passed);
        let two = Ended::unless(&["a".into(), "b".into()]);
        assert_eq!(two.reason(), "a; b");
        assert!(!two.passed());
        assert_eq!(Ended::Passed.and_failed("x".into()).reason(), "x");
        assert_eq!(two.and_failed("c".into()).reason(), "a; b; c");
    }
}
