//! Reading a configuration file: YAML parsed with the location of every key (`yaml`), the
//! error that names the file, line, key path and what was expected (`error`), the checker
//! that validation passes collect their errors in (`check`), which kind a file is before
//! it is read in full (`sniff`), and one entry of a flat mapping read as a variant of a
//! tagged enum (`tagged`).

pub(crate) mod check;
pub(crate) mod error;
mod sniff;
pub(crate) mod tagged;
pub(crate) mod yaml;

pub use error::{ConfigError, ConfigErrors, did_you_mean, suggest};
pub use sniff::says_kind_eval;
pub(crate) use yaml::LocationIndex;
