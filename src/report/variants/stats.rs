//! The statistics of comparing a variant of an eval with its baseline over the same tasks:
//! the exact McNemar test on paired pass/fail outcomes (one run per task), the paired
//! sign-flip permutation test on per-task pass rates (several runs), Holm–Bonferroni over
//! an eval's variants, and the verdict. Pure functions of numbers.

use serde::{Deserialize, Serialize};

/// The significance level of a verdict.
pub const ALPHA: f64 = 0.05;

/// The fewest discordant tasks (whose outcome differs between the two variants) with which
/// an exact two-sided test can reach a p-value below `ALPHA`: with 5 the smallest is
/// 2 / 2^5 = 0.0625.
pub const MIN_DISCORDANT: usize = 6;

/// Up to this many non-zero differences the sign-flip test counts every assignment
/// (2^20); beyond, it draws `SAMPLED_ASSIGNMENTS`.
pub const EXACT_LIMIT: usize = 20;

/// Up to this many discordant pairs McNemar's tail is summed in integers; beyond, in
/// logarithms.
const EXACT_PAIRS: usize = 120;

/// The random sign assignments of a sampled sign-flip test.
pub const SAMPLED_ASSIGNMENTS: u64 = 10_000;

/// The seed of the sampled sign-flip test: the same results give the same p-value.
const SEED: u64 = 0x6d63_7065_7661_6c00;

/// Sums closer than this are equal (per-task pass rates are fractions; their sums are not
/// exact in floating point).
pub(super) const TOLERANCE: f64 = 1e-9;

/// The two-sided exact McNemar test: `b` pairs where the baseline passed and the variant
/// failed, `c` the reverse. The exact binomial test on the discordant pairs,
/// `min(1, 2·P(X ≤ min(b, c)))` with `X ~ Bin(b + c, 1/2)`; 1 when no pair is discordant.
pub fn mcnemar_exact(b: usize, c: usize) -> f64 {
    let n = b.saturating_add(c);
    if n == 0 {
        return 1.0;
    }
    let k = b.min(c);
    if n <= EXACT_PAIRS {
        // Σ_{i ≤ k} C(n, i) in integers (C(120, 60) < 2^127), scaled by 2^(1−n): one
        // rounding.
        let (mut choose, mut sum) = (1u128, 1u128);
        for i in 1..=k {
            choose = choose * (n - i + 1) as u128 / i as u128;
            sum += choose;
        }
        return (sum as f64 * 2f64.powi(1 - n as i32)).min(1.0);
    }
    // ln P(X = k) = ln C(n, k) − n ln 2, in logarithms so that thousands of pairs neither
    // overflow nor underflow.
    let ln_at_k = ln_choose(n, k) - n as f64 * std::f64::consts::LN_2;
    // P(X ≤ k) / P(X = k), adding P(X = i − 1) / P(X = k) = that of i · i / (n − i + 1)
    // downwards (each term smaller than the last, as k ≤ n / 2).
    let mut ratio = 1.0;
    let mut total = 1.0;
    for i in (1..=k).rev() {
        ratio *= i as f64 / (n - i + 1) as f64;
        total += ratio;
        if ratio < 1e-18 {
            break;
        }
    }
    (2.0 * ln_at_k.exp() * total).min(1.0)
}

/// The natural logarithm of `n` choose `k` (`k ≤ n`), without overflow for any `n`.
pub(in crate::report) fn ln_choose(n: usize, k: usize) -> f64 {
    let k = k.min(n - k);
    (1..=k).map(|i| ((n - k + i) as f64 / i as f64).ln()).sum()
}

/// The outcome of a sign-flip test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SignFlip {
    /// The two-sided p-value.
    pub p_value: f64,
    /// The non-zero differences (what the signs were flipped of).
    pub nonzero: usize,
    /// Every assignment counted (else `SAMPLED_ASSIGNMENTS` drawn).
    pub exact: bool,
}

/// The paired sign-flip permutation test of `differences` (per task: the variant's pass
/// rate minus the baseline's). The statistic is `|Σ d|`; the p-value is the share of sign
/// assignments whose statistic is at least the observed one (which is among them, so it is
/// never 0). Zero differences contribute nothing. Every assignment is counted for up to
/// `EXACT_LIMIT` non-zero differences; beyond, `SAMPLED_ASSIGNMENTS` are drawn from a
/// fixed seed and the observed one added: `(hits + 1) / (draws + 1)`.
pub fn sign_flip(differences: &[f64]) -> SignFlip {
    let nonzero: Vec<f64> = (differences.iter().copied())
        .filter(|d| d.abs() > TOLERANCE)
        .collect();
    let observed = nonzero.iter().sum::<f64>().abs();
    let exact = nonzero.len() <= EXACT_LIMIT;
    let p_value = if !observed.is_finite() || observed <= TOLERANCE {
        // Every assignment is at least as extreme as a sum of zero.
        1.0
    } else if exact {
        exact_sign_flip(&nonzero, observed - TOLERANCE)
    } else {
        sampled_sign_flip(&nonzero, observed - TOLERANCE)
    };
    SignFlip {
        p_value,
        nonzero: nonzero.len(),
        exact,
    }
}

/// The share of the 2^m sign assignments of `values` whose sum is at least `threshold`
/// (> 0) in magnitude: the sums of each half's assignments, one half sorted, so that each
/// sum of the other half finds its partners by binary search.
fn exact_sign_flip(values: &[f64], threshold: f64) -> f64 {
    let (left, right) = values.split_at(values.len() / 2);
    let mut right = signed_sums(right);
    right.sort_by(f64::total_cmp);
    let mut extreme = 0usize;
    for a in signed_sums(left) {
        // a + b ≥ threshold, or a + b ≤ −threshold (disjoint, as threshold > 0).
        let high = right.len() - right.partition_point(|b| *b < threshold - a);
        let low = right.partition_point(|b| *b <= -threshold - a);
        extreme += high + low;
    }
    extreme as f64 / (1u64 << values.len()) as f64
}

/// The sum of `values` under each of the 2^len sign assignments.
fn signed_sums(values: &[f64]) -> Vec<f64> {
    (0..1u32 << values.len())
        .map(|signs| {
            (values.iter().enumerate())
                .map(|(i, v)| if signs >> i & 1 == 1 { -v } else { *v })
                .sum()
        })
        .collect()
}

/// The share of `SAMPLED_ASSIGNMENTS` random sign assignments of `values`, and the
/// observed one, whose sum is at least `threshold` in magnitude. Each byte of a random
/// number picks the signs of 8 values at once: their sum under each of the 256 sign
/// patterns is looked up, not added up.
fn sampled_sign_flip(values: &[f64], threshold: f64) -> f64 {
    let tables: Vec<Vec<f64>> = values.chunks(8).map(signed_sums).collect();
    let mut random = SplitMix64(SEED);
    let mut extreme = 0u64;
    for _ in 0..SAMPLED_ASSIGNMENTS {
        let mut signs = 0;
        let mut sum = 0.0;
        for (i, table) in tables.iter().enumerate() {
            if i % 8 == 0 {
                signs = random.next();
            }
            // A table has 2^(its values) entries: the mask keeps the index inside.
            sum += table[(signs & 0xff) as usize & (table.len() - 1)];
            signs >>= 8;
        }
        extreme += u64::from(sum.abs() >= threshold);
    }
    (extreme + 1) as f64 / (SAMPLED_ASSIGNMENTS + 1) as f64
}

/// Sebastiano Vigna's splitmix64: 64 random bits a step, enough for drawing signs.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Holm–Bonferroni: each p-value adjusted for the family of `p_values`, in their order. The
/// i-th smallest is multiplied by `m − i` (i from 0), each kept at least the one before it
/// (step-down), and capped at 1.
pub fn holm(p_values: &[f64]) -> Vec<f64> {
    let m = p_values.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p_values[a].total_cmp(&p_values[b]));
    let mut adjusted = vec![1.0; m];
    let mut running: f64 = 0.0;
    for (rank, &index) in order.iter().enumerate() {
        let scaled = (p_values[index] * (m - rank) as f64).min(1.0);
        running = running.max(scaled);
        adjusted[index] = running;
    }
    adjusted
}

/// What a comparison concludes about a variant against its baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum VariantVerdict {
    /// The variant passes more tasks, and the difference is significant.
    #[serde(rename = "better")]
    Better,
    /// The variant passes fewer tasks, and the difference is significant.
    #[serde(rename = "worse")]
    Worse,
    /// No significant difference, or too few tasks differ to show one.
    #[serde(rename = "no clear difference")]
    NoClearDifference,
}

impl VariantVerdict {
    /// `better`, `worse` or `no clear difference`.
    pub fn as_str(self) -> &'static str {
        match self {
            VariantVerdict::Better => "better",
            VariantVerdict::Worse => "worse",
            VariantVerdict::NoClearDifference => "no clear difference",
        }
    }
}

/// The verdict at `ALPHA` on the Holm-adjusted p-value, by the sign of `difference`
/// (variant minus baseline), with its reason. With fewer than `MIN_DISCORDANT` discordant
/// tasks no exact test can show a difference: no clear difference, whatever the p-value.
pub fn verdict(adjusted_p: f64, difference: f64, discordant: usize) -> (VariantVerdict, String) {
    if discordant < MIN_DISCORDANT {
        let differ = match discordant {
            0 => "no task differs".to_owned(),
            1 => "only 1 task differs".to_owned(),
            n => format!("only {n} tasks differ"),
        };
        let reason = format!(
            "{differ}; at least {MIN_DISCORDANT} are needed before an exact test can show a \
             difference at α = {ALPHA}"
        );
        return (VariantVerdict::NoClearDifference, reason);
    }
    let p = format_p(adjusted_p);
    if adjusted_p >= ALPHA || adjusted_p.is_nan() || difference == 0.0 {
        let reason = format!("Holm-adjusted p = {p} is not below α = {ALPHA}");
        return (VariantVerdict::NoClearDifference, reason);
    }
    let verdict = if difference > 0.0 {
        VariantVerdict::Better
    } else {
        VariantVerdict::Worse
    };
    (verdict, format!("Holm-adjusted p = {p} < α = {ALPHA}"))
}

/// A p-value as text: four decimals (`0.0352`), or two significant digits below 0.0001
/// (`6.0e-8`).
pub fn format_p(p: f64) -> String {
    if p > 0.0 && p < 1e-4 {
        format!("{p:.1e}")
    } else {
        format!("{p:.4}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Within a relative 1e-9.
    fn close(actual: f64, expected: f64) -> bool {
        (actual - expected).abs() <= 1e-9 * expected
    }

    // Reference values: 2 · Σ_{i ≤ min(b,c)} C(b+c, i) / 2^(b+c), computed with Python's
    // math.comb.
    #[test]
    fn mcnemar_exact_matches_the_binomial_tail() {
        // Summed in integers: exact.
        for (b, c, expected) in [
            (1, 9, 0.021484375),
            (9, 1, 0.021484375),
            (0, 6, 0.03125),
            (0, 5, 0.0625),
            (2, 8, 0.109375),
            (0, 8, 0.0078125),
            (3, 12, 0.03515625),
            (40, 60, 0.05688793364098079),
            (3, 3, 1.0),
            (0, 1, 1.0),
        ] {
            assert_eq!(mcnemar_exact(b, c), expected, "b={b} c={c}");
        }
        // Beyond 120 pairs, in logarithms.
        for (b, c, expected) in [
            (150, 200, 0.008720036530555949),
            (700, 600, 0.0060157938610449525),
        ] {
            let p = mcnemar_exact(b, c);
            assert!(close(p, expected), "b={b} c={c}: {p}, expected {expected}");
        }
    }

    #[test]
    fn mcnemar_exact_is_one_without_discordant_pairs_and_finite_for_thousands() {
        assert_eq!(mcnemar_exact(0, 0), 1.0);
        // 2^-3000 underflows; the logarithms do not.
        assert_eq!(mcnemar_exact(1500, 1500), 1.0);
        let p = mcnemar_exact(1400, 1600);
        assert!(p > 0.0 && p < 1e-3, "{p}");
        assert!(mcnemar_exact(0, 3000) < 1e-300);
    }

    // The 16 assignments of ±1, ±0.5, ±0.5, ±0.5 (the sign of −0.5 is one of them): the
    // three halves sum to ±1.5 (1 way each) or ±0.5 (3 ways each), so the sums are
    // 2.5 (1), 1.5 (3), 0.5 (3), −0.5 (1) with +1 and their negatives with −1. Observed
    // |1 + 0.5 + 0.5 − 0.5| = 1.5: 1 + 3 + 3 + 1 = 8 of 16 reach it.
    #[test]
    fn sign_flip_counts_every_assignment_by_hand() {
        let test = sign_flip(&[1.0, 0.5, 0.5, -0.5]);
        assert_eq!(test.p_value, 0.5);
        assert_eq!((test.nonzero, test.exact), (4, true));
    }

    // ±1 ±1 ±1 ±0.5, the zero dropped: only +3.5 and −3.5 reach |3.5|: 2 of 16.
    #[test]
    fn sign_flip_drops_zero_differences() {
        let test = sign_flip(&[1.0, 1.0, 1.0, 0.5, 0.0]);
        assert_eq!(test.p_value, 0.125);
        assert_eq!(test.nonzero, 4);
    }

    // Counted by Python over the 256 assignments (itertools.product): 28 of 256.
    #[test]
    fn sign_flip_matches_a_full_enumeration() {
        let p = sign_flip(&[0.2, 0.4, -0.2, 0.6, 0.8, 0.4, -0.4, 1.0]).p_value;
        assert!(close(p, 0.109375), "{p}");
    }

    #[test]
    fn sign_flip_of_nothing_or_a_zero_sum_is_one() {
        assert_eq!(sign_flip(&[]).p_value, 1.0);
        assert_eq!(sign_flip(&[0.0, 0.0]).p_value, 1.0);
        assert_eq!(sign_flip(&[0.5, -0.5, 1.0, -1.0]).p_value, 1.0);
        assert_eq!(sign_flip(&[f64::NAN, 1.0]).p_value, 1.0);
    }

    // Twenty +1: only all-plus and all-minus reach 20, 2 of 2^20; the exact count never
    // gives 0.
    #[test]
    fn sign_flip_is_exact_up_to_twenty_differences() {
        let test = sign_flip(&[1.0; 20]);
        assert!(test.exact);
        assert_eq!(test.p_value, 2.0 / (1u64 << 20) as f64);
    }

    // 15 × +1 and 6 × −1: |Σ| = 9, reached when at most 6 or at least 15 of 21 signs are
    // +: 2 · Σ_{i ≤ 6} C(21, i) / 2^21 = 0.0783538818359375 (Python). The sampled p-value
    // is within a few standard errors (0.0027) of it, and the same every time.
    #[test]
    fn sign_flip_samples_beyond_twenty_differences_from_a_fixed_seed() {
        let mut differences = vec![1.0; 15];
        differences.extend([-1.0; 6]);
        let test = sign_flip(&differences);
        assert!(!test.exact);
        assert!((test.p_value - 0.0783538818359375).abs() < 0.01, "{test:?}");
        assert_eq!(sign_flip(&differences), test);
    }

    // 30 × +1: the exact p is 2 / 2^30; no draw reaches it, and the observed assignment
    // counts: 1 / 10,001, never 0.
    #[test]
    fn a_sampled_p_value_counts_the_observed_assignment() {
        let test = sign_flip(&[1.0; 30]);
        assert_eq!(test.p_value, 1.0 / 10_001.0);
    }

    #[test]
    fn holm_steps_down_keeps_the_order_and_caps_at_one() {
        let adjusted = holm(&[0.01, 0.04, 0.03]);
        let expected = [0.03, 0.06, 0.06];
        for (a, e) in adjusted.iter().zip(expected) {
            assert!(close(*a, e), "{adjusted:?}");
        }
        // 0.045 · 1 is below 0.04 · 2: the larger p keeps the smaller one's 0.08.
        let adjusted = holm(&[0.045, 0.04]);
        assert!(
            close(adjusted[0], 0.08) && close(adjusted[1], 0.08),
            "{adjusted:?}"
        );
        assert_eq!(holm(&[0.5, 0.6]), [1.0, 1.0]);
        assert_eq!(holm(&[0.02]), [0.02]);
        assert!(holm(&[]).is_empty());
    }

    #[test]
    fn verdicts_follow_the_adjusted_p_value_and_the_sign() {
        assert_eq!(verdict(0.0352, -0.3, 15).0, VariantVerdict::Worse);
        assert_eq!(verdict(0.0352, 0.3, 15).0, VariantVerdict::Better);
        let (v, reason) = verdict(0.0625, 0.3, 10);
        assert_eq!(v, VariantVerdict::NoClearDifference);
        assert_eq!(reason, "Holm-adjusted p = 0.0625 is not below α = 0.05");
        assert_eq!(
            verdict(0.0352, 0.3, 15).1,
            "Holm-adjusted p = 0.0352 < α = 0.05"
        );
    }

    #[test]
    fn fewer_than_six_discordant_tasks_make_no_clear_difference() {
        let (v, reason) = verdict(0.001, 1.0, 4);
        assert_eq!(v, VariantVerdict::NoClearDifference);
        assert_eq!(
            reason,
            "only 4 tasks differ; at least 6 are needed before an exact test can show a \
             difference at α = 0.05"
        );
        assert!(verdict(0.001, 1.0, 0).1.starts_with("no task differs;"));
        assert!(verdict(0.001, 1.0, 1).1.starts_with("only 1 task differs;"));
        assert_eq!(verdict(0.03125, 1.0, 6).0, VariantVerdict::Better);
        // The rule's reason: 5 discordant pairs cannot go below 0.0625.
        assert_eq!(mcnemar_exact(0, 5), 0.0625);
    }

    #[test]
    fn verdicts_serialise_as_words_and_p_values_print_short() {
        let words = serde_json::to_string(&[
            VariantVerdict::Better,
            VariantVerdict::Worse,
            VariantVerdict::NoClearDifference,
        ])
        .unwrap();
        assert_eq!(words, r#"["better","worse","no clear difference"]"#);
        assert_eq!(format_p(0.03515625), "0.0352");
        assert_eq!(format_p(1.0), "1.0000");
        assert_eq!(format_p(6.0e-8), "6.0e-8");
    }
}
