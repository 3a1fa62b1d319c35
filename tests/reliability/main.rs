//! The reliability suite: mcpeval tried as a hostile user and a broken server would try it.
//! Each case states what is expected and checks what is observed, so what holds today keeps
//! holding. One module per area:
//!
//! - `server_faults`: a server under test that fails fails the task, with its cause.
//! - `big_answers`: large and malformed server answers end the call at once.
//! - `signals`: SIGTERM / SIGINT mid-run leave no process behind and keep finished results.
//! - `names`: task and eval names never share or escape a results file.
//! - `origin`: the proxies refuse foreign `Origin` and `Host` headers.
//! - `broken_files`: a task file that does not load still has a results file.
//! - `faults`: faults on purpose on 50 parallel tasks lose no call and leave no process.
//! - `holds`: what held before this suite existed (loopback only, parallel load, reaping,
//!   no secrets in results).

#[path = "../support/mod.rs"]
mod support;

mod big_answers;
mod broken_files;
mod common;
mod faults;
mod holds;
mod names;
mod origin;
mod server_faults;
mod signals;
