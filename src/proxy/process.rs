//! Starting a stdio MCP server in its own process group, and making sure it goes away.

use std::fs::OpenOptions;
use std::path::Path;
use std::process::Stdio;

use process_wrap::tokio::{CommandWrap, KillOnDrop, ProcessGroup};
use rmcp::transport::TokioChildProcess;

pub(crate) use crate::process::ProcessGroupGuard;

use super::error::ProxyError;
use super::spec::Upstream;

/// A started stdio server: the transport rmcp talks over, and the guard of its process group.
pub(crate) struct StartedServer {
    pub(crate) transport: TokioChildProcess,
    pub(crate) group: ProcessGroupGuard,
}

/// Starts `command` as the leader of a new process group, stdin/stdout piped, stderr
/// appended to `log`.
pub(crate) fn spawn_stdio(
    server: &str,
    upstream: &Upstream,
    log: &Path,
) -> Result<StartedServer, ProxyError> {
    let Upstream::Stdio {
        command,
        args,
        env,
        cwd,
    } = upstream
    else {
        return Err(ProxyError::Spawn {
            server: server.to_owned(),
            command: upstream.describe(),
            source: std::io::Error::other("not a stdio server"),
        });
    };
    let stderr = OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .map_err(|source| ProxyError::Log {
            server: server.to_owned(),
            log: log.to_owned(),
            source,
        })?;
    let mut cmd = tokio::process::Command::new(command);
    cmd.args(args);
    cmd.envs(env.iter().map(|(key, value)| (key, value)));
    if let Some(cwd) = cwd {
        cmd.current_dir(cwd);
    }
    let mut wrap = CommandWrap::from(cmd);
    wrap.wrap(ProcessGroup::leader()).wrap(KillOnDrop);
    let spawn_error = |source| ProxyError::Spawn {
        server: server.to_owned(),
        command: upstream.describe(),
        source,
    };
    let (transport, _stderr) = TokioChildProcess::builder(wrap)
        .stderr(Stdio::from(stderr))
        .spawn()
        .map_err(spawn_error)?;
    let pid = transport
        .id()
        .ok_or_else(|| spawn_error(std::io::Error::other("the process has no id")))?;
    Ok(StartedServer {
        transport,
        group: ProcessGroupGuard::new(pid),
    })
}
