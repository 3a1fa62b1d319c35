//! What the arguments of `mcpeval init` say: the agent, the server to start (a command, a
//! URL with its headers, or the crate's binary, built when its variable does not name it)
//! and how the MCP config writes it; and the paths between the directories involved.

use std::path::{Path, PathBuf};

use super::discover::Launch;
use super::headers::parse_headers;
use super::names::bin_var;
use super::paths::normalize;
use super::{AgentChoice, InitArgs, InitError, ServerEntry, cargo};

/// What `--agent` names, before the eval's directory is known.
pub(super) enum AgentInput {
    Builtin(AgentChoice),
    File(PathBuf),
}

pub(super) fn agent_input(args: &InitArgs, cwd: &Path) -> Result<AgentInput, InitError> {
    if let Some(kind) = args.agent.strip_prefix("builtin.") {
        let Some(builtin) = crate::config::builtin_kind(kind) else {
            let known: Vec<String> = crate::config::builtin_names()
                .iter()
                .map(|t| format!("builtin.{t}"))
                .collect();
            return Err(InitError::Usage(format!(
                "--agent {}: no such builtin agent; expected one of {}, or the path of an Agent file",
                args.agent,
                known.join(", ")
            )));
        };
        let needs_model = builtin.provider.is_none();
        match &args.model {
            Some(model) if needs_model => {
                crate::config::llm_agent_model(model)
                    .map_err(|e| InitError::Usage(format!("--model {model}: {e}")))?;
            }
            None if needs_model => {
                return Err(InitError::Usage(format!(
                    "--agent {} needs --model provider:model (e.g. openai:gpt-4o)",
                    args.agent
                )));
            }
            _ => {}
        }
        return Ok(AgentInput::Builtin(AgentChoice::Builtin {
            kind: kind.to_owned(),
            model: args.model.clone(),
        }));
    }
    if args.model.is_some() {
        return Err(InitError::Usage(
            "--model is for builtin agents; an Agent file names its own model".into(),
        ));
    }
    let path = normalize(&cwd.join(&args.agent));
    crate::config::load_agent_file(&path).map_err(|errors| {
        InitError::Usage(format!(
            "--agent {}: not a usable Agent file:\n{errors}",
            args.agent
        ))
    })?;
    Ok(AgentInput::File(path))
}

/// What to start, how the MCP config writes it, and the value of the binary's variable.
pub(super) async fn server(
    args: &InitArgs,
    dir: &Path,
    cwd: &Path,
    in_crate: bool,
) -> Result<(Launch, ServerEntry, Option<String>), InitError> {
    let env_lookup = |name: &str| std::env::var(name).ok();
    if !args.header.is_empty() && args.url.is_none() {
        return Err(InitError::Usage(
            "--header is for an HTTP server: pass it with --url URL (a stdio server started \
             with --command takes its settings from its arguments or environment)"
                .into(),
        ));
    }
    if let Some(line) = &args.command {
        let (launch, entry) = command_server(line, &env_lookup)?;
        return Ok((launch, entry, None));
    }
    if let Some(url) = &args.url {
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(InitError::Usage(format!(
                "--url {url}: expected the http:// or https:// URL of a streamable HTTP endpoint"
            )));
        }
        let headers = parse_headers(&args.header, &env_lookup)?;
        return Ok((
            Launch::Http {
                url: url.clone(),
                headers: headers.clone(),
            },
            ServerEntry::Http {
                url: url.clone(),
                headers,
            },
            None,
        ));
    }
    if !in_crate {
        let manifest = dir.join("Cargo.toml");
        let why = if manifest.exists() {
            format!("{} has no [package]", manifest.display())
        } else {
            format!("no {}", manifest.display())
        };
        let bin = if args.bin.is_some() {
            "--bin is for a Rust crate, and there is "
        } else {
            ""
        };
        return Err(InitError::Usage(format!(
            "no server to start: pass --command \"<cmd> <args>\" (a stdio server) or --url URL \
             (streamable HTTP), or run it in a Rust crate ({bin}{why})"
        )));
    }
    let package = cargo::package(dir).await?;
    let bin = cargo::choose_bin(&package, args.bin.as_deref())?;
    let var = bin_var(&bin);
    let path = match std::env::var(&var) {
        Ok(path) if !path.is_empty() => normalize(&cwd.join(path)),
        _ => cargo::build(&package, &bin).await?,
    };
    let path = path.display().to_string();
    let launch = Launch::Stdio {
        program: path.clone(),
        args: Vec::new(),
        env: vec![(var.clone(), path.clone())],
    };
    Ok((launch, ServerEntry::Binary { bin, var }, Some(path)))
}

/// `--command LINE`: how to start it (its words with the variables expanded) and the MCP
/// config's entry (its words as written).
fn command_server(
    line: &str,
    env_lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<(Launch, ServerEntry), InitError> {
    let words = shlex::split(line)
        .filter(|words| !words.is_empty())
        .ok_or_else(|| InitError::Usage(format!("--command {line:?}: expected a command line such as \"npx -y @modelcontextprotocol/server-everything stdio\" (quotes closed)")))?;
    let expanded = words
        .iter()
        .map(|word| crate::config::expand_vars(word, env_lookup))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| InitError::Usage(format!("--command: {e}")))?;
    let launch = Launch::Stdio {
        program: expanded[0].clone(),
        args: expanded[1..].to_vec(),
        env: Vec::new(),
    };
    let entry = ServerEntry::Stdio {
        command: words[0].clone(),
        args: words[1..].to_vec(),
    };
    Ok((launch, entry))
}

/// `Cargo.toml` in DIR, when it is a package's.
pub(super) fn read_manifest(manifest: &Path) -> Result<Option<toml_edit::DocumentMut>, InitError> {
    let Ok(text) = std::fs::read_to_string(manifest) else {
        return Ok(None);
    };
    let doc = cargo::parse_manifest(manifest, &text)?;
    Ok(doc.contains_key("package").then_some(doc))
}
