//! `config.variants`: one eval run several ways (another agent or model, other variables,
//! rewritten tool descriptions, decoy tools, no server at all), each task × variant a test
//! of its own (`<eval>::<task>@<variant>`), the variants compared with the baseline.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

use super::agent::definition::Agent;
use super::agent::file::RawAgentRef;
use super::files::check::Checker;
use super::mcp::McpConfig;

/// One variant, validated.
#[derive(Debug, Clone)]
pub struct Variant {
    /// Its name: the part of its test names after the last `@`.
    pub name: String,
    /// The variant the others are compared with.
    pub baseline: bool,
    /// Its own agent; the eval's when `None`.
    pub agent: Option<Agent>,
    /// Variables for every server, agent and script of its runs, and for `${VAR}` in the
    /// MCP config (before the harness's and the process's).
    pub env: Vec<(String, String)>,
    /// Tool definitions rewritten in the `tools/list` answers the agent sees, by server and
    /// tool.
    pub tool_overrides: BTreeMap<String, BTreeMap<String, ToolOverride>>,
    /// Tools added to a server's `tools/list` answers, by server.
    pub decoys: BTreeMap<String, Vec<Decoy>>,
    /// `servers: none`: the agent gets no MCP server.
    pub no_servers: bool,
    /// The MCP config with `${VAR}` expanded by this variant's `env` first (when it has
    /// any); the eval's otherwise.
    pub mcp: Option<McpConfig>,
    /// `protocolVersion`: the MCP protocol version the proxy speaks to the servers (one
    /// mcpeval speaks); the agent's own when `None`.
    pub protocol_version: Option<String>,
}

impl Variant {
    /// The `<server>/<tool>` names of its decoys.
    pub fn decoy_names(&self) -> Vec<String> {
        (self.decoys.iter())
            .flat_map(|(server, decoys)| decoys.iter().map(move |d| format!("{server}/{}", d.name)))
            .collect()
    }
}

/// What a variant changes in one tool's definition.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolOverride {
    /// A new `title`.
    pub title: Option<String>,
    /// A new `description`.
    pub description: Option<String>,
    /// New `description`s of input-schema properties, by property.
    pub properties: BTreeMap<String, String>,
}

impl ToolOverride {
    /// The fields it changes: `title`, `description`,
    /// `inputSchema.properties.<p>.description`.
    pub fn fields(&self) -> Vec<String> {
        let mut fields = Vec::new();
        if self.title.is_some() {
            fields.push("title".to_owned());
        }
        if self.description.is_some() {
            fields.push("description".to_owned());
        }
        fields.extend(
            (self.properties.keys()).map(|p| format!("inputSchema.properties.{p}.description")),
        );
        fields
    }
}

/// A tool a variant adds to a server's list; a call of it is answered with an error result.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoy {
    /// Its name.
    pub name: String,
    /// Its description.
    pub description: Option<String>,
    /// Its input schema (`{"type": "object"}` when not written).
    pub input_schema: serde_json::Map<String, Value>,
}

/// `config.variants[i]` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawVariant {
    name: Option<String>,
    #[serde(default)]
    baseline: bool,
    agent: Option<RawAgentRef>,
    env: Option<BTreeMap<String, Value>>,
    tool_overrides: Option<BTreeMap<String, BTreeMap<String, RawToolOverride>>>,
    decoys: Option<BTreeMap<String, Vec<RawDecoy>>>,
    servers: Option<String>,
    protocol_version: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawToolOverride {
    title: Option<String>,
    description: Option<String>,
    #[serde(rename = "inputSchema")]
    input_schema: Option<RawSchemaOverride>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSchemaOverride {
    #[serde(default)]
    properties: BTreeMap<String, RawPropertyOverride>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPropertyOverride {
    description: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDecoy {
    name: Option<String>,
    description: Option<String>,
    #[serde(rename = "inputSchema")]
    input_schema: Option<Value>,
}

/// Loads the eval's MCP config again with a variant's variables first.
pub(super) type ReloadMcp<'e> =
    &'e dyn Fn(&mut Checker<'_>, &[(String, String)]) -> Option<McpConfig>;

/// What validating the variants needs of the eval.
pub(super) struct VariantContext<'e> {
    /// The servers of the eval's MCP config.
    pub servers: Option<Vec<String>>,
    /// Loads the MCP config again with a variant's variables first.
    pub reload_mcp: ReloadMcp<'e>,
}

/// Validates `config.variants`: names (`[A-Za-z0-9._-]+`, unique), at most one `baseline`
/// (the first variant when none says so), each variant's parts.
pub(super) fn variants(
    check: &mut Checker<'_>,
    raw: Option<Vec<RawVariant>>,
    context: &VariantContext<'_>,
) -> Vec<Arc<Variant>> {
    let Some(raw) = raw else {
        return Vec::new();
    };
    if raw.is_empty() {
        check.error(
            "config.variants",
            "is empty; list at least one variant, or leave `variants` out",
        );
        return Vec::new();
    }
    let mut seen = BTreeSet::new();
    let mut baselines = Vec::new();
    let mut variants = Vec::new();
    for (index, raw) in raw.into_iter().enumerate() {
        let key = format!("config.variants[{index}]");
        let Some(name) = variant_name(check, &key, raw.name.as_deref()) else {
            continue;
        };
        if !seen.insert(name.clone()) {
            check.error(
                format!("{key}.name"),
                format!("duplicate variant name `{name}`; each variant needs its own name"),
            );
        }
        if raw.baseline {
            baselines.push(name.clone());
        }
        if let Some(variant) = variant(check, &key, name, raw, context) {
            variants.push(variant);
        }
    }
    if baselines.len() > 1 {
        check.error(
            "config.variants",
            format!(
                "{} variants say `baseline: true` ({}); one variant is the baseline the others are compared with",
                baselines.len(),
                baselines.join(", ")
            ),
        );
    }
    if baselines.is_empty()
        && let Some(first) = variants.first_mut()
    {
        first.baseline = true;
    }
    variants.into_iter().map(Arc::new).collect()
}

fn variant_name(check: &mut Checker<'_>, key: &str, name: Option<&str>) -> Option<String> {
    let name = check.non_empty(&format!("{key}.name"), name)?;
    let plain = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if !plain {
        check.error(
            format!("{key}.name"),
            format!(
                "{name:?} is the end of test names (`<eval>::<task>@{name}`): use only letters, digits, `.`, `_` and `-`"
            ),
        );
        return None;
    }
    Some(name.to_owned())
}

fn variant(
    check: &mut Checker<'_>,
    key: &str,
    name: String,
    raw: RawVariant,
    context: &VariantContext<'_>,
) -> Option<Variant> {
    let errors_before = check.error_count();
    let no_servers = match raw.servers.as_deref() {
        None => false,
        Some("none") => true,
        Some(other) => {
            check.error(
                format!("{key}.servers"),
                format!("unknown value `{other}`; expected `none` (the agent gets no MCP server)"),
            );
            false
        }
    };
    if no_servers {
        for (field, present) in [
            ("toolOverrides", raw.tool_overrides.is_some()),
            ("decoys", raw.decoys.is_some()),
            ("protocolVersion", raw.protocol_version.is_some()),
        ] {
            if present {
                check.error(
                    format!("{key}.{field}"),
                    "has nothing to change: this variant says `servers: none`",
                );
            }
        }
    }
    let agent = raw
        .agent
        .and_then(|agent| agent.validate_at(check, &format!("{key}.agent")));
    let env = env(check, key, raw.env.unwrap_or_default());
    let servers = context.servers.as_deref();
    let tool_overrides = tool_overrides(check, key, raw.tool_overrides, servers);
    let decoys = decoys(check, key, raw.decoys, servers);
    let protocol_version = raw.protocol_version.filter(|version| {
        let known = crate::plumbing::protocol::spoken_versions();
        let spoken = known.contains(&version.as_str());
        if !spoken {
            check.error(
                format!("{key}.protocolVersion"),
                format!(
                    "`{version}` is not a protocol version mcpeval speaks; expected one of {}",
                    known.join(", ")
                ),
            );
        }
        spoken
    });
    let mcp = if env.is_empty() || no_servers {
        None
    } else {
        (context.reload_mcp)(check, &env)
    };
    (check.error_count() == errors_before).then_some(Variant {
        name,
        baseline: raw.baseline,
        agent,
        env,
        tool_overrides,
        decoys,
        no_servers,
        mcp,
        protocol_version,
    })
}

/// `env`: names to strings (numbers and booleans are written as YAML writes them).
fn env(check: &mut Checker<'_>, key: &str, raw: BTreeMap<String, Value>) -> Vec<(String, String)> {
    let mut env = Vec::new();
    for (name, value) in raw {
        let text = match value {
            Value::String(text) => text,
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            other => {
                check.error(
                    format!("{key}.env.{name}"),
                    format!("expected a string, found {other}"),
                );
                continue;
            }
        };
        if name.is_empty() || name.contains('=') || name.contains('\0') {
            check.error(
                format!("{key}.env"),
                format!("{name:?} is not a variable name"),
            );
            continue;
        }
        env.push((name, text));
    }
    env
}

/// Checks that `server` is one of the eval's servers (when they are known).
fn known_server(check: &mut Checker<'_>, key: &str, server: &str, servers: Option<&[String]>) {
    let servers: Option<Vec<&str>> = servers.map(|s| s.iter().map(String::as_str).collect());
    check.known_server(key, server, servers.as_deref());
}

type RawOverrides = BTreeMap<String, BTreeMap<String, RawToolOverride>>;

fn tool_overrides(
    check: &mut Checker<'_>,
    key: &str,
    raw: Option<RawOverrides>,
    servers: Option<&[String]>,
) -> BTreeMap<String, BTreeMap<String, ToolOverride>> {
    let mut overrides = BTreeMap::new();
    for (server, tools) in raw.unwrap_or_default() {
        let server_key = format!("{key}.toolOverrides.{server}");
        known_server(check, &server_key, &server, servers);
        let mut by_tool = BTreeMap::new();
        for (tool, raw) in tools {
            let tool_key = format!("{server_key}.{tool}");
            let properties: BTreeMap<String, String> = (raw.input_schema)
                .map(|schema| schema.properties)
                .unwrap_or_default()
                .into_iter()
                .filter_map(|(property, raw)| match raw.description {
                    Some(description) => Some((property, description)),
                    None => {
                        check.error(
                            format!("{tool_key}.inputSchema.properties.{property}"),
                            "missing required field `description` (the one field of a property a variant changes)",
                        );
                        None
                    }
                })
                .collect();
            let tool_override = ToolOverride {
                title: raw.title,
                description: raw.description,
                properties,
            };
            if tool_override.fields().is_empty() {
                check.error(
                    tool_key,
                    "changes nothing; give a `description`, a `title` or `inputSchema.properties.<p>.description`",
                );
                continue;
            }
            by_tool.insert(tool, tool_override);
        }
        overrides.insert(server, by_tool);
    }
    overrides
}

fn decoys(
    check: &mut Checker<'_>,
    key: &str,
    raw: Option<BTreeMap<String, Vec<RawDecoy>>>,
    servers: Option<&[String]>,
) -> BTreeMap<String, Vec<Decoy>> {
    let mut decoys = BTreeMap::new();
    for (server, raw_decoys) in raw.unwrap_or_default() {
        let server_key = format!("{key}.decoys.{server}");
        known_server(check, &server_key, &server, servers);
        let mut names = BTreeSet::new();
        let mut list = Vec::new();
        for (index, raw) in raw_decoys.into_iter().enumerate() {
            let decoy_key = format!("{server_key}[{index}]");
            let Some(name) = check.non_empty(&format!("{decoy_key}.name"), raw.name.as_deref())
            else {
                continue;
            };
            let name = name.to_owned();
            if !names.insert(name.clone()) {
                check.error(
                    format!("{decoy_key}.name"),
                    format!("duplicate decoy `{name}` of server `{server}`"),
                );
                continue;
            }
            let input_schema = match raw.input_schema {
                None => serde_json::Map::from_iter([("type".to_owned(), "object".into())]),
                Some(Value::Object(schema)) => schema,
                Some(other) => {
                    check.error(
                        format!("{decoy_key}.inputSchema"),
                        format!("expected a JSON Schema object, found {other}"),
                    );
                    continue;
                }
            };
            list.push(Decoy {
                name,
                description: raw.description,
                input_schema,
            });
        }
        decoys.insert(server, list);
    }
    decoys
}
