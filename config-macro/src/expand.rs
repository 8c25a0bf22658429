//! Reading, compiling and expanding the config named by the macro's argument.

use std::path::{Path, PathBuf};

use proc_macro2::TokenStream;
use quote::quote;
use syn::parse::{Parse, ParseStream};
use toolforge_generator::__private::codegen::{
    DEFAULT_CRATE_PATH, GenerateOptions, Layout, module_tokens,
};
use toolforge_generator::{CompileOptions, compile_str};

/// The macro's argument: one string literal, a path relative to `CARGO_MANIFEST_DIR`.
pub(crate) struct ConfigPath {
    literal: syn::LitStr,
}

impl Parse for ConfigPath {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let literal: syn::LitStr = input.parse().map_err(|error| {
            syn::Error::new(
                error.span(),
                "expected the config path as a string literal, for example \
                 `include_config!(\"ragforge.config.yaml\")`",
            )
        })?;
        if !input.is_empty() {
            return Err(input.error(
                "expected only the config path, for example `include_config!(\"ragforge.config.yaml\")`",
            ));
        }
        Ok(ConfigPath { literal })
    }
}

/// The calling crate's root: relative config paths start there.
fn manifest_dir(literal: &syn::LitStr) -> syn::Result<PathBuf> {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .ok_or_else(|| {
            syn::Error::new(
                literal.span(),
                "CARGO_MANIFEST_DIR is not set: include_config! must be compiled by cargo",
            )
        })
}

/// The module items for the config, or a compile error at the literal.
pub(crate) fn expand(path: &ConfigPath) -> syn::Result<TokenStream> {
    let literal = &path.literal;
    let relative = literal.value();
    let full = manifest_dir(literal)?.join(&relative);
    let source = read(&full, &relative, literal)?;
    let compiled =
        compile_str(&source, &relative, &CompileOptions::default()).map_err(|diagnostics| {
            let count = diagnostics.error_count();
            let plural = if count == 1 { "" } else { "s" };
            syn::Error::new(
                literal.span(),
                format!(
                    "the config `{relative}` has {count} error{plural}\n\n{}",
                    diagnostics.render().trim_end()
                ),
            )
        })?;
    let options =
        GenerateOptions::new(relative.clone(), Layout::Inline).with_crate_path(runtime_path());
    let items = module_tokens(&compiled.spec, &options).map_err(|error| {
        syn::Error::new(
            literal.span(),
            format!("cannot generate code for `{relative}`: {error}"),
        )
    })?;
    let tracked = full.display().to_string();
    Ok(quote! {
        // Makes cargo rebuild this crate when the config changes.
        const _: &[u8] = include_bytes!(#tracked);

        #items
    })
}

/// How the calling crate names the runtime: the name its `Cargo.toml` gives the
/// `toolforge-runtime` dependency (so a renamed dependency works; one that is not renamed is
/// its library, `toolforge`), else `::toolforge`.
fn runtime_path() -> String {
    match proc_macro_crate::crate_name("toolforge-runtime") {
        Ok(proc_macro_crate::FoundCrate::Name(name)) if name == "toolforge_runtime" => {
            DEFAULT_CRATE_PATH.to_owned()
        }
        Ok(proc_macro_crate::FoundCrate::Name(name)) => format!("::{name}"),
        Ok(proc_macro_crate::FoundCrate::Itself) | Err(_) => DEFAULT_CRATE_PATH.to_owned(),
    }
}

/// The config text; a missing or unreadable file is an error at the literal.
fn read(full: &Path, relative: &str, literal: &syn::LitStr) -> syn::Result<String> {
    std::fs::read_to_string(full).map_err(|error| {
        syn::Error::new(
            literal.span(),
            format!(
                "cannot read the config `{relative}`: {error}\n  \
                 help: the path is relative to the crate's root (the folder of its Cargo.toml)"
            ),
        )
    })
}
