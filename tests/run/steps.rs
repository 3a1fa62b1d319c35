//! Script steps: shebang or bash, the task's directory as working directory, env, timeout,
//! continueOnError, output kept.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use mcpeval::config::{ScriptSource, ScriptStep, Step, TaskStep};
use mcpeval::steps::{Phase, StepContext, phase_passed, run_phase, script_command};

fn script(source: ScriptSource) -> ScriptStep {
    ScriptStep {
        source,
        timeout: Duration::from_secs(30),
        env: BTreeMap::new(),
        continue_on_error: false,
    }
}

fn inline(text: &str) -> TaskStep {
    Step::Script(script(ScriptSource::Inline(text.into()))).into()
}

fn context(task_dir: &Path, run_dir: &Path) -> StepContext {
    StepContext {
        task_dir: task_dir.into(),
        run_dir: run_dir.into(),
        env: vec![("MCPEVAL_TRACE".into(), "/tmp/trace.json".into())],
        live: false,
        prompt: "the task".into(),
        agent_output: None,
        judge: None,
        extensions: None,
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn shebang_picks_the_interpreter_and_bash_is_the_default() {
    let path = Path::new("/t/verify.py");
    let py = script_command(path, "#!/usr/bin/env python3\nprint(1)\n");
    assert_eq!(py.program, "/usr/bin/env");
    assert_eq!(py.args, ["python3", "/t/verify.py"]);
    let sh = script_command(path, "#! /bin/sh -eu\n");
    assert_eq!((sh.program.to_str(), sh.args.len()), (Some("/bin/sh"), 2));
    assert_eq!(sh.args[0], "-eu");
    let plain = script_command(path, "echo hi\n");
    assert_eq!(plain.program, "bash");
}

#[test]
fn scripts_run_in_the_task_directory_with_env_and_shebang() {
    let task = tempfile::tempdir().unwrap();
    let run = tempfile::tempdir().unwrap();
    std::fs::write(task.path().join("data.txt"), "from the task dir").unwrap();
    std::fs::write(task.path().join("check.py"), "#!/usr/bin/env python3\nimport os\nprint(open('data.txt').read(), os.environ['MCPEVAL_TRACE'], os.environ['EXTRA'])\n").unwrap();
    let mut file_step = script(ScriptSource::File(task.path().join("check.py")));
    file_step.env.insert("EXTRA".into(), "step-env".into());
    let steps = vec![
        Step::Script(file_step).into(),
        inline("[[ -f data.txt ]] && echo bash-ok"),
    ];
    let results = runtime().block_on(run_phase(
        Phase::Verify,
        &steps,
        &context(task.path(), run.path()),
        &mut Vec::new(),
    ));
    assert!(phase_passed(&results), "{results:#?}");
    assert_eq!(
        results[0].output,
        "from the task dir /tmp/trace.json step-env"
    );
    assert_eq!(results[0].label, "verify[0] script check.py");
    assert_eq!(results[1].output, "bash-ok");
}

#[test]
fn a_failing_step_stops_the_phase_and_keeps_its_output() {
    let dir = tempfile::tempdir().unwrap();
    let steps = vec![
        inline("echo checking; echo 'pod not found' >&2; exit 4"),
        inline("echo never"),
    ];
    let results = runtime().block_on(run_phase(
        Phase::Setup,
        &steps,
        &context(dir.path(), dir.path()),
        &mut Vec::new(),
    ));
    assert_eq!(results.len(), 1);
    assert!(!phase_passed(&results));
    assert_eq!(results[0].reason(), "exit code 4");
    assert_eq!(results[0].output, "checking\n--- stderr ---\npod not found");
}

#[test]
fn continue_on_error_lets_the_phase_go_on() {
    let dir = tempfile::tempdir().unwrap();
    let mut tolerant = script(ScriptSource::Inline("exit 1".into()));
    tolerant.continue_on_error = true;
    let steps = vec![Step::Script(tolerant).into(), inline("echo next")];
    let results = runtime().block_on(run_phase(
        Phase::Cleanup,
        &steps,
        &context(dir.path(), dir.path()),
        &mut Vec::new(),
    ));
    assert_eq!(results.len(), 2);
    assert!(!results[0].passed());
    assert!(phase_passed(&results));
}

#[test]
fn a_step_that_hangs_times_out() {
    let dir = tempfile::tempdir().unwrap();
    let mut slow = script(ScriptSource::Inline("echo waiting; sleep 300".into()));
    slow.timeout = Duration::from_millis(300);
    let results = runtime().block_on(run_phase(
        Phase::Verify,
        &[Step::Script(slow).into()],
        &context(dir.path(), dir.path()),
        &mut Vec::new(),
    ));
    assert!(!results[0].passed());
    assert_eq!(results[0].reason(), "timed out after 300ms");
    assert_eq!(results[0].output, "waiting");
}

#[test]
fn a_missing_interpreter_is_a_clear_failure() {
    let dir = tempfile::tempdir().unwrap();
    let results = runtime().block_on(run_phase(
        Phase::Verify,
        &[inline("#!/no/such/interpreter\n")],
        &context(dir.path(), dir.path()),
        &mut Vec::new(),
    ));
    assert!(
        results[0]
            .reason()
            .contains("cannot start /no/such/interpreter"),
        "{:?}",
        results[0]
    );
}
