//! What held before this suite existed, kept held: proxies on loopback only, parallel
//! tasks losing no call, hanging agents and servers reaped at the task timeout, and no
//! secret in anything a run leaves behind. (Foreign `Host` headers: `origin.rs`.)

use mcpeval::llm_proxy::{LlmApi, LlmProxy, LlmProxyConfig, RecordMode};
use mcpeval::proxy::{CallRecorder, Proxy};

use crate::common::{
    check_fifty_in_parallel, files, files_under, fixture, mcpeval, mcpeval_with, processes_with,
    results, text,
};
use crate::support::peers::{test_server_binary, test_server_upstream};

/// An eval of the script agent over the MCP config `mcp`, tasks from `*.task.yaml`.
fn eval(name: &str, mcp: &str, extra: &str) -> String {
    format!(
        "kind: Eval\nmetadata: {{name: {name}}}\nconfig:\n  agent: {{type: file, path: {:?}}}\n  \
         mcpConfigFile: {mcp:?}\n  snapshot: off\n{extra}  taskSets:\n    - glob: \"*.task.yaml\"\n",
        fixture("agent.yaml"),
    )
}

/// A v1alpha2 task: `spec` holds `limits` (e.g. `  limits: {timeout: 2s}\n`) and the prompt.
fn task(name: &str, prompt: &str, limits: &str) -> String {
    let prompt: Vec<String> = prompt.lines().map(|line| format!("      {line}")).collect();
    format!(
        "kind: Task\napiVersion: mcpchecker/v1alpha2\nmetadata: {{name: {name}}}\nspec:\n{limits}  prompt:\n    inline: |\n{}\n",
        prompt.join("\n")
    )
}

/// Expected: the MCP proxy and the LLM proxy listen on 127.0.0.1 only; the machine's
/// other addresses refuse the connection.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proxies_listen_on_loopback_only() {
    let logs = tempfile::tempdir().unwrap();
    let upstream = test_server_upstream();
    let mcp = Proxy::start("local", upstream, &CallRecorder::new(), logs.path())
        .await
        .unwrap();
    let mut config = LlmProxyConfig::new(LlmApi::Anthropic, logs.path().join("c.json"), "t");
    config.mode = RecordMode::Passthrough;
    let llm = LlmProxy::start(config).unwrap();
    let other_address = non_loopback_address();
    for url in [mcp.url(), llm.base_url()] {
        let address: std::net::SocketAddr = url
            .trim_start_matches("http://")
            .split('/')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(address.ip().is_loopback(), "observed {url}");
        if let Some(ip) = other_address {
            let elsewhere = std::net::SocketAddr::new(ip, address.port());
            let connected = tokio::net::TcpStream::connect(elsewhere).await;
            assert!(connected.is_err(), "{url} answered on {elsewhere}");
        }
    }
    let _ = llm.finish().await;
    mcp.shutdown().await;
}

/// The address this machine would use to reach the outside, when it has one.
fn non_loopback_address() -> Option<std::net::IpAddr> {
    let socket = std::net::UdpSocket::bind("0.0.0.0:0").ok()?;
    socket.connect("10.255.255.255:9").ok()?;
    let ip = socket.local_addr().ok()?.ip();
    (!ip.is_loopback() && !ip.is_unspecified()).then_some(ip)
}

/// Expected: 50 parallel tasks of 20 calls each, all at once, pass with every call
/// recorded in its own task's results, in order.
#[test]
fn fifty_parallel_tasks_of_twenty_calls_lose_nothing() {
    let prompt = |task: usize| -> String {
        (0..20)
            .map(|call| format!("call demo echo {{\"text\": \"{task}-{call}\"}}\n"))
            .collect()
    };
    let tasks: Vec<(String, String)> = (0..50)
        .map(|n| {
            (
                format!("{n:02}.task.yaml"),
                task(&format!("t{n:02}"), &prompt(n), ""),
            )
        })
        .collect();
    let mcp = fixture("mcp-config.yaml").display().to_string();
    let eval_text = eval("load", &mcp, "  parallel: true\n");
    let mut list = vec![("eval.yaml", eval_text.as_str())];
    list.extend(
        tasks
            .iter()
            .map(|(path, text)| (path.as_str(), text.as_str())),
    );
    for result in check_fifty_in_parallel(&list) {
        let name = result["taskName"].as_str().unwrap();
        let n: usize = name[1..].parse().unwrap();
        let calls = result["callHistory"]["toolCalls"].as_array().unwrap();
        let texts: Vec<String> = calls
            .iter()
            .map(|call| call["arguments"]["text"].as_str().unwrap().to_owned())
            .collect();
        let expected: Vec<String> = (0..20).map(|call| format!("{n}-{call}")).collect();
        assert_eq!(texts, expected, "observed the calls of {name}");
    }
}

/// Expected: an agent that never ends and a server that never answers are stopped at the
/// task timeout, with their process groups: no process of the run is left afterwards, not
/// even the background processes each of them started.
#[test]
fn a_hanging_agent_and_a_hanging_server_are_reaped_at_the_timeout() {
    // `sleep` takes fractional seconds: a number no other process has marks ours.
    let marker = format!("3000.{}", std::process::id());
    let agent = format!(
        "kind: Agent\nmetadata: {{name: hanging}}\ncommands:\n  runPrompt: 'sleep {marker} & \
         \"$MCPEVAL_BIN\" script-agent --mcp-config {{{{ .McpServerFileArgs }}}} {{{{ .Prompt }}}}'\n"
    );
    let mcp = format!(
        "mcpServers:\n  slowpoke:\n    command: sh\n    args: [-c, 'sleep {marker} & exec \"$0\"', {:?}]\n",
        test_server_binary()
    );
    let limits = "  limits: {timeout: 2s}\n";
    let hanging_agent = task("agent", "sleep 300", limits);
    let hanging_server = task(
        "server",
        "call slowpoke slow {\"steps\": 100000, \"ms\": 1000}",
        limits,
    );
    let eval_text =
        eval("hang", "mcp.yaml", "").replace(&format!("{:?}", fixture("agent.yaml")), "agent.yaml");
    let dir = files(&[
        ("eval.yaml", &eval_text),
        ("agent.yaml", &agent),
        ("mcp.yaml", &mcp),
        ("agent.task.yaml", &hanging_agent),
        ("server.task.yaml", &hanging_server),
    ]);
    let output = tempfile::tempdir().unwrap();
    let out = mcpeval(dir.path(), output.path(), &["check", "eval.yaml"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(101), "{stdout}");
    assert_eq!(
        stdout
            .matches("timed out: the task took longer than its timeout")
            .count(),
        2,
        "{stdout}"
    );
    let server_calls = results(output.path())
        .iter()
        .map(|result| result["callHistory"]["toolCalls"].as_array().unwrap().len())
        .sum::<usize>();
    assert_eq!(server_calls, 1, "the server task reached its server");
    assert_eq!(
        processes_with(&marker),
        Vec::<String>::new(),
        "left running"
    );
}

/// Expected: a secret given to servers through the environment (a stdio server's `env`, an
/// HTTP server's header and its URL's query) appears in no file of the run and in none of
/// its output, even when the task fails and its message shows the server's URL and
/// failure, and when the server prints its key on stderr (its log in the run directory).
/// Observed before: the URL, with its key, in the failure message and the results; the
/// key in the server's log.
#[test]
fn no_secret_reaches_results_logs_or_messages() {
    let secret = "sk-reliability-7f3a9c";
    let mcp = format!(
        "mcpServers:\n  local:\n    command: {:?}\n    env: {{TEST_SERVER_SECRET: \"${{SECRET}}\"}}\n  \
         remote:\n    type: http\n    url: http://127.0.0.1:9/mcp?key=${{SECRET}}\n    headers: {{Authorization: \"Bearer ${{SECRET}}\"}}\n",
        test_server_binary()
    );
    let prompt = "call local echo {\"text\": \"hi\"}\ncall remote echo {\"text\": \"hi\"}";
    let eval_text = eval("secrets", "mcp.yaml", "");
    let task_text = task("t", prompt, "");
    let dir = files(&[
        ("eval.yaml", &eval_text),
        ("mcp.yaml", &mcp),
        ("t.task.yaml", &task_text),
    ]);
    let output = tempfile::tempdir().unwrap();
    let env = [("SECRET", secret)];
    let out = mcpeval_with(dir.path(), output.path(), &["check", "eval.yaml"], &env);
    let printed = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(
        printed.contains("remote"),
        "the run reached the servers: {printed}"
    );
    assert!(!printed.contains(secret), "printed: {printed}");
    let written = files_under(output.path());
    let log = written
        .iter()
        .find(|file| file.ends_with("local.stderr.log"));
    let log = log.unwrap_or_else(|| panic!("no log of the local server in {written:?}"));
    let logged = std::fs::read_to_string(output.path().join(log)).unwrap();
    assert!(logged.contains("connecting with key"), "{logged}");
    for file in written {
        let content = std::fs::read(output.path().join(&file)).unwrap();
        assert!(
            !String::from_utf8_lossy(&content).contains(secret),
            "{file} holds the secret"
        );
    }
}
