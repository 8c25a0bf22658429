//! Generates the config's module into `$OUT_DIR/toolforge/` (records, typed queries, database
//! tools, registry setup); `src/lib.rs` includes it with `toolforge::include_generated!()`.
//! A config error stops the build with file:line:col code frames.

fn main() {
    if let Err(error) = toolforge_generator::Builder::new("ragforge.config.yaml")
        .strict(true)
        .generate()
    {
        eprintln!("{error}");
        std::process::exit(1);
    }
}
