//! The `toolforge` command-line tool.

use toolforge_cli::{Output, run_with};

fn main() {
    let mut stdout = std::io::stdout().lock();
    let mut stderr = std::io::stderr().lock();
    let code = run_with(
        std::env::args_os(),
        &mut Output {
            stdout: &mut stdout,
            stderr: &mut stderr,
        },
    );
    std::process::exit(code);
}
