//! Turning generated tokens into checked, formatted Rust source.

use proc_macro2::TokenStream;

use super::error::CodegenError;

/// Parses `tokens` as a Rust file (so invalid output fails here, in the generator) and formats
/// it with prettyplease, after `header`.
pub(crate) fn rust_file(
    file: &str,
    header: &str,
    tokens: TokenStream,
) -> Result<String, CodegenError> {
    let parsed: syn::File = syn::parse2(tokens).map_err(|error| CodegenError::InvalidRust {
        file: file.to_string(),
        reason: error.to_string(),
    })?;
    Ok(format!("{header}\n{}", prettyplease::unparse(&parsed)))
}
