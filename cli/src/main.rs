//! The `toolforge` command-line tool.

use toolforge_cli::{Output, run_with};

fn main() {
    // Not locked for the whole run: `toolforge serve` writes MCP messages to stdout from
    // another thread.
    let mut stdout = std::io::stdout();
    let mut stderr = std::io::stderr();
    let code = run_with(
        std::env::args_os(),
        &mut Output {
            stdout: &mut stdout,
            stderr: &mut stderr,
        },
    );
    std::process::exit(code);
}
