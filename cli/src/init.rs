//! `toolforge init [--dir DIR] [--out DIR]`: scaffolds `ragforge.config.yaml` (never
//! overwriting an existing one) and generates its client folder.

use std::path::PathBuf;

use toolforge_generator::__private::codegen::GenerateOptions;
use toolforge_generator::__private::generate_folder;
use toolforge_generator::__private::output::{OutputFile, write_folder};
use toolforge_generator::CompileOptions;

use crate::{EXIT_INVALID, EXIT_OK, Output};

const CONFIG: &str = include_str!("../templates/init.config.yaml");

/// Arguments of `toolforge init`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The project folder (the config goes there).
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub dir: PathBuf,
    /// The client folder, relative to `--dir`.
    #[arg(long, default_value = "src/tools", value_name = "DIR")]
    pub out: PathBuf,
}

/// Runs `toolforge init`.
pub fn run(args: &Args, out: &mut Output<'_>) -> i32 {
    let config_name = PathBuf::from("ragforge.config.yaml");
    let scaffold = [OutputFile::create_once(&config_name, CONFIG)];
    let written = match write_folder(&args.dir, &scaffold, false) {
        Ok(report) => report,
        Err(error) => {
            let _ = writeln!(out.stderr, "error: {error}");
            return EXIT_INVALID;
        }
    };
    for (path, action) in &written.files {
        let _ = writeln!(
            out.stdout,
            "{:>9}  {}",
            action.to_string(),
            args.dir.join(path).display()
        );
    }
    // Headers name the paths relative to the project folder, as the user will run the command.
    let options = GenerateOptions::cli_generate(&config_name, &args.out);
    match generate_folder(
        &args.dir.join(&config_name),
        &args.dir.join(&args.out),
        &CompileOptions::default(),
        &options,
        false,
    ) {
        Ok((report, _)) => {
            for (path, action) in &report.files {
                let _ = writeln!(
                    out.stdout,
                    "{:>9}  {}",
                    action.to_string(),
                    args.dir.join(&args.out).join(path).display()
                );
            }
            let _ = writeln!(
                out.stdout,
                "next: add `mod tools;` to your crate, depend on `toolforge`, then call `tools::apply_schema(&db)` and `tools::setup_tool_registry(db)`"
            );
            EXIT_OK
        }
        Err(error) => {
            let _ = writeln!(out.stderr, "{error}");
            EXIT_INVALID
        }
    }
}
