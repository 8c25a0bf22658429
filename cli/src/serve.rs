//! `toolforge serve --config FILE --db DB [--http ADDR]`.
//!
//! Serves the config's tools over MCP: on stdio by default (for desktop clients, which start
//! the server themselves), or over Streamable HTTP at `http://ADDR/mcp`, with every toolset of
//! `toolforge.toolsets` at `/mcp/{toolset}`. The config's `mcp:` section names the server and
//! lists the tools to expose; a listed tool that does not exist stops the start with a located
//! error. Logs go to stderr (`TOOLFORGE_LOG=debug` for more), never to stdout. SIGINT or
//! SIGTERM stop the server once running calls have finished. `--reload` re-reads the config
//! when it changes and tells connected clients (`notifications/tools/list_changed`); a config
//! that no longer validates keeps the old tools and logs its errors. `--defer-tools` lists only
//! `tool_search` (over an in-memory catalog of the served tools) and the core tools
//! (`--core`, default `get_schema` and `describe_entity`); every tool stays callable by name.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use toolforge::CallLimits;
use toolforge::mcp::{
    ConnectionLimits, HttpOptions, McpOptions, McpServer, ServeError, shutdown_signal,
};
use toolforge_catalog::{Source, SourceKind, TOOL_SEARCH, ToolSearch};
use toolforge_generator::CompileOptions;

use crate::call::parse_seconds;
use crate::dynamic::{self, Live};
use crate::{EXIT_INVALID, EXIT_OK, Output};

/// Arguments of `toolforge serve`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The config file (`ragforge.config.yaml`).
    #[arg(long, short = 'c', value_name = "FILE")]
    pub config: PathBuf,
    /// The database (made by `toolforge db init`): a SQLite file or a PostgreSQL URL
    /// (`postgres://user@host:port/name`).
    #[arg(long, value_name = "DB")]
    pub db: PathBuf,
    /// Serve over Streamable HTTP on this address (endpoint `/mcp`) instead of stdio.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<SocketAddr>,
    /// Serve only this toolset of `toolforge.toolsets`.
    #[arg(long, value_name = "NAME")]
    pub toolset: Option<String>,
    /// Serve only the read-only tools.
    #[arg(long)]
    pub read_only: bool,
    /// Re-read the config when it changes and tell clients the tools changed.
    #[arg(long)]
    pub reload: bool,
    /// Progressive discovery: `tools/list` lists only `tool_search` and the core tools
    /// (`--core`); every tool stays callable by name, and `tool_search` finds it.
    #[arg(long)]
    pub defer_tools: bool,
    /// With `--defer-tools`: the tools listed besides `tool_search`, comma-separated (default:
    /// `get_schema` and `describe_entity`).
    #[arg(
        long,
        value_name = "TOOLS",
        value_delimiter = ',',
        requires = "defer_tools"
    )]
    pub core: Option<Vec<String>>,
    /// The tool families to build, comma-separated, replacing the config's `toolforge.tools`
    /// (schema, query, lookup, relationships, ranges, patterns, aggregates, graph).
    #[arg(long, value_name = "FAMILIES", value_delimiter = ',', value_parser = crate::families::parse_family)]
    pub tools: Option<Vec<toolforge::spec::ToolFamily>>,
    /// Each call's deadline in seconds; an overrun is a `timeout` error.
    #[arg(long, value_name = "SECONDS", default_value = "30", value_parser = parse_seconds, allow_negative_numbers = true)]
    pub timeout: Duration,
    /// The largest answer, in bytes of compact JSON.
    #[arg(long, value_name = "BYTES", default_value_t = toolforge::limits::DEFAULT_MAX_ANSWER_BYTES)]
    pub max_answer_bytes: usize,
    /// The most memory a call may take for the data it loads (the graph tools' graphs and
    /// visited records), in bytes; passing it is a `too_large` error.
    #[arg(long, value_name = "BYTES", default_value_t = toolforge::limits::DEFAULT_MAX_MEMORY_BYTES, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub max_memory_bytes: usize,
    /// Calls running at once; more wait for a free slot within their deadline.
    #[arg(long, value_name = "N", default_value_t = McpOptions::default().max_concurrent_calls)]
    pub max_concurrent_calls: usize,
    /// Tools per `tools/list` page; clients follow `nextCursor` for the rest.
    #[arg(long, value_name = "N", default_value_t = McpOptions::default().page_size)]
    pub page_size: usize,
    /// List each tool's `outputSchema` in `tools/list` (results are `structuredContent`
    /// either way): for clients that validate results or generate types from them.
    #[arg(long)]
    pub output_schemas: bool,
    /// The log records a client asks for (`logging/setLevel`) also carry each failed call's
    /// error text, which may quote argument values (by default: the tool, the error code and
    /// the time only).
    #[arg(long)]
    pub client_log_details: bool,
    /// HTTP: require `Authorization: Bearer <token>`, the token read from this environment
    /// variable.
    #[arg(long, value_name = "VAR")]
    pub token_env: Option<String>,
    /// HTTP: a `Host` clients may use besides the loopback names (repeatable); needed to
    /// serve on an address other than loopback.
    #[arg(long = "allow-host", value_name = "HOST")]
    pub allow_hosts: Vec<String>,
    /// HTTP: a browser `Origin` allowed besides loopback ones, like `https://app.example.com`
    /// (repeatable).
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    pub allow_origins: Vec<String>,
    /// HTTP: the largest request body in bytes (over `toolforge.http.max_body_bytes`;
    /// default 4194304, 4 MiB).
    #[arg(long, value_name = "BYTES", value_parser = clap::builder::RangedU64ValueParser::<u64>::new().range(1..))]
    pub max_body_bytes: Option<u64>,
    /// HTTP: seconds from a request's first byte to the end of its headers; a connection that
    /// takes longer is closed (over `toolforge.http.header_timeout_seconds`; default 10).
    #[arg(long, value_name = "SECONDS", value_parser = clap::builder::RangedU64ValueParser::<u64>::new().range(1..))]
    pub header_timeout: Option<u64>,
    /// HTTP: seconds from a request's headers to the end of its body; a slower body is
    /// answered 408 (over `toolforge.http.body_timeout_seconds`; default 30).
    #[arg(long, value_name = "SECONDS", value_parser = clap::builder::RangedU64ValueParser::<u64>::new().range(1..))]
    pub body_timeout: Option<u64>,
    /// HTTP: seconds a connection may wait without a request under way before it is closed
    /// (over `toolforge.http.idle_timeout_seconds`; default 60).
    #[arg(long, value_name = "SECONDS", value_parser = clap::builder::RangedU64ValueParser::<u64>::new().range(1..))]
    pub idle_timeout: Option<u64>,
    /// HTTP: the most connections open at once; a new one beyond closes the one waiting
    /// longest without a request, or is answered 503 when all are answering (over
    /// `toolforge.http.max_connections`; default 512).
    #[arg(long, value_name = "N", value_parser = clap::builder::RangedU64ValueParser::<u64>::new().range(1..))]
    pub max_connections: Option<u64>,
    /// A context value of every call, `NAME=ENV_VAR` (repeatable): the value is read from the
    /// environment variable when the tools are loaded; the config's row rules
    /// (`toolforge.access`) read it as `:context.NAME`.
    #[arg(long = "context", value_name = "NAME=ENV_VAR", value_parser = crate::call::parse_context_pair)]
    pub context: Vec<(String, String)>,
    /// HTTP: a context value of each call read from its request's header,
    /// `NAME=Header-Name` (repeatable); a request without the header has no value `NAME`, so
    /// row rules and `from_context` parameters that read it deny the call.
    #[arg(long = "context-header", value_name = "NAME=HEADER", value_parser = parse_context_header)]
    pub context_headers: Vec<(String, String)>,
    /// HTTP: accept OAuth access tokens (JWTs) of this authorization server, over the config's
    /// `toolforge.auth.issuer`; their scopes gate the tools and their claims become context
    /// values (`toolforge.auth`).
    #[arg(long, value_name = "URL")]
    pub oauth_issuer: Option<String>,
    /// HTTP: the audience tokens must be issued for, over `toolforge.auth.audience` (default
    /// the server's URL, `http://ADDR/mcp`).
    #[arg(long, value_name = "URL")]
    pub oauth_audience: Option<String>,
    /// HTTP: also serve the workbench at `http://ADDR/ui`, a page to try the tools in a
    /// browser (the config's diagram, a form per tool, answers as tables); its data and calls
    /// need the same token as `/mcp`.
    #[arg(long, requires = "http")]
    pub ui: bool,
}

/// `NAME=Header-Name`: a context value name and an HTTP header name.
fn parse_context_header(text: &str) -> Result<(String, String), String> {
    let (name, header) = crate::call::parse_context_pair(text)?;
    if header.is_empty()
        || !header
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(format!(
            "expected NAME=Header-Name with a header name of letters, digits, `-` and `_`, got `{text}`"
        ));
    }
    Ok((name, header))
}

/// Runs the command: returns when the server stops.
pub fn run(args: &Args, out: &mut Output<'_>) -> i32 {
    let _telemetry = crate::telemetry::init();
    let http = match http_options(args) {
        Ok(options) => options,
        Err(message) => {
            let _ = writeln!(out.stderr, "{message}");
            return EXIT_INVALID;
        }
    };
    let (servers, spec) = match load_servers(args) {
        Ok(loaded) => loaded,
        Err(message) => {
            let _ = writeln!(out.stderr, "{message}");
            return EXIT_INVALID;
        }
    };
    let workbench = args.ui.then(|| workbench(&spec));
    let http = http.map(|options| {
        with_http_limits(options, args, &spec.mcp.http).with_workbench(workbench.clone())
    });
    let flags = crate::oauth::OAuthFlags {
        issuer: args.oauth_issuer.clone(),
        audience: args.oauth_audience.clone(),
    };
    if let Err(message) = check_oauth(args, &spec, &flags, &servers) {
        let _ = writeln!(out.stderr, "{message}");
        return EXIT_INVALID;
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            let _ = writeln!(out.stderr, "cannot start the async runtime: {error}");
            return EXIT_INVALID;
        }
    };
    let outcome = runtime.block_on(async {
        if args.reload {
            tokio::spawn(watch_config(
                args_for_reload(args),
                servers.clone(),
                workbench,
            ));
        }
        match (args.http, http) {
            (Some(address), Some(options)) => {
                serve_http(address, servers, options, &spec, &flags).await
            }
            _ => {
                let server = servers.into_iter().next().map(|(_, server)| server);
                match server {
                    Some(server) => server.serve_stdio().await,
                    None => Ok(()),
                }
            }
        }
    });
    // stdin's reader thread cannot be interrupted: do not wait for it.
    runtime.shutdown_timeout(Duration::from_millis(100));
    match outcome {
        Ok(()) => EXIT_OK,
        Err(error) => {
            let _ = writeln!(out.stderr, "{error}");
            EXIT_INVALID
        }
    }
}

async fn serve_http(
    address: SocketAddr,
    servers: Vec<(String, McpServer)>,
    options: HttpOptions,
    spec: &toolforge::spec::SchemaSpec,
    flags: &crate::oauth::OAuthFlags,
) -> Result<(), ServeError> {
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .map_err(|error| ServeError::Transport(format!("cannot listen on {address}: {error}")))?;
    let bound = listener.local_addr().unwrap_or(address);
    let tools = served_tools(&servers);
    let oauth = crate::oauth::oauth_options(spec, flags, &format!("http://{bound}/mcp"))
        .and_then(|oauth| {
            oauth
                .map(|oauth| crate::oauth::with_scopes(oauth, spec, &tools))
                .transpose()
        })
        .map_err(ServeError::Transport)?;
    if let Some(oauth) = &oauth {
        tracing::info!(issuer = %oauth.issuer, audience = %oauth.audience, "access tokens of the issuer are required");
    }
    let options = options.with_oauth(oauth);
    // The one line a script waits for (the port, when 0 was asked for).
    eprintln!("toolforge: serving MCP at http://{bound}/mcp");
    if options.workbench.is_some() {
        eprintln!("toolforge: workbench at http://{bound}/ui");
    }
    McpServer::serve_http(listener, servers, &options, shutdown_signal()).await
}

/// The workbench of `--ui`: the config's diagram and its tool families (drawn again when
/// `--reload` reloads the config).
fn workbench(spec: &toolforge::spec::SchemaSpec) -> toolforge::mcp::Workbench {
    toolforge::mcp::Workbench::new()
        .with_diagram_svg(diagram_svg(spec))
        .with_spec(spec)
}

/// The config's entity–relationship diagram, as SVG.
fn diagram_svg(spec: &toolforge::spec::SchemaSpec) -> String {
    use toolforge_generator::__private::diagram::{Diagram, to_svg};
    to_svg(&Diagram::from_spec(spec))
}

/// The names of the tools the root server serves.
fn served_tools(servers: &[(String, McpServer)]) -> Vec<String> {
    servers
        .first()
        .map(|(_, server)| server.registry().names().map(str::to_owned).collect())
        .unwrap_or_default()
}

/// Refuses OAuth settings that cannot work with the other options, before anything starts.
fn check_oauth(
    args: &Args,
    spec: &toolforge::spec::SchemaSpec,
    flags: &crate::oauth::OAuthFlags,
    servers: &[(String, McpServer)],
) -> Result<(), String> {
    let Some(auth) = crate::oauth::oauth_options(spec, flags, "http://localhost/mcp")? else {
        if args.oauth_audience.is_some() {
            return Err(
                "--oauth-audience needs an issuer: --oauth-issuer URL or toolforge.auth.issuer"
                    .into(),
            );
        }
        return Ok(());
    };
    if args.http.is_none() {
        return Err(format!(
            "access tokens of {} are checked over HTTP only: serve with --http ADDRESS (on \
             stdio the client starts the server itself and needs no token)",
            auth.issuer
        ));
    }
    crate::oauth::with_scopes(auth.clone(), spec, &served_tools(servers))?;
    if args.token_env.is_some() {
        return Err(
            "--token-env sets one shared token, toolforge.auth (or --oauth-issuer) checks each \
             caller's own access token: keep one"
                .into(),
        );
    }
    if let Some((name, header)) = args
        .context_headers
        .iter()
        .find(|(name, _)| auth.claims.iter().any(|(claim, _)| claim == name))
    {
        return Err(format!(
            "the context value `{name}` comes from the access token (toolforge.auth.claims); \
             --context-header {name}={header} would let a request header set it: remove it"
        ));
    }
    Ok(())
}

/// The HTTP settings, `None` on stdio. Refuses settings that would expose the server by
/// accident.
fn http_options(args: &Args) -> Result<Option<HttpOptions>, String> {
    if let Some((name, _)) = args
        .context_headers
        .iter()
        .find(|(name, _)| args.context.iter().any(|(other, _)| other == name))
    {
        return Err(format!(
            "the context value `{name}` is given both by --context and by --context-header; keep one"
        ));
    }
    let Some(address) = args.http else {
        if let Some((name, header)) = args.context_headers.first() {
            return Err(format!(
                "--context-header {name}={header} reads HTTP request headers: serve with --http ADDRESS"
            ));
        }
        return Ok(None);
    };
    if !address.ip().is_loopback() && args.allow_hosts.is_empty() {
        return Err(format!(
            "--http {address} listens beyond this machine; name the host clients use with \
             --allow-host (and require a token with --token-env), or listen on 127.0.0.1"
        ));
    }
    let token = args
        .token_env
        .as_deref()
        .map(|variable| {
            crate::token_env::token_from_env(variable)
                .map_err(|message| format!("{message}; set it to the token clients must send"))
        })
        .transpose()?;
    let defaults = HttpOptions::default();
    let mut hosts = defaults.allowed_hosts.clone();
    hosts.extend(args.allow_hosts.iter().cloned());
    let mut origins = defaults.allowed_origins.clone();
    origins.extend(args.allow_origins.iter().cloned());
    Ok(Some(
        defaults
            .with_allowed_hosts(hosts)
            .with_allowed_origins(origins)
            .with_bearer_token(token),
    ))
}

/// `options` with the body cap and connection limits of the flags, over the config's
/// `toolforge.http`, over the defaults.
fn with_http_limits(
    options: HttpOptions,
    args: &Args,
    config: &toolforge::spec::HttpSpec,
) -> HttpOptions {
    use toolforge::spec::HttpSpec;
    let pick = |flag: Option<u64>, key: Option<u64>, default: u64| flag.or(key).unwrap_or(default);
    let seconds = |flag, key, default| Duration::from_secs(pick(flag, key, default));
    let limits = ConnectionLimits::default()
        .with_header_timeout(seconds(
            args.header_timeout,
            config.header_timeout_seconds,
            HttpSpec::DEFAULT_HEADER_TIMEOUT_SECONDS,
        ))
        .with_body_timeout(seconds(
            args.body_timeout,
            config.body_timeout_seconds,
            HttpSpec::DEFAULT_BODY_TIMEOUT_SECONDS,
        ))
        .with_idle_timeout(seconds(
            args.idle_timeout,
            config.idle_timeout_seconds,
            HttpSpec::DEFAULT_IDLE_TIMEOUT_SECONDS,
        ))
        .with_max_connections(
            usize::try_from(pick(
                args.max_connections,
                config.max_connections,
                HttpSpec::DEFAULT_MAX_CONNECTIONS,
            ))
            .unwrap_or(usize::MAX),
        );
    let max_body_bytes = pick(
        args.max_body_bytes,
        config.max_body_bytes,
        HttpSpec::DEFAULT_MAX_BODY_BYTES,
    );
    options
        .with_connection_limits(limits)
        .with_max_body_bytes(usize::try_from(max_body_bytes).unwrap_or(usize::MAX))
}

/// What a reload needs of the arguments.
#[derive(Debug, Clone)]
struct ReloadArgs {
    config: PathBuf,
    db: PathBuf,
    toolset: Option<String>,
    read_only: bool,
    tools: Option<Vec<toolforge::spec::ToolFamily>>,
    limits: CallLimits,
    options: McpOptions,
    /// `--defer-tools`: `Some` (with the `--core` names, if given).
    defer: Option<Option<Vec<String>>>,
    /// Context values by name, and the environment variable each is read from.
    context: Vec<(String, String)>,
    /// Context values by name, and the request header each is read from.
    context_headers: Vec<(String, String)>,
}

fn args_for_reload(args: &Args) -> ReloadArgs {
    ReloadArgs {
        config: args.config.clone(),
        db: args.db.clone(),
        toolset: args.toolset.clone(),
        read_only: args.read_only,
        tools: args.tools.clone(),
        limits: limits(args),
        options: mcp_options(args),
        defer: args.defer_tools.then(|| args.core.clone()),
        context: args.context.clone(),
        context_headers: args.context_headers.clone(),
    }
}

fn limits(args: &Args) -> CallLimits {
    CallLimits::default()
        .timeout(Some(args.timeout))
        .max_answer_bytes(Some(args.max_answer_bytes))
        .max_memory_bytes(Some(args.max_memory_bytes))
}

fn mcp_options(args: &Args) -> McpOptions {
    let mut options = McpOptions::default();
    options.max_concurrent_calls = args.max_concurrent_calls.max(1);
    options.page_size = args.page_size.max(1);
    options.output_schemas = args.output_schemas;
    options.client_log_details = args.client_log_details;
    if args.reload {
        options.list_ttl = Duration::ZERO;
    }
    options
}

/// The servers to mount, by path: `/mcp` and one per toolset (only the chosen one with
/// `--toolset`), and the spec they serve. On stdio only the first is served.
fn load_servers(args: &Args) -> Result<Served, String> {
    build_servers(&args_for_reload(args)).map_err(|error| error.to_string())
}

/// The servers by path, and the spec they serve.
type Served = (
    Vec<(String, McpServer)>,
    std::sync::Arc<toolforge::spec::SchemaSpec>,
);

fn build_servers(args: &ReloadArgs) -> Result<Served, Box<dyn std::error::Error>> {
    let options = crate::families::with_tools(CompileOptions::default().serving(true), &args.tools);
    // A mapped config is compared with the live schema at each (re)load: a table or column
    // gone or retyped refuses to serve, naming it; what is not mapped yet is logged.
    let options = dynamic::with_database_check(options, &args.db.to_string_lossy());
    let mut values = toolforge::ContextValues::new();
    for (name, variable) in &args.context {
        let value = std::env::var(variable).map_err(|_| {
            format!("--context {name}={variable}: the environment variable {variable} is not set")
        })?;
        values = values.with(name, value);
    }
    let live: Live =
        dynamic::load_with_context(&args.config, &args.db, &options, args.limits, &values)?;
    if !live.compiled.warnings.is_empty() {
        tracing::warn!("{}", live.compiled.warnings.render().trim_end());
    }
    let mcp = &live.spec.mcp;
    let mut root = McpServer::for_spec(
        live.registry.clone(),
        mcp,
        &live.spec.name,
        env!("CARGO_PKG_VERSION"),
    )?
    .with_options(args.options)
    .with_context_headers(args.context_headers.iter().cloned())
    .with_readiness(readiness(&live))
    .with_data(live.spec.clone());
    if args.read_only {
        root = root.read_only();
    }
    if let Some(core) = &args.defer {
        root = deferred(&root, &live.spec, core.as_deref())?;
    }
    let mut servers = Vec::new();
    match &args.toolset {
        Some(name) => {
            let mut toolset = root.toolset(mcp, name)?;
            if let Some(core) = &args.defer {
                toolset = deferred(&toolset, &live.spec, core.as_deref())?;
            }
            servers.push(("/mcp".to_owned(), toolset.clone()));
            servers.push((format!("/mcp/{name}"), toolset));
        }
        None => {
            servers.push(("/mcp".to_owned(), root.clone()));
            for name in mcp.toolsets.keys() {
                let mut toolset = root.toolset(mcp, name)?;
                if let Some(core) = &args.defer {
                    toolset = deferred(&toolset, &live.spec, core.as_deref())?;
                }
                servers.push((format!("/mcp/{name}"), toolset));
            }
        }
    }
    Ok((servers, live.spec))
}

/// `/readyz`: the database answers, and a config with vector indexes has its embedding model.
fn readiness(live: &Live) -> toolforge::mcp::Readiness {
    let database = live.database.clone();
    let needs_model = live
        .spec
        .entities
        .iter()
        .any(|entity| !entity.vector_indexes.is_empty());
    std::sync::Arc::new(move || {
        let database = database.clone();
        Box::pin(async move {
            database
                .ping()
                .await
                .map_err(|error| format!("the database does not answer: {error}"))?;
            if needs_model && database.embedder().is_none() {
                return Err("the embedding model of the vector indexes is not loaded".into());
            }
            Ok(())
        })
    })
}

/// `server` with progressive discovery: `tool_search` over a catalog of its own tools, listed
/// with the core tools only (`core`, or [`crate::defer::default_core`]).
fn deferred(
    server: &McpServer,
    spec: &toolforge::spec::SchemaSpec,
    core: Option<&[String]>,
) -> Result<McpServer, Box<dyn std::error::Error>> {
    let registry = server.registry();
    let core = match core {
        Some(names) => names.to_vec(),
        None => crate::defer::default_core(&spec.tools.name_prefix, registry.names()),
    };
    let source = Source::new(SourceKind::Config, spec.name.clone());
    let searchable = ToolSearch::over_registry(&registry, &source)?;
    let mut listed = vec![TOOL_SEARCH.to_owned()];
    listed.extend(core);
    Ok(server
        .with_registry(searchable)
        .with_listed_tools("--core", &listed)?)
}

/// Polls the config file once a second; when its content changes, rebuilds the tools and swaps them into
/// the running servers (same paths), and the workbench's diagram, or logs why the new config is
/// refused.
async fn watch_config(
    args: ReloadArgs,
    servers: Vec<(String, McpServer)>,
    workbench: Option<toolforge::mcp::Workbench>,
) {
    let mut seen = read_config(&args.config);
    loop {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let now = read_config(&args.config);
        if now == seen {
            continue;
        }
        seen = now;
        let rebuild = {
            let args = args.clone();
            let drawn = workbench.is_some();
            tokio::task::spawn_blocking(move || {
                build_servers(&args)
                    .map(|(servers, spec)| {
                        let svg = drawn.then(|| diagram_svg(&spec));
                        (servers, spec, svg)
                    })
                    .map_err(|e| e.to_string())
            })
            .await
        };
        let (fresh, spec, svg) = match rebuild {
            Ok(Ok(fresh)) => fresh,
            Ok(Err(message)) => {
                tracing::error!(config = %args.config.display(), "the changed config is refused; the old tools stay served:\n{message}");
                continue;
            }
            Err(error) => {
                tracing::error!(%error, "reloading the config failed; the old tools stay served");
                continue;
            }
        };
        for (path, server) in &servers {
            match fresh.iter().find(|(fresh_path, _)| fresh_path == path) {
                Some((_, replacement)) => {
                    server
                        .replace_data(replacement.registry(), spec.clone())
                        .await;
                }
                None => {
                    tracing::warn!(%path, "the changed config no longer declares this toolset; it keeps its old tools until restart")
                }
            }
        }
        for (path, _) in fresh
            .iter()
            .filter(|(p, _)| !servers.iter().any(|(q, _)| q == p))
        {
            tracing::warn!(%path, "a new toolset is served only after a restart");
        }
        if let (Some(workbench), Some(svg)) = (&workbench, svg) {
            workbench.update(svg, &spec);
        }
        tracing::info!(config = %args.config.display(), "config reloaded");
    }
}

/// The config's content (small: read whole), `None` while it cannot be read.
fn read_config(path: &Path) -> Option<Vec<u8>> {
    std::fs::read(path).ok()
}
