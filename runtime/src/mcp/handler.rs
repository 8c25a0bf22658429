//! The rmcp [`ServerHandler`] of an [`McpServer`]: `tools/list` and `tools/call`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::ServerHandler;
#[allow(deprecated)] // logging is deprecated by 2026-07-28, not by 2025-11-25
use rmcp::model::SetLevelRequestParams;
use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams,
    CompleteResult, ContentBlock, ErrorCode as RpcCode, ErrorData, GetPromptRequestParams,
    GetPromptResponse, InitializeResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, PromptsCapability,
    ReadResourceRequestParams, ReadResourceResponse, ResourcesCapability, ServerCapabilities,
    SubscribeRequestParams, SubscriptionFilter, UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext, RoleServer, SubscriptionContext};
use serde_json::Value;

use super::client_log;
use super::offers::{self, Caller};
use super::origin::Origin;
use super::paging;
use super::server::{McpServer, Served, Shared};
use super::subscriptions::{self, Subscriber, Watch};
use super::telemetry::Operation;
use crate::limits::DEFAULT_TIMEOUT;
use crate::{ContextValues, ErrorCode, ToolError, ToolResult};

/// Answers MCP requests with the tools of an [`McpServer`]. Clones share the server.
#[derive(Clone)]
pub struct McpHandler {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for McpHandler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpHandler")
            .field("server", &self.shared.settings.identity.name)
            .finish_non_exhaustive()
    }
}

impl McpServer {
    /// The rmcp handler of this server, for transports of your own.
    pub fn handler(&self) -> McpHandler {
        McpHandler::new(self.shared.clone())
    }
}

impl McpHandler {
    fn new(shared: Arc<Shared>) -> McpHandler {
        McpHandler { shared }
    }

    /// Runs one call within the server's concurrency bound; `None` when the client cancelled
    /// it (the call's future is dropped, which interrupts its database statement).
    async fn run(
        &self,
        served: &Served,
        name: &str,
        arguments: Value,
        origin: &Origin<'_>,
    ) -> Option<ToolResult> {
        if self.shared.is_draining() {
            return Some(Err(ToolError::new(
                ErrorCode::Unavailable,
                "the server is shutting down and takes no new calls; call again once it is back",
            )));
        }
        let wait = served
            .registry
            .limits_for(name)
            .timeout
            .unwrap_or(DEFAULT_TIMEOUT);
        let calls = self.shared.calls.clone();
        let gone = origin.gone();
        tokio::pin!(gone);
        let permit = tokio::select! {
            permit = tokio::time::timeout(wait, calls.acquire_owned()) => match permit {
                Ok(Ok(permit)) => permit,
                _ => return Some(Err(busy(name, wait, self.shared.settings.options.max_concurrent_calls))),
            },
            () = &mut gone => return None,
        };
        let values = self.header_values(origin);
        let gate = caller_gate(origin);
        let outcome = tokio::select! {
            outcome = served.registry.call_for(name, arguments, &values, gate.as_ref()) => Some(outcome),
            () = &mut gone => None,
        };
        drop(permit);
        outcome
    }
}

impl McpHandler {
    /// The context values the server reads from the call's HTTP request headers (none over
    /// stdio, or for a header the request lacks or whose value is not text).
    #[cfg_attr(not(feature = "mcp-http"), allow(unused_variables, unused_mut))]
    fn header_values(&self, origin: &Origin<'_>) -> ContextValues {
        let mut values = ContextValues::new();
        #[cfg(feature = "mcp-http")]
        if let Some(parts) = origin.parts() {
            for (name, header) in self.shared.settings.context_headers.iter() {
                if let Some(value) = parts
                    .headers
                    .get(header.as_str())
                    .and_then(|value| value.to_str().ok())
                {
                    values = values.with(name.clone(), value);
                }
            }
            // The values of the caller's token claims, over any header's.
            #[cfg(feature = "mcp-oauth")]
            if let Some(caller) = parts.extensions.get::<super::http::auth::Caller>() {
                for (name, value) in caller.values.iter() {
                    values = values.with(name, value);
                }
            }
        }
        values
    }
}

/// What the caller may run, when the server checks access tokens.
#[cfg_attr(not(feature = "mcp-oauth"), allow(unused_variables))]
fn caller_gate(origin: &Origin<'_>) -> Option<crate::ToolGate> {
    #[cfg(feature = "mcp-oauth")]
    if let Some(caller) = origin
        .parts()
        .and_then(|parts| parts.extensions.get::<super::http::auth::Caller>())
    {
        return Some(caller.gate.clone());
    }
    None
}

impl McpHandler {
    /// What the server offers over its data, or the error of a method that needs it.
    fn offers<'s>(served: &'s Served, method: &str) -> Result<&'s offers::Offers, ErrorData> {
        served.offers.as_ref().ok_or_else(|| {
            ErrorData::new(
                RpcCode::METHOD_NOT_FOUND,
                format!("{method}: this server serves tools only (it was not given its data)"),
                None,
            )
        })
    }

    /// Reads `uri` once for a new subscriber and starts watching it.
    async fn watch(
        &self,
        uri: String,
        subscriber: Subscriber,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let origin = Origin::Service(context);
        let values = self.header_values(&origin);
        let gate = caller_gate(&origin);
        let seen =
            subscriptions::fingerprint(&self.shared.current(), &uri, &values, gate.as_ref()).await;
        let shared = Arc::downgrade(&self.shared);
        let current: subscriptions::Current =
            Arc::new(move || shared.upgrade().map(|shared| shared.current()));
        self.shared
            .watches
            .watch(
                Watch {
                    uri,
                    subscriber,
                    values,
                    gate,
                    seen,
                },
                current,
                self.shared.settings.options.watch_interval,
            )
            .map_err(|message| ErrorData::invalid_request(message, None))
    }
}

/// Who asks, for the length of one request: the context values and scopes of its calls.
struct Asking {
    values: ContextValues,
    gate: Option<crate::ToolGate>,
}

impl Asking {
    /// The caller the offers read for, over `registry`.
    fn caller<'a>(&'a self, registry: &'a crate::ToolRegistry) -> Caller<'a> {
        Caller {
            registry,
            values: &self.values,
            gate: self.gate.as_ref(),
        }
    }
}

impl McpHandler {
    /// Who asks in `context`: its header and token values, and its scopes.
    fn asking(&self, context: &RequestContext<RoleServer>) -> Asking {
        let origin = Origin::Service(context);
        Asking {
            values: self.header_values(&origin),
            gate: caller_gate(&origin),
        }
    }
}

/// The session key of a 2025-11-25 subscriber ("" on stdio).
fn subscriber_key(context: &RequestContext<RoleServer>) -> String {
    client_log::session_key(context).unwrap_or_default()
}

impl McpHandler {
    /// Answers one `tools/call`, whichever way it came (`origin`): an unknown tool is the
    /// JSON-RPC error `-32602`; anything else is a result, `isError` when the call failed.
    pub(super) async fn call(
        &self,
        request: CallToolRequestParams,
        origin: &Origin<'_>,
    ) -> Result<CallToolResult, ErrorData> {
        let name = request.name.as_ref();
        let operation = Operation::start("tools/call", Some(name), origin);
        let served = self.shared.current();
        if !served.registry.contains(name) {
            tracing::info!(tool = %name, "unknown tool");
            operation.finish(Some(ErrorCode::UnknownTool.as_str()));
            let error = served.registry.invalid_tool().error(name);
            return Err(ErrorData::new(
                RpcCode::INVALID_PARAMS,
                error.message.clone(),
                Some(error.to_json()),
            ));
        }
        let arguments = request.arguments.map(Value::Object).unwrap_or(Value::Null);
        let started = Instant::now();
        let outcome = operation
            .run(self.run(&served, name, arguments, origin))
            .await;
        let Some(outcome) = outcome else {
            let ms = started.elapsed().as_millis() as u64;
            tracing::info!(tool = %name, ms, "call cancelled by the client");
            #[allow(deprecated)]
            self.shared.logs.to_caller(
                origin,
                rmcp::model::LoggingLevel::Info,
                serde_json::json!({"message": "call cancelled by the client", "tool": name, "ms": ms}),
            )
            .await;
            operation.finish(Some("cancelled"));
            return Ok(error_result(&ToolError::new(
                ErrorCode::Unavailable,
                "the call was cancelled by the client",
            )));
        };
        let ms = started.elapsed().as_millis() as u64;
        Ok(match outcome {
            Ok(value) => {
                // One line per call is an access log: 15 % of a lookup's throughput at
                // info (docs/BENCHMARKS.md, "side by side"); spans and metrics carry it.
                tracing::debug!(tool = %name, ms, "call answered");
                operation.finish(None);
                success_result(value)
            }
            Err(error) => {
                tracing::info!(tool = %name, ms, error = %error.code, "call failed");
                operation.finish(Some(error.code.as_str()));
                let mut record = serde_json::json!({
                    "message": "call failed", "tool": name, "error": error.code.as_str(), "ms": ms,
                });
                if self.shared.settings.options.client_log_details {
                    record["detail"] = Value::String(error.message.clone());
                }
                #[allow(deprecated)]
                self.shared
                    .logs
                    .to_caller(origin, rmcp::model::LoggingLevel::Warning, record)
                    .await;
                error_result(&error)
            }
        })
    }
}

impl ServerHandler for McpHandler {
    fn get_info(&self) -> InitializeResult {
        let mut capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .build();
        // `logging/setLevel` (2025-11-25; deprecated by 2026-07-28).
        capabilities.logging = Some(serde_json::Map::new());
        if let Some(offers) = &self.shared.current().offers {
            if offers.has_resources() {
                let mut resources = ResourcesCapability::default();
                resources.subscribe = Some(true);
                capabilities.resources = Some(resources);
            }
            capabilities.prompts = Some(PromptsCapability::default());
            capabilities.completions = Some(serde_json::Map::new());
        }
        let info = InitializeResult::new(capabilities)
            .with_server_info(self.shared.settings.identity.clone());
        match &self.shared.settings.instructions {
            Some(instructions) => info.with_instructions(instructions.clone()),
            None => info,
        }
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let operation = Operation::start("tools/list", None, &Origin::Service(&context));
        let served = self.shared.current();
        // A caller whose token's scopes do not reach a tool does not see it; without a gate
        // the list is served as it is (no copy of every definition per request).
        let gate = caller_gate(&Origin::Service(&context));
        let visible: std::borrow::Cow<'_, [rmcp::model::Tool]> = match &gate {
            None => std::borrow::Cow::Borrowed(&served.tools),
            Some(gate) => served
                .tools
                .iter()
                .filter(|tool| gate.allows(&tool.name))
                .cloned()
                .collect(),
        };
        let total = visible.len();
        let cursor = request.and_then(|params| params.cursor);
        let (range, next) = match paging::page(
            cursor.as_deref(),
            total,
            self.shared.settings.options.page_size,
        ) {
            Ok(page) => page,
            Err(error) => {
                operation.finish(Some("invalid_params"));
                return Err(error);
            }
        };
        let mut tools = visible[range].to_vec();
        if !self.shared.settings.options.output_schemas {
            for tool in &mut tools {
                tool.output_schema = None;
            }
        }
        let mut page = ListToolsResult::with_all_items(tools)
            .with_ttl_ms(
                u64::try_from(self.shared.settings.options.list_ttl.as_millis())
                    .unwrap_or(u64::MAX),
            )
            .with_cache_scope(if gate.is_some() {
                CacheScope::Private
            } else {
                CacheScope::Public
            });
        page.next_cursor = next;
        operation.finish(None);
        Ok(page)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.call(request, &Origin::Service(&context))
            .await
            .map(Into::into)
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        let mut accepted = SubscriptionFilter::new();
        accepted.tools_list_changed = requested.tools_list_changed;
        // The resources of this server; a URI that names none is left out of the
        // acknowledgment, which tells the client so.
        let served = self.shared.current();
        if let (Some(offers), Some(uris)) = (&served.offers, &requested.resource_subscriptions) {
            let known: Vec<String> = uris
                .iter()
                .filter(|uri| offers.target(uri).is_some())
                .take(subscriptions::MAX_WATCHES)
                .cloned()
                .collect();
            if !known.is_empty() {
                accepted.resource_subscriptions = Some(known);
            }
        }
        Some(accepted)
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let id = context.request_context().id.to_string();
        self.shared
            .lock_listeners()
            .push((id.clone(), context.sink().clone()));
        let key = format!("listen:{id}");
        for uri in context.accepted().resource_subscriptions.iter().flatten() {
            let subscriber = Subscriber::Listener(key.clone(), context.sink().clone());
            if let Err(error) = self
                .watch(uri.clone(), subscriber, context.request_context())
                .await
            {
                tracing::info!(uri = %uri, error = %error.message, "a resource was not watched");
            }
        }
        context.cancelled().await;
        self.shared.watches.unwatch(&key, None);
        self.shared
            .lock_listeners()
            .retain(|(listener, _)| *listener != id);
        Ok(())
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let operation = Operation::start("resources/list", None, &Origin::Service(&context));
        let served = self.shared.current();
        let offers = Self::offers(&served, "resources/list")?;
        let cursor = request.and_then(|params| params.cursor);
        let asking = self.asking(&context);
        let caller = asking.caller(&served.registry);
        let page = offers::list_resources(
            offers,
            &caller,
            cursor.as_deref(),
            self.shared.settings.options.page_size,
        )
        .await;
        operation.finish(page.as_ref().err().map(|_| "error"));
        page
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let served = self.shared.current();
        Ok(offers::list_templates(Self::offers(
            &served,
            "resources/templates/list",
        )?))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let operation = Operation::start("resources/read", None, &Origin::Service(&context));
        let served = self.shared.current();
        let offers = Self::offers(&served, "resources/read")?;
        let asking = self.asking(&context);
        let caller = asking.caller(&served.registry);
        let read = offers::read_resource(offers, &caller, &request.uri).await;
        operation.finish(read.as_ref().err().map(|_| "error"));
        read.map(Into::into)
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let served = self.shared.current();
        Ok(offers::list_prompts(Self::offers(&served, "prompts/list")?))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let operation = Operation::start("prompts/get", None, &Origin::Service(&context));
        let served = self.shared.current();
        let offers = Self::offers(&served, "prompts/get")?;
        let mut arguments = std::collections::BTreeMap::new();
        for (name, value) in request.arguments.into_iter().flatten() {
            let text = match value {
                Value::String(text) => text,
                other => other.to_string(),
            };
            arguments.insert(name, text);
        }
        let asking = self.asking(&context);
        let caller = asking.caller(&served.registry);
        let prompt = offers::get_prompt(offers, &caller, &request.name, &arguments).await;
        operation.finish(prompt.as_ref().err().map(|_| "error"));
        prompt.map(Into::into)
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let served = self.shared.current();
        let offers = Self::offers(&served, "completion/complete")?;
        let asking = self.asking(&context);
        let caller = asking.caller(&served.registry);
        offers::complete(
            offers,
            &caller,
            &request.r#ref,
            &request.argument.name,
            &request.argument.value,
        )
        .await
    }

    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.shared.logs.set_level(&context, request.level);
        Ok(())
    }

    #[allow(deprecated)]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let served = self.shared.current();
        let offers = Self::offers(&served, "resources/subscribe")?;
        if offers.target(&request.uri).is_none() {
            return Err(offers::not_a_resource(&request.uri));
        }
        let subscriber = Subscriber::Session(subscriber_key(&context), context.peer.clone());
        self.watch(request.uri, subscriber, &context).await
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.shared
            .watches
            .unwatch(&subscriber_key(&context), Some(&request.uri));
        Ok(())
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let mut peers = self.shared.lock_peers();
        peers.retain(|peer| !peer.is_transport_closed());
        peers.push(context.peer);
    }

    /// A request rmcp could not read: `-32602` for a method MCP defines (its params did not
    /// fit), `-32601` for one it does not.
    async fn on_custom_request(
        &self,
        request: rmcp::model::CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CustomResult, ErrorData> {
        Err(super::invalid_params::answer(&request))
    }
}

/// A tool's answer: `structuredContent` when it is an object, always mirrored as JSON text.
fn success_result(value: Value) -> CallToolResult {
    let text = serde_json::to_string(&value).unwrap_or_else(|_| "null".to_owned());
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    if value.is_object() {
        result.structured_content = Some(value);
    }
    result
}

/// A failed call, as a result the model reads (`isError: true`, the structured error as text).
fn error_result(error: &ToolError) -> CallToolResult {
    let text = serde_json::to_string(&error.to_json()).unwrap_or_else(|_| error.message.clone());
    CallToolResult::error(vec![ContentBlock::text(text)])
}

/// The error of a call that found no free slot within its deadline.
fn busy(name: &str, waited: Duration, max: usize) -> ToolError {
    ToolError::new(
        ErrorCode::Unavailable,
        format!(
            "the server is busy ({max} calls running) and `{name}` found no free slot within {} ms; call again shortly",
            waited.as_millis()
        ),
    )
    .with_details(serde_json::json!({"tool": name, "max_concurrent_calls": max}))
}
