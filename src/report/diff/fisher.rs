//! Whether a change of a test's pass count between two reports is unlikely to be chance:
//! the one-sided Fisher exact test on the 2×2 table of passed and failed runs (base against
//! current), from the hypergeometric distribution, at α = 0.05.

use crate::report::results::PassCount;
use crate::report::variants::ln_choose;

/// The significance level: a change with a p-value at or below it is not put down to chance.
pub const ALPHA: f64 = 0.05;

/// The one-sided p-value of "the current runs pass less often than the base runs": the
/// probability, with the runs' passes spread over both reports at random (the margins of the
/// table fixed), that the base holds at least as many of them as it does.
pub fn drop_p_value(base: PassCount, current: PassCount) -> f64 {
    let passes = base.passed + current.passed;
    let runs = base.runs + current.runs;
    if base.runs == 0 || current.runs == 0 {
        return 1.0;
    }
    let most = passes.min(base.runs);
    (base.passed..=most)
        .map(|x| hypergeometric(x, passes, runs, base.runs))
        .sum::<f64>()
        .min(1.0)
}

/// The one-sided p-value of "the current runs pass more often than the base runs".
pub fn rise_p_value(base: PassCount, current: PassCount) -> f64 {
    drop_p_value(current, base)
}

/// A p-value at or below [`ALPHA`] (with room for the rounding of its sum: 3 of 3 runs
/// passed against 0 of 3 is exactly 1/20).
pub fn significant(p_value: f64) -> bool {
    p_value <= ALPHA * (1.0 + 1e-9)
}

/// The probability of `x` passes among `drawn` runs, drawn from `runs` runs of which
/// `passes` passed.
fn hypergeometric(x: usize, passes: usize, runs: usize, drawn: usize) -> f64 {
    if x > passes || drawn < x || drawn - x > runs - passes {
        return 0.0;
    }
    (ln_choose(passes, x) + ln_choose(runs - passes, drawn - x) - ln_choose(runs, drawn)).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(passed: usize, runs: usize) -> PassCount {
        PassCount { passed, runs }
    }

    // Reference values from Python's math.comb: sum(comb(K, x) * comb(N - K, n1 - x) for x
    // in range(a, min(K, n1) + 1)) / comb(N, n1).
    #[test]
    fn drop_p_values_match_hand_computed_ones() {
        for (base, current, expected) in [
            (count(5, 5), count(0, 5), 1.0 / 252.0),
            (count(5, 5), count(3, 5), 0.222_222_222_222),
            (count(5, 5), count(1, 5), 0.023_809_523_810),
            (count(3, 3), count(0, 3), 0.05),
            (count(3, 3), count(2, 3), 0.5),
            (count(2, 5), count(0, 5), 0.222_222_222_222),
            (count(1, 1), count(0, 5), 0.166_666_666_667),
            (count(10, 10), count(5, 10), 0.016_253_869_969),
            (count(20, 20), count(14, 20), 0.010_098_010_098),
        ] {
            let p = drop_p_value(base, current);
            assert!(
                (p - expected).abs() < 1e-9,
                "{base:?} -> {current:?}: {p}, not {expected}"
            );
        }
    }

    #[test]
    fn a_drop_is_significant_only_at_or_below_alpha() {
        assert!(significant(drop_p_value(count(5, 5), count(0, 5))));
        assert!(significant(drop_p_value(count(5, 5), count(1, 5))));
        assert!(significant(drop_p_value(count(3, 3), count(0, 3))));
        assert!(!significant(drop_p_value(count(5, 5), count(3, 5))));
        assert!(!significant(drop_p_value(count(5, 5), count(5, 5))));
        assert!(!significant(drop_p_value(count(0, 5), count(0, 5))));
    }

    #[test]
    fn a_rise_is_a_drop_seen_the_other_way() {
        let p = rise_p_value(count(0, 5), count(5, 5));
        assert!((p - 1.0 / 252.0).abs() < 1e-12, "{p}");
        assert_eq!(drop_p_value(count(0, 0), count(1, 1)), 1.0);
    }
}
