//! What planning a large eval costs: `cargo bench --bench plan`.
//!
//! Generates an eval of 10,000 v1alpha2 task files (`MCPEVAL_BENCH_TASKS` changes the
//! number) in nested directories, matched by `tasks/**/*.yaml` in three task sets, two of them
//! with label selectors, so most files are matched by two or three sets. Prints the median
//! of `MCPEVAL_BENCH_RUNS` runs (default 7) of:
//!
//! - the wall time of `mcpeval check eval.yaml -- --list` (goal ≤ 0.3 s);
//! - the planning time of `--exact bench::task-04242` (`plan_task`, what nextest's one call
//!   per test pays; goal ≤ 30 ms);
//!
//! and, for scale, the wall time of `--list --exact bench::task-04242`, the planning time of
//! the whole eval (`plan_eval`) and of `--exact` on a task whose name is not its file stem.
//! `MCPEVAL_BENCH_DIR=dir` writes the eval there and keeps it (for profiling).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use mcpeval::config::load_eval;
use mcpeval::plan::{plan_eval, plan_task};

/// The task whose name is its file stem.
const BY_STEM: &str = "task-04242";
/// A task whose name is not its file stem (`tasks/7/7/task-07777.yaml`).
const RENAMED: &str = "renamed-07777";

fn main() {
    let tasks: usize = env_number("MCPEVAL_BENCH_TASKS").unwrap_or(10_000);
    let runs: usize = env_number("MCPEVAL_BENCH_RUNS").unwrap_or(7);
    let temp = tempfile::tempdir().expect("a temporary directory");
    let dir = std::env::var_os("MCPEVAL_BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| temp.path().to_path_buf());
    let started = Instant::now();
    generate(&dir, tasks);
    eprintln!(
        "generated {tasks} task files in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let eval = dir.join("eval.yaml");

    let listed = check(&eval, &["--list", "--format", "terse"]);
    assert_eq!(listed.lines().count(), tasks, "every task is listed once");
    let list = median(runs, || timed(|| check(&eval, &["--list"])));
    let exact_name = format!("bench::{BY_STEM}");
    let exact_args = [
        "--list",
        "--format",
        "terse",
        "--exact",
        exact_name.as_str(),
    ];
    assert_eq!(check(&eval, &exact_args), format!("{exact_name}: test\n"));
    let exact_wall = median(runs, || timed(|| check(&eval, &exact_args)));

    let plan_exact = median(runs, || planning(&eval, Some(BY_STEM)));
    let plan_renamed = median(runs, || planning(&eval, Some(RENAMED)));
    let plan_all = median(runs, || planning(&eval, None));

    println!("{tasks} task files, 3 task sets, median of {runs} runs:");
    println!(
        "  `--list` wall time:                        {:>8}",
        ms(list)
    );
    println!(
        "  `--exact` planning (name = file stem):     {:>8}",
        ms(plan_exact)
    );
    println!("for scale:");
    println!(
        "  `--list --exact` wall time:                {:>8}",
        ms(exact_wall)
    );
    println!(
        "  `--exact` planning (name ≠ file stem):     {:>8}",
        ms(plan_renamed)
    );
    println!(
        "  planning the whole eval (`plan_eval`):    {:>8}",
        ms(plan_all)
    );
}

fn env_number(name: &str) -> Option<usize> {
    std::env::var(name).ok().and_then(|n| n.parse().ok())
}

/// Writes `eval.yaml`, `mcp.yaml` and `tasks` task files under `tasks/<d>/<d>/`.
fn generate(dir: &Path, tasks: usize) {
    std::fs::create_dir_all(dir).expect("the eval directory");
    write(
        &dir.join("mcp.yaml"),
        "mcpServers:\n  k8s: {command: kubernetes-mcp-server}\n",
    );
    write(&dir.join("eval.yaml"), EVAL);
    for i in 0..tasks {
        let path = dir.join(format!(
            "tasks/{}/{}/task-{i:05}.yaml",
            i / 1000 % 10,
            i / 100 % 10
        ));
        write(&path, &task_file(i));
    }
}

const EVAL: &str = "\
kind: Eval
metadata: {name: bench}
config:
  agent: {type: builtin.claude-code}
  mcpConfigFile: mcp.yaml
  taskSets:
    - glob: tasks/**/*.yaml
      assertions: {maxToolCalls: 20}
    - glob: tasks/**/*.yaml
      labelSelector: {suite: k8s}
      assertions:
        toolsUsed: [{server: k8s, toolPattern: \"pods_.*\"}]
    - glob: tasks/**/*.yaml
      labelSelector: {level: hard}
      minPassRate: 0.8
      assertions: {noDuplicateCalls: true}
";

/// A task of realistic size: labels, a setup and a verify script, a prompt, a cleanup.
fn task_file(i: usize) -> String {
    let name = if i % 1000 == 777 {
        format!("renamed-{i:05}")
    } else {
        format!("task-{i:05}")
    };
    let suite = ["k8s", "helm"][i % 2];
    let level = ["easy", "medium", "hard"][i % 3];
    format!(
        "kind: Task
apiVersion: mcpchecker/v1alpha2
metadata:
  name: {name}
  difficulty: {level}
  labels:
    suite: {suite}
    level: {level}
    team: team-{team}
spec:
  limits: {{timeout: 2m}}
  setup:
    - script:
        inline: |
          kubectl create namespace ns-{i} --dry-run=client -o yaml | kubectl apply -f -
  prompt:
    inline: |
      List the pods in namespace ns-{i}. If no nginx pod is running there, create one
      named web-{i} from the image nginx:1.27 and report what you did.
  verify:
    - script:
        inline: |
          kubectl get pod web-{i} -n ns-{i} -o jsonpath='{{.status.phase}}' | grep -q Running
  cleanup:
    - script:
        inline: kubectl delete namespace ns-{i} --ignore-not-found
",
        team = i % 7
    )
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("a directory");
    std::fs::write(path, text).expect("a file");
}

/// Runs `mcpeval check eval -- args` and returns its stdout; it must succeed.
fn check(eval: &Path, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .arg("check")
        .arg(eval)
        .arg("--")
        .args(args)
        .output()
        .expect("mcpeval check");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 names")
}

/// The time planning takes (after loading the eval): of the task `task`, or of every task.
fn planning(eval: &Path, task: Option<&str>) -> Duration {
    let eval = load_eval(eval).expect("the eval loads");
    let started = Instant::now();
    let plan = match task {
        Some(task) => plan_task(eval, task),
        None => plan_eval(eval),
    }
    .expect("the eval plans");
    let elapsed = started.elapsed();
    match task {
        Some(task) => assert_eq!(plan.cases.len(), 1, "{task} is planned"),
        None => assert!(!plan.cases.is_empty()),
    }
    elapsed
}

fn timed<T>(work: impl FnOnce() -> T) -> Duration {
    let started = Instant::now();
    work();
    started.elapsed()
}

fn median(runs: usize, mut measure: impl FnMut() -> Duration) -> Duration {
    let mut times: Vec<Duration> = (0..runs.max(1)).map(|_| measure()).collect();
    times.sort();
    times[times.len() / 2]
}

fn ms(time: Duration) -> String {
    format!("{:.1} ms", time.as_secs_f64() * 1000.0)
}
