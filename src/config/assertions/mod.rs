//! A task set's `assertions`: the block as written and validated (`block`), the kinds of
//! assertion (`kind`), call matchers and call order (`matchers`), argument patterns
//! (`arguments`) and how a call's arguments compare with them (`arguments_match`), entries
//! matching the servers' elicitations (`elicitation`).

pub(crate) mod arguments;
mod arguments_match;
pub(crate) mod block;
pub(crate) mod elicitation;
mod kind;
pub(crate) mod matchers;

pub use arguments::{ArgumentPattern, ValueType};
pub use arguments_match::{ArgumentsComparison, Difference};
pub use block::{AfterFault, Assertions, SkillMatcher};
pub use elicitation::ElicitationMatcher;
pub use kind::AssertionKind;
pub use matchers::{CallMatcher, OrderedCall, kind_name};
