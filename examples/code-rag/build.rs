//! Generates the config's module into `$OUT_DIR/toolforge/` (records, typed queries, database
//! tools, registry setup); `src/lib.rs` includes it with `toolforge::include_generated!()`.
//! A config error stops the build with file:line:col code frames. It also tells the crate the
//! target it is built for (`CODE_RAG_TARGET`), so that `corpus::locate`, when it must ask
//! `cargo metadata`, asks about that platform's packages only, and the cargo home the build
//! downloaded into (`CODE_RAG_CARGO_HOME`), for a binary run without cargo.

fn main() {
    if let Ok(target) = std::env::var("TARGET") {
        println!("cargo:rustc-env=CODE_RAG_TARGET={target}");
    }
    if let Ok(home) = std::env::var("CARGO_HOME") {
        println!("cargo:rustc-env=CODE_RAG_CARGO_HOME={home}");
    }
    println!("cargo:rerun-if-env-changed=CARGO_HOME");
    if let Err(error) = toolforge_generator::Builder::new("ragforge.config.yaml")
        .strict(true)
        .generate()
    {
        eprintln!("{error}");
        std::process::exit(1);
    }
}
