//! The four list methods (`tools/list`, `resources/list`, `resources/templates/list` and
//! `prompts/list`) as one: what tells them apart is the request sent, the variant of the
//! server's result that holds the answer, and the items a discovery event records.

use std::sync::Arc;

use rmcp::ErrorData as McpError;
use rmcp::model::{
    ClientRequest, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, Prompt, RequestOptionalParam, Resource,
    ResourceTemplate, ServerResult, Tool,
};
use serde::Serialize;

use crate::proxy::server::{Connection, result_as, tool_list_as};
use crate::trace::ListKind;

/// The answer to a list method: one page of a server's tools, resources, resource
/// templates or prompts.
pub(crate) trait Listing: Sized {
    /// The list the method asks for.
    const KIND: ListKind;
    /// One item of the list.
    type Item: Serialize;
    /// The request for the page `params` asks for, as received.
    fn request(params: Option<PaginatedRequestParams>) -> ClientRequest;
    /// The answer in the server's `result`, which rmcp's untagged decoding may have filed
    /// under another variant.
    fn answer(result: ServerResult, connection: Option<&Arc<Connection>>)
    -> Result<Self, McpError>;
    /// The page's items.
    fn items(&self) -> &[Self::Item];
}

/// The cursor of the page asked for.
pub(crate) fn cursor(params: &Option<PaginatedRequestParams>) -> Option<String> {
    params.as_ref().and_then(|p| p.cursor.clone())
}

fn request<M: Default>(
    params: Option<PaginatedRequestParams>,
) -> RequestOptionalParam<M, PaginatedRequestParams> {
    RequestOptionalParam {
        method: M::default(),
        params,
        extensions: Default::default(),
    }
}

impl Listing for ListToolsResult {
    const KIND: ListKind = ListKind::Tools;
    type Item = Tool;

    fn request(params: Option<PaginatedRequestParams>) -> ClientRequest {
        ClientRequest::ListToolsRequest(request(params))
    }

    /// An answer with no tool list is the server's failure (see [`tool_list_as`]).
    fn answer(
        result: ServerResult,
        connection: Option<&Arc<Connection>>,
    ) -> Result<Self, McpError> {
        match result {
            ServerResult::ListToolsResult(result) => Ok(result),
            other => tool_list_as(connection, other),
        }
    }

    fn items(&self) -> &[Tool] {
        &self.tools
    }
}

impl Listing for ListResourcesResult {
    const KIND: ListKind = ListKind::Resources;
    type Item = Resource;

    fn request(params: Option<PaginatedRequestParams>) -> ClientRequest {
        ClientRequest::ListResourcesRequest(request(params))
    }

    fn answer(result: ServerResult, _: Option<&Arc<Connection>>) -> Result<Self, McpError> {
        match result {
            ServerResult::ListResourcesResult(result) => Ok(result),
            other => result_as(other),
        }
    }

    fn items(&self) -> &[Resource] {
        &self.resources
    }
}

impl Listing for ListResourceTemplatesResult {
    const KIND: ListKind = ListKind::ResourceTemplates;
    type Item = ResourceTemplate;

    fn request(params: Option<PaginatedRequestParams>) -> ClientRequest {
        ClientRequest::ListResourceTemplatesRequest(request(params))
    }

    fn answer(result: ServerResult, _: Option<&Arc<Connection>>) -> Result<Self, McpError> {
        match result {
            ServerResult::ListResourceTemplatesResult(result) => Ok(result),
            other => result_as(other),
        }
    }

    fn items(&self) -> &[ResourceTemplate] {
        &self.resource_templates
    }
}

impl Listing for ListPromptsResult {
    const KIND: ListKind = ListKind::Prompts;
    type Item = Prompt;

    fn request(params: Option<PaginatedRequestParams>) -> ClientRequest {
        ClientRequest::ListPromptsRequest(request(params))
    }

    fn answer(result: ServerResult, _: Option<&Arc<Connection>>) -> Result<Self, McpError> {
        match result {
            ServerResult::ListPromptsResult(result) => Ok(result),
            other => result_as(other),
        }
    }

    fn items(&self) -> &[Prompt] {
        &self.prompts
    }
}
