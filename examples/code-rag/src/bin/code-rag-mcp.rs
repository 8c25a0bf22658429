//! `code-rag-mcp`: the code-rag tools served over MCP from Rust: the generated database tools,
//! the `#[derive(Tool)]` tool `scope_loc` and `batch`, all from one `ToolRegistry`.
//!
//! ```sh
//! cargo run -p code-rag-example --features mcp --bin code-rag-mcp                          # stdio, for a desktop client
//! cargo run -p code-rag-example --features mcp --bin code-rag-mcp -- --http 127.0.0.1:8080 # http://127.0.0.1:8080/mcp
//! ```

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use toolforge::mcp::{HttpOptions, McpServer, shutdown_signal};

use code_rag_example::corpus;
use code_rag_example::setup::prepare;

/// Parse a Rust source tree into SQLite and serve its tools over MCP.
#[derive(Parser)]
#[command(version)]
struct Args {
    /// The source tree to read (`target/` and hidden directories are skipped); by default
    /// the source of the crate `similar` at the version Cargo.lock pins.
    #[arg(long)]
    src: Option<PathBuf>,
    /// The SQLite file to (re)create.
    #[arg(long, default_value = "target/code-rag-mcp.db")]
    db: PathBuf,
    /// Serve over Streamable HTTP on this address (endpoint `/mcp`) instead of stdio.
    #[arg(long)]
    http: Option<SocketAddr>,
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    // Nothing but MCP messages may reach stdout: progress goes to stderr.
    let src = match args.src {
        Some(src) => src,
        None => match corpus::locate(corpus::PINNED_CRATE) {
            Ok(pinned) => pinned.root,
            Err(error) => {
                eprintln!("error: {error}");
                return ExitCode::FAILURE;
            }
        },
    };
    let prepared = match prepare(&src, &args.db) {
        Ok(prepared) => prepared,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::FAILURE;
        }
    };
    eprintln!(
        "code-rag-mcp: {} tools over {} scopes",
        prepared.registry.len(),
        prepared.codebase.scopes.len()
    );
    let server = McpServer::new(prepared.registry)
        .with_server_info("code-rag", env!("CARGO_PKG_VERSION"))
        .with_instructions(
            "Tools over a Rust code base: call get_schema first, then query_entities to find \
             scopes, explore_relationships to follow CALLS, scope_loc to count lines of code.",
        );
    let outcome = match args.http {
        None => server.serve_stdio().await,
        Some(address) => match tokio::net::TcpListener::bind(address).await {
            Ok(listener) => {
                eprintln!("code-rag-mcp: serving http://{address}/mcp");
                let mounts = vec![("/mcp".to_owned(), server)];
                McpServer::serve_http(listener, mounts, &HttpOptions::default(), shutdown_signal())
                    .await
            }
            Err(error) => {
                eprintln!("error: cannot listen on {address}: {error}");
                return ExitCode::FAILURE;
            }
        },
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}
