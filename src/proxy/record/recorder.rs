//! The call recorder shared by the proxies of one task run.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::plumbing::lock::lock;
use crate::trace::{
    Advertised, CallKind, CallTrace, DiscoveryEvent, Injected, InputRound, ListKind, Outcome,
    RecordedCall, RecordedElicitation, RecordedSampling, TaskStatusStep,
};

/// JSON-RPC code recorded for a call that never got an answer (the agent cancelled it or
/// the proxy stopped first): MCP's "request cancelled".
pub const CANCELLED_CODE: i32 = -32800;

/// Collects the calls of every proxy of one task run, in the order the proxies received
/// them. Cloning gives another handle to the same recording.
#[derive(Debug, Clone)]
pub struct CallRecorder {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    run_start: Instant,
    state: Mutex<RecorderState>,
}

#[derive(Debug, Default)]
struct RecorderState {
    next_seq: u64,
    calls: Vec<(u64, RecordedCall)>,
    discovery: Vec<(u64, DiscoveryEvent)>,
    advertised: BTreeMap<String, Advertised>,
    /// Each with its place, and the place of the call it came during.
    elicitations: Vec<(u64, Option<u64>, RecordedElicitation)>,
    /// Each with its place, and the place of the call it came during.
    sampling: Vec<(u64, Option<u64>, RecordedSampling)>,
    /// The input rounds of calls, each with the place of its call.
    rounds: Vec<(u64, InputRound)>,
    /// The statuses of tasks calls were answered with, each with the place of its call.
    task_steps: Vec<(u64, TaskStatusStep)>,
    /// The turn of the conversation calls are made in now, once a conversation began.
    turn: Option<u32>,
}

impl Default for CallRecorder {
    fn default() -> Self {
        Self::new()
    }
}

impl CallRecorder {
    /// A recorder whose run starts now.
    pub fn new() -> Self {
        Self::starting_at(Instant::now())
    }

    /// A recorder whose run started at `run_start`; start offsets are measured from it.
    pub fn starting_at(run_start: Instant) -> Self {
        Self {
            inner: Arc::new(Inner {
                run_start,
                state: Mutex::new(RecorderState::default()),
            }),
        }
    }

    /// The start of the run.
    pub fn run_start(&self) -> Instant {
        self.inner.run_start
    }

    /// What has been recorded so far, in the order received. Calls still in flight are
    /// not part of it yet.
    pub fn trace(&self) -> CallTrace {
        let state = self.lock();
        let mut calls = state.calls.clone();
        calls.sort_by_key(|(seq, _)| *seq);
        for (seq, call) in &mut calls {
            let rounds = state.rounds.iter().filter(|(call_seq, _)| call_seq == seq);
            call.rounds = rounds.map(|(_, round)| round.clone()).collect();
            let steps = state
                .task_steps
                .iter()
                .filter(|(call_seq, _)| call_seq == seq);
            call.task = steps.map(|(_, step)| step.clone()).collect();
        }
        let mut discovery = state.discovery.clone();
        discovery.sort_by_key(|(seq, _)| *seq);
        // Each of the calls' position, from 1, by the place it was received at.
        let position = |call_seq: Option<u64>| {
            let index = call_seq.and_then(|n| calls.iter().position(|(seq, _)| *seq == n));
            index.map(|i| i + 1)
        };
        let elicitations = in_order(&state.elicitations, |call_seq, elicitation| {
            if let Some(during) = elicitation.during.as_mut() {
                during.position = position(call_seq);
            }
        });
        let sampling = in_order(&state.sampling, |call_seq, sampling| {
            if let Some(during) = sampling.during.as_mut() {
                during.position = position(call_seq);
            }
        });
        CallTrace {
            calls: calls.into_iter().map(|(_, call)| call).collect(),
            discovery: discovery.into_iter().map(|(_, event)| event).collect(),
            advertised: state.advertised.clone(),
            elicitations,
            sampling,
        }
    }

    fn lock(&self) -> MutexGuard<'_, RecorderState> {
        lock(&self.inner.state)
    }

    fn next_seq(&self) -> (u64, Instant, Duration) {
        let now = Instant::now();
        let mut state = self.lock();
        let seq = state.next_seq;
        state.next_seq += 1;
        (
            seq,
            now,
            now.saturating_duration_since(self.inner.run_start),
        )
    }

    /// Notes that a call was received; its place in the trace is fixed now, its entry is
    /// written when [`PendingCall::finish`] is called (or when it is dropped unfinished).
    pub(crate) fn begin_call(
        &self,
        server: &str,
        kind: CallKind,
        name: String,
        arguments: Option<serde_json::Value>,
    ) -> PendingCall {
        let (seq, started, start_offset) = self.next_seq();
        PendingCall {
            recorder: self.clone(),
            seq,
            started,
            call: Some(RecordedCall {
                server: server.to_owned(),
                kind,
                name,
                arguments,
                outcome: Outcome::Error {
                    code: CANCELLED_CODE,
                    message: "the call did not finish: cancelled, or the proxy stopped".into(),
                },
                start_offset,
                duration: Duration::ZERO,
                injected: None,
                rounds: Vec::new(),
                task: Vec::new(),
                turn: self.lock().turn,
            }),
        }
    }

    /// Stamps every call received from now on with `turn` of the task's conversation.
    pub fn set_turn(&self, turn: u32) {
        self.lock().turn = Some(turn);
    }

    /// The place and start offset of something received now (an elicitation), to pass to
    /// [`record_elicitation`](Self::record_elicitation) once it is answered.
    pub(crate) fn stamp(&self) -> (u64, Duration) {
        let (seq, _, offset) = self.next_seq();
        (seq, offset)
    }

    /// Records an elicitation received at `seq` (see [`stamp`](Self::stamp)), during the call
    /// received at `call_seq` if any.
    pub(crate) fn record_elicitation(
        &self,
        seq: u64,
        call_seq: Option<u64>,
        mut elicitation: RecordedElicitation,
    ) {
        let mut inner = self.lock();
        elicitation.turn = inner.turn;
        inner.elicitations.push((seq, call_seq, elicitation));
    }

    /// Records a sampling request received at `seq` (see [`stamp`](Self::stamp)), during the
    /// call received at `call_seq` if any.
    pub(crate) fn record_sampling(
        &self,
        seq: u64,
        call_seq: Option<u64>,
        mut sampling: RecordedSampling,
    ) {
        let mut inner = self.lock();
        sampling.turn = inner.turn;
        inner.sampling.push((seq, call_seq, sampling));
    }

    /// Records an input round of the call received at `call_seq`.
    pub(crate) fn record_round(&self, call_seq: u64, round: InputRound) {
        self.lock().rounds.push((call_seq, round));
    }

    /// Records a status of the task the call received at `call_seq` was answered with.
    pub(crate) fn record_task_step(&self, call_seq: u64, step: TaskStatusStep) {
        self.lock().task_steps.push((call_seq, step));
    }

    /// Notes that a list call was received.
    pub(crate) fn begin_list(
        &self,
        server: &str,
        list: ListKind,
        cursor: Option<String>,
    ) -> PendingList {
        let (seq, started, start_offset) = self.next_seq();
        PendingList {
            recorder: self.clone(),
            seq,
            started,
            event: DiscoveryEvent {
                server: server.to_owned(),
                list,
                cursor,
                items: None,
                error: None,
                start_offset,
                duration: Duration::ZERO,
                injected: None,
            },
        }
    }
}

/// A call received but not answered yet. Dropped unfinished, it is recorded as cancelled.
#[derive(Debug)]
pub(crate) struct PendingCall {
    recorder: CallRecorder,
    seq: u64,
    started: Instant,
    call: Option<RecordedCall>,
}

impl PendingCall {
    /// Its place among what the recorder received.
    pub(crate) fn seq(&self) -> u64 {
        self.seq
    }

    /// Marks the call with the fault the proxy injected into it.
    pub(crate) fn inject(&mut self, injected: Option<Injected>) {
        if let Some(call) = self.call.as_mut() {
            call.injected = injected;
        }
    }

    /// Records the call with its outcome.
    pub(crate) fn finish(mut self, outcome: Outcome) {
        if let Some(call) = self.call.as_mut() {
            call.outcome = outcome;
        }
        self.store();
    }

    fn store(&mut self) {
        if let Some(mut call) = self.call.take() {
            call.duration = self.started.elapsed();
            self.recorder.lock().calls.push((self.seq, call));
        }
    }
}

impl Drop for PendingCall {
    fn drop(&mut self) {
        self.store();
    }
}

/// A list call received but not answered yet.
#[derive(Debug)]
pub(crate) struct PendingList {
    recorder: CallRecorder,
    seq: u64,
    started: Instant,
    event: DiscoveryEvent,
}

impl PendingList {
    /// Marks the list call with the fault the proxy injected into it.
    pub(crate) fn inject(&mut self, injected: Option<Injected>) {
        self.event.injected = injected;
    }

    /// Records the list call: `Ok` with the page's items (added to what the server
    /// advertised), or the error message.
    pub(crate) fn finish(mut self, outcome: Result<Vec<serde_json::Value>, String>) {
        let page = match outcome {
            Ok(items) => {
                self.event.items = Some(items.len());
                items
            }
            Err(message) => {
                self.event.error = Some(message);
                Vec::new()
            }
        };
        self.event.duration = self.started.elapsed();
        let seq = self.seq;
        let recorder = self.recorder.clone();
        let mut state = recorder.lock();
        let served = !(self.event.injected.as_ref()).is_some_and(Injected::replaces_answer);
        if self.event.items.is_some() && served {
            let server = state.advertised.entry(self.event.server.clone());
            server.or_default().add(self.event.list, page);
        }
        state.discovery.push((seq, self.event));
    }
}

/// Entries recorded with their place and their call's place, in the order received, each
/// finished by `place` (which fills in its call's position).
fn in_order<T: Clone>(
    entries: &[(u64, Option<u64>, T)],
    place: impl Fn(Option<u64>, &mut T),
) -> Vec<T> {
    let mut entries = entries.to_vec();
    entries.sort_by_key(|(seq, _, _)| *seq);
    (entries.into_iter())
        .map(|(_, call_seq, mut entry)| {
            place(call_seq, &mut entry);
            entry
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_keep_the_order_received_not_the_order_finished() {
        let recorder = CallRecorder::new();
        let first = recorder.begin_call("a", CallKind::Tool, "slow".into(), None);
        let second = recorder.begin_call("b", CallKind::Prompt, "fast".into(), None);
        second.finish(Outcome::Ok {
            result: serde_json::json!({}),
        });
        first.finish(Outcome::Ok {
            result: serde_json::json!({}),
        });
        let names: Vec<_> = recorder
            .trace()
            .calls
            .into_iter()
            .map(|call| call.name)
            .collect();
        assert_eq!(names, ["slow", "fast"]);
    }

    #[test]
    fn list_pages_are_recorded_as_what_the_server_advertised() {
        let recorder = CallRecorder::new();
        let page = |names: &[&str]| -> Vec<serde_json::Value> {
            names
                .iter()
                .map(|n| serde_json::json!({"name": n}))
                .collect()
        };
        let first = recorder.begin_list("a", ListKind::Tools, None);
        first.finish(Ok(page(&["x", "y"])));
        let second = recorder.begin_list("a", ListKind::Tools, Some("2".into()));
        second.finish(Ok(page(&["z", "x"])));
        let failed = recorder.begin_list("b", ListKind::Prompts, None);
        failed.finish(Err("nope".into()));
        let trace = recorder.trace();
        assert_eq!(trace.discovery[1].items, Some(2));
        assert_eq!(
            trace.advertised["a"].names(ListKind::Tools),
            ["x", "y", "z"]
        );
        assert!(!trace.advertised.contains_key("b"));
    }

    #[test]
    fn an_unfinished_call_is_recorded_as_cancelled() {
        let recorder = CallRecorder::new();
        drop(recorder.begin_call("a", CallKind::Tool, "t".into(), None));
        let trace = recorder.trace();
        assert!(matches!(
            trace.calls[0].outcome,
            Outcome::Error {
                code: CANCELLED_CODE,
                ..
            }
        ));
    }
}
