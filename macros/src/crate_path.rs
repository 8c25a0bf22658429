//! How the expansion names the `toolforge` crate, even when the user renamed the dependency.

use proc_macro_crate::{FoundCrate, crate_name};
use proc_macro2::Span;
use syn::{Ident, Path, parse_quote};

/// The runtime's package on crates.io; its library is named `toolforge`.
const RUNTIME_PACKAGE: &str = "toolforge-runtime";

/// The path of the runtime crate in the user's crate: `#[tool(crate = "...")]` when given,
/// else the name under which the user's `Cargo.toml` depends on the runtime (found by
/// `proc-macro-crate`), else `::toolforge`.
pub(crate) fn runtime_path(explicit: Option<Path>) -> Path {
    if let Some(path) = explicit {
        return path;
    }
    match crate_name(RUNTIME_PACKAGE) {
        Ok(FoundCrate::Name(name)) => {
            let ident = Ident::new(&library_name(name), Span::call_site());
            parse_quote!(::#ident)
        }
        // `Itself`: the runtime's own tests, doctests and examples see it as `::toolforge`
        // (and its library declares `extern crate self as toolforge`). `Err`: no manifest to
        // read; the plain name is the best guess, and a wrong guess is a clear compile error.
        Ok(FoundCrate::Itself) | Err(_) => parse_quote!(::toolforge),
    }
}

/// The name code uses for the dependency `proc-macro-crate` found: the key it is renamed to
/// (`tf = { package = "toolforge-runtime" }` gives `tf`), else the library's own name,
/// `toolforge` (proc-macro-crate answers the package name for a dependency that is not renamed).
pub(crate) fn library_name(found: String) -> String {
    if found == RUNTIME_PACKAGE.replace('-', "_") {
        "toolforge".to_owned()
    } else {
        found
    }
}

/// `path` as the string `#[serde(crate = "...")]` expects, with `suffix` appended.
pub(crate) fn path_string(path: &Path, suffix: &str) -> String {
    let mut text = String::new();
    if path.leading_colon.is_some() {
        text.push_str("::");
    }
    let segments: Vec<String> = path
        .segments
        .iter()
        .map(|segment| segment.ident.to_string())
        .collect();
    text.push_str(&segments.join("::"));
    text.push_str(suffix);
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explicit_path_wins() {
        let path: Path = parse_quote!(my::tf);
        assert_eq!(runtime_path(Some(path.clone())), path);
    }

    #[test]
    fn a_dependency_not_renamed_is_named_by_its_library() {
        assert_eq!(library_name("toolforge_runtime".to_owned()), "toolforge");
        assert_eq!(library_name("tf".to_owned()), "tf");
        assert_eq!(library_name("toolforge".to_owned()), "toolforge");
    }

    #[test]
    fn paths_print_for_serde() {
        assert_eq!(
            path_string(&parse_quote!(::tf), "::__private::serde"),
            "::tf::__private::serde"
        );
        assert_eq!(path_string(&parse_quote!(a::b), ""), "a::b");
    }
}
