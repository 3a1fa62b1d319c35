//! What model calls cost: a price table (the one mcpeval ships, `prices.yaml`, each entry
//! with the date it was taken and its source, after a user's own entries), each model's
//! usage priced by it, and a run's cost.
//!
//! A model no entry prices is *unpriced*: its cost is unknown, never 0, and reports name it.

use std::path::Path;
use std::sync::LazyLock;

use serde::{Deserialize, Serialize};

use super::ModelUsage;

/// The variable naming a file of the user's prices (a YAML list of entries, as `pricing:`).
pub const PRICING_VAR: &str = "MCPEVAL_PRICING";

const BUILTIN: &str = include_str!("prices.yaml");

/// One model's prices, in US dollars per million tokens.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ModelPrice {
    /// The model's name (or the start of its names: `claude-sonnet-4-5` prices
    /// `claude-sonnet-4-5-20250929`).
    pub model: String,
    /// Input tokens (not read from a cache).
    pub input: f64,
    /// Output tokens.
    pub output: f64,
    /// Input tokens read from a cache (default: `input`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_read: Option<f64>,
    /// Input tokens written to a cache (default: `input`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write: Option<f64>,
    /// When the price was taken (`2025-11-24`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// Where it was taken from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

impl ModelPrice {
    /// What `usage` costs at these prices, in US dollars.
    pub fn cost(&self, usage: &ModelUsage) -> f64 {
        let per_token = |price: f64, tokens: u64| price * tokens as f64 / 1_000_000.0;
        per_token(self.input, usage.input_tokens)
            + per_token(self.output, usage.output_tokens)
            + per_token(
                self.cache_read.unwrap_or(self.input),
                usage.cache_read_tokens,
            )
            + per_token(
                self.cache_write.unwrap_or(self.input),
                usage.cache_write_tokens,
            )
    }

    /// Whether this entry prices `model`: its name, or the start of it followed by `-`
    /// (a provider's `anthropic/` or `models/` in front left aside).
    fn prices(&self, model: &str) -> bool {
        let model = model.rsplit('/').next().unwrap_or(model);
        model == self.model
            || model
                .strip_prefix(self.model.as_str())
                .is_some_and(|rest| rest.starts_with('-'))
    }

    /// A problem with the numbers, for a load error: the key and what is wrong (each
    /// price is a number of 0 or more, the model named).
    pub fn problem(&self) -> Option<(&'static str, String)> {
        if self.model.trim().is_empty() {
            return Some(("model", "expected the model's name".to_owned()));
        }
        let prices = [
            ("input", Some(self.input)),
            ("output", Some(self.output)),
            ("cacheRead", self.cache_read),
            ("cacheWrite", self.cache_write),
        ];
        prices.into_iter().find_map(|(key, price)| {
            let bad = price.filter(|p| !p.is_finite() || *p < 0.0)?;
            Some((
                key,
                format!("expected US dollars per million tokens, 0 or more, not {bad}"),
            ))
        })
    }
}

/// The prices a run is costed with: the user's entries first, then mcpeval's.
#[derive(Debug, Clone, PartialEq)]
pub struct PriceTable {
    entries: Vec<ModelPrice>,
}

impl Default for PriceTable {
    fn default() -> Self {
        Self::builtin()
    }
}

impl PriceTable {
    /// The prices mcpeval ships (read once per process).
    pub fn builtin() -> Self {
        // A test reads the file: it parses.
        static SHIPPED: LazyLock<Vec<ModelPrice>> =
            LazyLock::new(|| serde_saphyr::from_str(BUILTIN).unwrap_or_default());
        PriceTable {
            entries: SHIPPED.clone(),
        }
    }

    /// This table with `user`'s entries in front (they win over the shipped ones).
    pub fn with(mut self, user: &[ModelPrice]) -> Self {
        let mut entries = user.to_vec();
        entries.append(&mut self.entries);
        PriceTable { entries }
    }

    /// The entries of the pricing file at `path` (a YAML list of entries), or what is wrong
    /// with it, naming the file and the entry.
    pub fn read_file(path: &Path) -> Result<Vec<ModelPrice>, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the pricing file {}: {e}", path.display()))?;
        let entries: Vec<ModelPrice> = serde_saphyr::from_str(&text).map_err(|e| {
            format!(
                "{}: expected a list of prices ({{model, input, output, cacheRead, cacheWrite, date, source}}): {e}",
                path.display()
            )
        })?;
        for (i, entry) in entries.iter().enumerate() {
            if let Some((key, problem)) = entry.problem() {
                return Err(format!("{}: [{i}].{key}: {problem}", path.display()));
            }
        }
        Ok(entries)
    }

    /// The entry that prices `model`: the first whose name is the model's, else the one with
    /// the longest name the model's starts with.
    pub fn price(&self, model: &str) -> Option<&ModelPrice> {
        let exact = self.entries.iter().find(|entry| entry.model == model);
        exact.or_else(|| {
            (self.entries.iter())
                .filter(|entry| entry.prices(model))
                .max_by_key(|entry| entry.model.len())
        })
    }

    /// Each model's usage with its cost (`None`: unpriced).
    pub fn priced(&self, usages: &[ModelUsage]) -> Vec<PricedUsage> {
        (usages.iter())
            .map(|usage| {
                let price = self.price(&usage.model);
                PricedUsage {
                    usage: usage.clone(),
                    cost_usd: price.map(|price| price.cost(usage)),
                    price_date: price.and_then(|price| price.date.clone()),
                }
            })
            .collect()
    }
}

/// One model's usage in a run and what it cost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PricedUsage {
    /// The model and its tokens.
    #[serde(flatten)]
    pub usage: ModelUsage,
    /// What it cost in US dollars; absent when no price names the model (unpriced).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// When the price used was taken.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_date: Option<String>,
}

/// What a run's model calls (the agent's and the judge's) cost.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunCost {
    /// The priced calls' cost, in US dollars.
    pub usd: f64,
    /// The models no price names: their calls are not in `usd`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unpriced: Vec<String>,
    /// Some calls were replayed from a cassette: `usd` is what they cost when recorded.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub replayed: bool,
}

impl RunCost {
    /// The cost of `priced` usages (`replayed`: answered from a cassette); `None` when
    /// there are none.
    pub fn of<'a>(priced: impl IntoIterator<Item = (&'a PricedUsage, bool)>) -> Option<RunCost> {
        let mut cost: Option<RunCost> = None;
        for (usage, replayed) in priced {
            let cost = cost.get_or_insert_with(RunCost::default);
            match usage.cost_usd {
                Some(usd) => cost.usd += usd,
                None if !cost.unpriced.contains(&usage.usage.model) => {
                    cost.unpriced.push(usage.usage.model.clone());
                }
                None => {}
            }
            cost.replayed |= replayed;
        }
        cost
    }
}

/// `$2.41`, `$0.0123`, `$0.000120` (more decimals the smaller the amount), `$0`.
pub fn dollars(usd: f64) -> String {
    if usd == 0.0 {
        "$0".to_owned()
    } else if usd >= 1.0 {
        format!("${usd:.2}")
    } else if usd >= 0.01 {
        format!("${usd:.4}")
    } else {
        format!("${usd:.6}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(model: &str, input: u64, output: u64, read: u64, write: u64) -> ModelUsage {
        ModelUsage {
            model: model.into(),
            calls: 1,
            input_tokens: input,
            output_tokens: output,
            cache_read_tokens: read,
            cache_write_tokens: write,
        }
    }

    #[test]
    fn the_shipped_table_parses_and_each_entry_has_a_date_and_a_source() {
        let table = PriceTable::builtin();
        assert!(table.entries.len() >= 20);
        for entry in &table.entries {
            assert!(entry.date.is_some() && entry.source.is_some(), "{entry:?}");
            assert_eq!(entry.problem(), None);
        }
    }

    #[test]
    fn a_model_is_priced_by_its_name_or_the_longest_start_of_it() {
        let table = PriceTable::builtin();
        let model = |name: &str| table.price(name).map(|price| price.model.as_str());
        assert_eq!(
            model("claude-sonnet-4-5-20250929"),
            Some("claude-sonnet-4-5")
        );
        assert_eq!(model("claude-sonnet-4-20250514"), Some("claude-sonnet-4"));
        assert_eq!(model("gpt-5-mini-2025-08-07"), Some("gpt-5-mini"));
        assert_eq!(model("gpt-4o-2024-08-06"), Some("gpt-4o"));
        assert_eq!(
            model("models/gemini-2.5-flash-lite"),
            Some("gemini-2.5-flash-lite")
        );
        assert_eq!(model("gpt-50"), None);
        assert_eq!(model("mcpeval-test-model"), None);
    }

    #[test]
    fn usage_is_priced_by_kind_of_token_and_a_users_price_wins() {
        let table = PriceTable::builtin();
        // claude-sonnet-4-5: $3 input, $15 output, $0.30 cache read, $3.75 cache write per
        // million: 1000 × 3 + 500 × 15 + 10000 × 0.3 + 2000 × 3.75 = 3000 + 7500 + 3000 +
        // 7500 = 21000 micro-dollars.
        let priced = table.priced(&[usage("claude-sonnet-4-5-20250929", 1000, 500, 10_000, 2000)]);
        assert!((priced[0].cost_usd.unwrap() - 0.021).abs() < 1e-12);
        assert_eq!(priced[0].price_date.as_deref(), Some("2025-11-24"));
        // A user's entry: cache prices default to the input price.
        let mine = ModelPrice {
            model: "claude-sonnet-4-5".into(),
            input: 2.0,
            output: 10.0,
            cache_read: None,
            cache_write: None,
            date: None,
            source: None,
        };
        let priced = table.with(&[mine]).priced(&[
            usage("claude-sonnet-4-5", 1000, 500, 1000, 0),
            usage("mcpeval-test-model", 1000, 1000, 0, 0),
        ]);
        // 1000 × 2 + 500 × 10 + 1000 × 2 = 9000 micro-dollars.
        assert!((priced[0].cost_usd.unwrap() - 0.009).abs() < 1e-12);
        assert_eq!(priced[1].cost_usd, None);
        let cost = RunCost::of(priced.iter().map(|p| (p, true))).unwrap();
        assert!((cost.usd - 0.009).abs() < 1e-12);
        assert_eq!(
            (cost.unpriced.as_slice(), cost.replayed),
            (&["mcpeval-test-model".to_owned()][..], true)
        );
        assert_eq!(RunCost::of(std::iter::empty()), None);
    }

    #[test]
    fn a_bad_pricing_file_names_the_file_and_the_entry() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("prices.yaml");
        std::fs::write(&file, "- {model: m, input: 1, output: -2}\n").unwrap();
        let error = PriceTable::read_file(&file).unwrap_err();
        assert!(
            error.ends_with(
                "prices.yaml: [0].output: expected US dollars per million tokens, 0 or more, not -2"
            ),
            "{error}"
        );
        std::fs::write(&file, "- {model: m, input: 1, outptu: 2}\n").unwrap();
        let error = PriceTable::read_file(&file).unwrap_err();
        assert!(
            error.contains("expected a list of prices") && error.contains("outptu"),
            "{error}"
        );
        let missing = PriceTable::read_file(&dir.path().join("nope.yaml")).unwrap_err();
        assert!(
            missing.starts_with("cannot read the pricing file"),
            "{missing}"
        );
    }
}
