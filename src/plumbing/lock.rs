//! The one poison-tolerant mutex lock of the crate.

use std::sync::{Mutex, MutexGuard};

/// Locks `mutex`. A poisoned lock only means a panic happened elsewhere while it was held;
/// the data behind it is plain and still what we have, so keep using it.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
