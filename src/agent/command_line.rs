//! A rendered agent command line ([`CommandLine`]) and the values of a `runPrompt`'s fields
//! ([`Values`]), shared by the word-splitting runner (`file.rs`) and the shell one
//! (`shell.rs`).

use std::ffi::OsString;

use crate::config::template::Field;

/// A rendered agent command: the program and its arguments, and the variables it needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandLine {
    /// The program, then its arguments.
    pub argv: Vec<OsString>,
    /// Variables that hold the values a shell script refers to (`MCPEVAL_PROMPT`, …).
    pub env: Vec<(String, String)>,
}

/// The values of a `runPrompt`'s fields.
pub(super) struct Values<'a> {
    /// `.Prompt`.
    pub prompt: &'a str,
    /// `.McpServerFileArgs`: the words of `argTemplateMcpServer`, rendered once or per server.
    pub mcp_server_args: Vec<String>,
    /// `.AllowedToolArgs`: the words of `argTemplateAllowedTools`, per allowed tool.
    pub allowed_tools: Vec<Vec<String>>,
    /// `allowedToolsJoinSeparator`.
    pub separator: &'a str,
}

impl Values<'_> {
    /// The separate words a field becomes when it is a word of its own: the list fields
    /// (`.AllowedToolArgs` only with a blank separator); `None` for a single value.
    pub fn spread(&self, field: Field) -> Option<Vec<&str>> {
        match field {
            Field::McpServerFileArgs => Some(self.mcp_server_args.iter().map(|s| &**s).collect()),
            Field::AllowedToolArgs if self.separator.trim().is_empty() => {
                Some(self.allowed_tools.iter().flatten().map(|s| &**s).collect())
            }
            _ => None,
        }
    }

    /// The one text a field stands for: list items joined (by spaces, or the separator).
    pub fn text(&self, field: Field) -> String {
        match field {
            Field::Prompt => self.prompt.to_owned(),
            Field::McpServerFileArgs => self.mcp_server_args.join(" "),
            Field::AllowedToolArgs => {
                let tools: Vec<String> = self.allowed_tools.iter().map(|w| w.join(" ")).collect();
                tools.join(self.separator)
            }
            // Load-time validation allows no other field in runPrompt.
            _ => String::new(),
        }
    }
}
