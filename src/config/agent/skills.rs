//! An eval's skills (`config.skills.sources`) and the agent they need: one that says where
//! skills go and which of its own tools loads one.

use std::path::PathBuf;

use serde::Deserialize;

use super::definition::Agent;
use crate::config::assertions::block::Assertions;
use crate::config::files::check::{Checker, resolve_against};

/// `config.skills`: skill directories copied into the agent's working directory.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::config) struct RawSkillsConfig {
    #[serde(default)]
    sources: Vec<RawSkillSource>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSkillSource {
    #[serde(rename = "type")]
    kind: Option<String>,
    path: Option<String>,
}

/// `config.skills.sources`: each `{type: path, path}` an existing directory.
pub(in crate::config) fn skill_sources(
    check: &mut Checker<'_>,
    skills: Option<RawSkillsConfig>,
) -> Vec<PathBuf> {
    let Some(skills) = skills else {
        return Vec::new();
    };
    let mut dirs = Vec::new();
    for (i, source) in skills.sources.into_iter().enumerate() {
        let at = format!("config.skills.sources[{i}]");
        match source.kind.as_deref() {
            Some("path") => {}
            Some(other) => {
                check.error(
                    format!("{at}.type"),
                    format!("unsupported skill source type `{other}`; expected path"),
                );
                continue;
            }
            None => {
                check.error(
                    format!("{at}.type"),
                    "missing required field; expected path",
                );
                continue;
            }
        }
        let Some(relative) = check.non_empty(&format!("{at}.path"), source.path.as_deref()) else {
            continue;
        };
        let dir = resolve_against(check.file(), relative);
        if dir.is_dir() {
            dirs.push(dir);
        } else {
            check.error(
                format!("{at}.path"),
                format!("directory not found: {}", dir.display()),
            );
        }
    }
    dirs
}

/// Skill sources and skill assertions need an agent that says where skills go and which
/// of its tools loads one (`skills` of its Agent file; Claude Code knows its own).
pub(in crate::config) fn check_skills_agent<'a>(
    check: &mut Checker<'_>,
    agent: &Agent,
    has_sources: bool,
    sets: impl IntoIterator<Item = (&'a str, &'a Assertions)>,
) {
    if agent.skills().is_some() {
        return;
    }
    let why = format!(
        "agent `{}` has no `skills: {{mountPath, toolName}}` in its Agent file, so mcpeval does not know where skills go or which tool loads one",
        agent.name()
    );
    if has_sources {
        check.error("config.skills", why.clone());
    }
    for (key_path, assertions) in sets {
        for (key, used) in [
            ("skillsLoaded", !assertions.skills_loaded.is_empty()),
            ("skillsNotLoaded", !assertions.skills_not_loaded.is_empty()),
        ] {
            if used {
                check.error(format!("{key_path}.assertions.{key}"), why.clone());
            }
        }
    }
}
