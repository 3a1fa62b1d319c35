//! No process is left behind after a hanging agent and servers that ignore SIGTERM.

use super::{check, stdout};

/// Processes (not zombies) whose environment holds `marker`.
fn processes_with(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let path = entry.path();
        let Ok(environ) = std::fs::read(path.join("environ")) else {
            continue;
        };
        if !environ
            .split(|b| *b == 0)
            .any(|var| var == marker.as_bytes())
        {
            continue;
        }
        let stat = std::fs::read_to_string(path.join("stat")).unwrap_or_default();
        let zombie = stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z'));
        if !zombie {
            let cmdline = std::fs::read(path.join("cmdline")).unwrap_or_default();
            found.push(format!(
                "{}: {}",
                entry.file_name().to_string_lossy(),
                String::from_utf8_lossy(&cmdline).replace('\0', " ")
            ));
        }
    }
    found
}

#[test]
fn no_process_is_left_after_a_hanging_agent_and_servers_that_ignore_sigterm() {
    let marker = format!("MCPEVAL_LEAK_MARKER=leak-{}", std::process::id());
    let (key, value) = marker.split_once('=').unwrap();
    let out = check("tests/fixtures/leak/eval.yaml", &[], &[(key, value)]);
    assert_eq!(out.status.code(), Some(101), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("in the agent phase"),
        "{}",
        stdout(&out)
    );
    assert!(
        stdout(&out).contains("#1 tool stubborn/echo"),
        "{}",
        stdout(&out)
    );
    // Killed groups may take a moment to be reaped.
    let mut left = processes_with(&marker);
    for _ in 0..50 {
        if left.is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        left = processes_with(&marker);
    }
    assert!(left.is_empty(), "left behind: {left:#?}");
}
