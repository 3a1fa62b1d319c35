//! The script agent's run: its arguments, its runtime, and the directives of its script
//! carried out in order, each request sent by `requests.rs`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::error::ScriptAgentError;
use super::requests::send_request;
use super::script::{Directive, parse_script};
use super::servers::ScriptServers;

/// Runs the script agent for the arguments after `script-agent` (`--mcp-config FILE PROMPT`)
/// on a runtime of its own; errors are printed on stderr. The exit code is the script's
/// (`exit CODE`, clamped to 0..=255), 1 when the script could not run, 2 for bad arguments.
pub fn main_with_args(args: impl IntoIterator<Item = String>) -> ExitCode {
    match parse_args(args) {
        Ok((mcp_config, prompt)) => run_blocking(&mcp_config, &prompt),
        Err(error) => {
            eprintln!("script-agent: {error}");
            ExitCode::from(crate::plumbing::exit::INVALID_CONFIG)
        }
    }
}

/// `--mcp-config FILE PROMPT` (or `--mcp-config=FILE`, in any order).
fn parse_args(
    args: impl IntoIterator<Item = String>,
) -> Result<(PathBuf, String), ScriptAgentError> {
    let mut args = args.into_iter();
    let (mut mcp_config, mut prompt) = (None, None);
    while let Some(arg) = args.next() {
        if arg == "--mcp-config" {
            let file = args
                .next()
                .ok_or_else(|| ScriptAgentError::Usage("--mcp-config needs a file".into()))?;
            mcp_config = Some(PathBuf::from(file));
        } else if let Some(file) = arg.strip_prefix("--mcp-config=") {
            mcp_config = Some(PathBuf::from(file));
        } else if prompt.is_none() {
            prompt = Some(arg);
        } else {
            return Err(ScriptAgentError::Usage(format!(
                "unexpected argument `{arg}`"
            )));
        }
    }
    match (mcp_config, prompt) {
        (Some(mcp_config), Some(prompt)) => Ok((mcp_config, prompt)),
        (None, _) => Err(ScriptAgentError::Usage("no --mcp-config".into())),
        (_, None) => Err(ScriptAgentError::Usage("no prompt".into())),
    }
}

/// Runs the script of `prompt` on a runtime of its own; an error is printed on stderr.
pub fn run_blocking(mcp_config: &Path, prompt: &str) -> ExitCode {
    let result = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(ScriptAgentError::Runtime)
        .and_then(|runtime| runtime.block_on(run(mcp_config, prompt)));
    match result {
        Ok(code) => ExitCode::from(code.clamp(0, 255) as u8),
        Err(error) => {
            eprintln!(
                "script-agent: {}",
                crate::plumbing::error_text::error_chain(&error)
            );
            ExitCode::FAILURE
        }
    }
}

/// Runs the script of `prompt` against the servers of `mcp_config`; returns the exit code.
pub async fn run(mcp_config: &Path, prompt: &str) -> Result<i32, ScriptAgentError> {
    let directives = parse_script(prompt)?;
    let mut servers = ScriptServers::from_config(mcp_config)?;
    let mut said = Vec::new();
    let mut last = String::new();
    let mut code = 0;
    let mut give_up = None;
    for directive in directives {
        match &directive {
            Directive::Say(text) => said.push(text.clone()),
            Directive::GiveUp(after) => give_up = *after,
            Directive::Reconnect { server } => servers.disconnect(server).await,
            Directive::Sleep(duration) => tokio::time::sleep(*duration).await,
            Directive::Exit(exit) => {
                code = *exit;
                break;
            }
            Directive::Call { server, .. }
            | Directive::Read { server, .. }
            | Directive::Prompt { server, .. }
            | Directive::Pick { server, .. }
            | Directive::List { server }
            | Directive::ListAll { server } => {
                let Some(client) = servers.client(server).await? else {
                    eprintln!(
                        "script-agent: server `{server}` is not available (not in {}): skipped",
                        mcp_config.display()
                    );
                    continue;
                };
                match send_request(&directive, client, give_up).await {
                    Ok(Some(result)) => last = crate::trace::result_text(&result),
                    Ok(None) => {}
                    Err(error) => eprintln!("script-agent: {directive:?} failed: {error}"),
                }
            }
        }
    }
    servers.close().await;
    if code == 0 {
        print_final_answer(&said, last);
    }
    Ok(code)
}

/// Prints the `say` lines, or else the text of the last result.
fn print_final_answer(said: &[String], last: String) {
    println!(
        "{}",
        if said.is_empty() {
            last
        } else {
            said.join("\n")
        }
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn arguments_are_the_mcp_config_and_the_prompt() {
        let (file, prompt) = parse_args(args(&["--mcp-config", "m.json", "say hi"])).unwrap();
        assert_eq!(
            (file.as_path(), prompt.as_str()),
            (Path::new("m.json"), "say hi")
        );
        let (file, _) = parse_args(args(&["say hi", "--mcp-config=m.json"])).unwrap();
        assert_eq!(file, Path::new("m.json"));
    }

    #[test]
    fn bad_arguments_are_usage_errors() {
        for words in [
            &["say hi"][..],
            &["--mcp-config", "m.json"],
            &["--mcp-config"],
            &["--mcp-config", "m.json", "one", "two"],
        ] {
            let error = parse_args(args(words)).unwrap_err();
            assert!(error.to_string().contains("usage:"), "{words:?}: {error}");
        }
    }
}
