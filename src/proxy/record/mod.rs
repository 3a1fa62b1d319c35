//! What a proxy records for its run: the calls and list calls of its agent sessions
//! ([`CallRecorder`], each answer as the outcome the trace holds), the failures of the
//! server under test ([`ServerFailure`]), and why a proxy could not start or reach its
//! server ([`ProxyError`]).

mod error;
mod outcome;
mod recorder;
mod server_failures;

pub use error::ProxyError;
pub(crate) use outcome::{call_outcome, json, list_outcome};
pub use recorder::{CANCELLED_CODE, CallRecorder};
pub(crate) use recorder::{PendingCall, PendingList};
pub use server_failures::ServerFailure;
pub(crate) use server_failures::{ServerFailures, stderr_tail};
