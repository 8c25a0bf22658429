//! Generates `$OUT_DIR/toolforge/` from a config, as a user's build script would; the
//! `build_script` test includes it with `toolforge::include_generated!()`.

fn main() {
    let builder = toolforge_generator::Builder::new("fixtures/awkward-names.yaml");
    if let Err(error) = builder.generate() {
        eprintln!("{error}");
        std::process::exit(1);
    }
}
