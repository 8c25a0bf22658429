//! `toolforge-layers <crate-src-dir> [--prefix MODULE] [--cfg FEATURE] [--externals]`
//!
//! Prints a crate's module graph for a human: the modules with their line counts, the edges
//! between them with the first `file:line` of each, and every cycle (strongly connected
//! component) with the edges inside it. `--prefix sql` narrows the listing to `crate::sql` and
//! below (edges touching it, cycles containing it). `--cfg postgres` prints instead where the
//! `cfg`s mentioning `feature = "postgres"` are, per file and per folder.

use std::path::PathBuf;
use std::process::ExitCode;

use toolforge_layers::{CrateGraph, ModulePath, cfg_counts, feature_cfgs};

const USAGE: &str = "\
usage: toolforge-layers <crate-src-dir> [--prefix MODULE] [--externals]
       toolforge-layers <crate-src-dir> --cfg FEATURE

  <crate-src-dir>   a crate's src/ directory (runtime/src)
  --prefix MODULE   list only MODULE and below (sql, sql::tools, crate::sql)
  --externals       also list the external crates each module mentions
  --cfg FEATURE     list the cfgs mentioning feature = \"FEATURE\", per file and folder";

struct Options {
    src_dir: PathBuf,
    prefix: String,
    externals: bool,
    cfg: Option<String>,
}

fn parse_args() -> Result<Options, String> {
    let mut args = std::env::args().skip(1);
    let mut src_dir = None;
    let mut prefix = String::new();
    let mut externals = false;
    let mut cfg = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-h" | "--help" => return Err(String::new()),
            "--prefix" => prefix = args.next().ok_or("--prefix needs a module")?,
            "--cfg" => cfg = Some(args.next().ok_or("--cfg needs a feature name")?),
            "--externals" => externals = true,
            flag if flag.starts_with("--") => return Err(format!("unknown option {flag}")),
            _ if src_dir.is_some() => return Err(format!("unexpected argument {arg}")),
            _ => src_dir = Some(PathBuf::from(arg)),
        }
    }
    Ok(Options {
        src_dir: src_dir.ok_or("missing <crate-src-dir>")?,
        prefix,
        externals,
        cfg,
    })
}

fn main() -> ExitCode {
    let options = match parse_args() {
        Ok(options) => options,
        Err(message) if message.is_empty() => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("error: {message}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let result = match &options.cfg {
        Some(feature) => print_cfgs(&options, feature),
        None => print_graph(&options),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn print_graph(options: &Options) -> Result<(), String> {
    let graph = CrateGraph::load(&options.src_dir).map_err(|error| error.to_string())?;
    let prefix = ModulePath::parse(&options.prefix);
    let modules = graph.modules_under(&options.prefix);
    if modules.is_empty() {
        return Err(format!(
            "no module {prefix} in {}",
            options.src_dir.display()
        ));
    }
    let total_lines: usize = modules.iter().map(|module| module.lines()).sum();
    println!(
        "{}: {} modules under {prefix}, {total_lines} lines",
        options.src_dir.display(),
        modules.len()
    );

    println!("\nmodules (lines, file):");
    let width = modules
        .iter()
        .map(|module| module.path().to_string().len())
        .max()
        .unwrap_or(0);
    for module in &modules {
        println!(
            "  {:<width$}  {:>5}  {}",
            module.path().to_string(),
            module.lines(),
            module.file().display()
        );
        if options.externals {
            let crates = graph.external_crates(module.path());
            if !crates.is_empty() {
                let names: Vec<&str> = crates.keys().map(String::as_str).collect();
                println!("  {:<width$}  uses {}", "", names.join(", "));
            }
        }
    }

    let edges: Vec<_> = graph
        .edges()
        .iter()
        .filter(|edge| edge.from.is_under(&prefix) || edge.to.is_under(&prefix))
        .collect();
    println!("\nedges ({}), from -> to (first file:line):", edges.len());
    for edge in &edges {
        println!("  {edge}");
    }

    let cycles = graph.cycles_under(&options.prefix);
    if cycles.is_empty() {
        println!("\nno cycles through {prefix}");
    } else {
        println!("\n{} cycle(s) through {prefix}:", cycles.len());
        for (index, cycle) in cycles.iter().enumerate() {
            print!("\n#{} {cycle}", index + 1);
        }
    }

    let unresolved: Vec<_> = graph
        .unresolved()
        .iter()
        .filter(|unresolved| unresolved.within.is_under(&prefix))
        .collect();
    if !unresolved.is_empty() {
        println!(
            "\n{} path(s) name something the tool cannot see (counted as edges to the module they reach):",
            unresolved.len()
        );
        for item in unresolved {
            println!(
                "  {}: {} (`{}` in {})",
                item.location, item.path, item.name, item.within
            );
        }
    }
    for warning in graph.warnings() {
        println!("\nwarning: {warning}");
    }
    Ok(())
}

fn print_cfgs(options: &Options, feature: &str) -> Result<(), String> {
    let mentions = feature_cfgs(&options.src_dir, feature).map_err(|error| error.to_string())?;
    let (per_file, per_folder) = cfg_counts(&mentions);
    println!(
        "{}: {} cfg(s) mentioning feature = {feature:?} in {} file(s)",
        options.src_dir.display(),
        mentions.len(),
        per_file.len()
    );
    println!("\nper folder:");
    for (folder, count) in &per_folder {
        let folder = folder.display().to_string();
        let folder = if folder.is_empty() { "." } else { &folder };
        println!("  {count:>4}  {folder}/");
    }
    println!("\nper file:");
    for (file, count) in &per_file {
        println!("  {count:>4}  {}", file.display());
    }
    println!("\neach:");
    for mention in &mentions {
        println!("  {}  {}", mention.location, mention.text);
    }
    Ok(())
}
