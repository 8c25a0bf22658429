//! Finding the `cfg`s that mention a Cargo feature.
//!
//! Every `.rs` file under a `src/` directory is tokenised (comments and doc comments are not
//! code, so they never count) and every `cfg(...)` attribute, `cfg_attr(...)` attribute and
//! `cfg!(...)` macro whose predicate mentions `feature = "NAME"` is reported, wherever it is:
//! in test code and macro bodies too. A `cfg` nested inside a counted one
//! (`cfg_attr(feature = "x", cfg(...))`) is not counted again.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use proc_macro2::{Delimiter, TokenStream, TokenTree};

use crate::error::LoadError;
use crate::graph::rust_files;
use crate::tree::Location;

/// One `cfg`, `cfg_attr` or `cfg!` that mentions the feature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CfgMention {
    /// Where it is, relative to `src/`.
    pub location: Location,
    /// The source line it is on, trimmed.
    pub text: String,
}

/// Every `cfg` mentioning `feature = "<feature>"` in the `.rs` files under `src_dir`
/// (all of them, whether or not a `mod` declares them), in file and line order.
pub fn feature_cfgs(
    src_dir: impl AsRef<Path>,
    feature: &str,
) -> Result<Vec<CfgMention>, LoadError> {
    let src_dir = src_dir.as_ref();
    let mut mentions = Vec::new();
    for file in rust_files(src_dir)? {
        let full = src_dir.join(&file);
        let text = fs::read_to_string(&full).map_err(|source| LoadError::Io {
            path: full.clone(),
            source,
        })?;
        let tokens: TokenStream = text.parse().map_err(|error: proc_macro2::LexError| {
            let start = error.span().start();
            LoadError::Parse {
                path: full.clone(),
                line: start.line,
                column: start.column + 1,
                message: error.to_string(),
            }
        })?;
        let mut lines = Vec::new();
        scan(tokens, feature, &mut lines);
        let source_lines: Vec<&str> = text.lines().collect();
        for line in lines {
            let source = source_lines.get(line - 1).copied().unwrap_or("").trim();
            mentions.push(CfgMention {
                location: Location {
                    file: file.clone(),
                    line,
                },
                text: shorten(source),
            });
        }
    }
    Ok(mentions)
}

/// Counts of mentions per file, and per folder (a file directly in `src/` counts under
/// `""`), from [`feature_cfgs`]'s output.
pub fn counts(mentions: &[CfgMention]) -> (BTreeMap<PathBuf, usize>, BTreeMap<PathBuf, usize>) {
    let mut per_file: BTreeMap<PathBuf, usize> = BTreeMap::new();
    let mut per_folder: BTreeMap<PathBuf, usize> = BTreeMap::new();
    for mention in mentions {
        let file = &mention.location.file;
        *per_file.entry(file.clone()).or_default() += 1;
        let folder = file.parent().map(Path::to_path_buf).unwrap_or_default();
        *per_folder.entry(folder).or_default() += 1;
    }
    (per_file, per_folder)
}

/// Pushes the line of every outermost `cfg(..)`, `cfg_attr(..)` or `cfg!(..)` in `tokens`
/// whose parenthesised predicate mentions the feature.
fn scan(tokens: TokenStream, feature: &str, lines: &mut Vec<usize>) {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut index = 0;
    while index < tokens.len() {
        match &tokens[index] {
            TokenTree::Ident(ident) if ident == "cfg" || ident == "cfg_attr" => {
                let mut next = index + 1;
                if ident == "cfg"
                    && matches!(tokens.get(next), Some(TokenTree::Punct(p)) if p.as_char() == '!')
                {
                    next += 1;
                }
                if let Some(TokenTree::Group(group)) = tokens.get(next)
                    && group.delimiter() == Delimiter::Parenthesis
                    && mentions_feature(group.stream(), feature)
                {
                    lines.push(ident.span().start().line);
                    index = next + 1;
                    continue;
                }
            }
            TokenTree::Group(group) => scan(group.stream(), feature, lines),
            _ => {}
        }
        index += 1;
    }
}

/// Whether `feature = "<feature>"` appears anywhere in the tokens.
fn mentions_feature(tokens: TokenStream, feature: &str) -> bool {
    let quoted = format!("{feature:?}");
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    tokens.iter().enumerate().any(|(index, token)| match token {
        TokenTree::Ident(ident) if ident == "feature" => {
            matches!(tokens.get(index + 1), Some(TokenTree::Punct(p)) if p.as_char() == '=')
                && matches!(tokens.get(index + 2), Some(TokenTree::Literal(l)) if l.to_string() == quoted)
        }
        TokenTree::Group(group) => mentions_feature(group.stream(), feature),
        _ => false,
    })
}

fn shorten(line: &str) -> String {
    const MAX: usize = 100;
    if line.chars().count() <= MAX {
        line.to_string()
    } else {
        let cut: String = line.chars().take(MAX - 3).collect();
        format!("{cut}...")
    }
}

#[cfg(test)]
mod tests {
    use super::scan;

    fn lines(source: &str) -> Vec<usize> {
        let mut lines = Vec::new();
        scan(source.parse().unwrap(), "postgres", &mut lines);
        lines
    }

    #[test]
    fn finds_attributes_macros_and_nested_predicates() {
        let source = r#"
            #[cfg(feature = "postgres")]
            mod a;
            #[cfg(any(feature = "sqlite", feature = "postgres"))]
            fn b() {
                if cfg!(feature = "postgres") {}
            }
            #[cfg_attr(docsrs, doc(cfg(feature = "postgres")))]
            struct C;
            #[cfg(feature = "sqlite")]
            struct D;
            /// `#[cfg(feature = "postgres")]` in a doc comment is not code.
            // #[cfg(feature = "postgres")]
            #[cfg(all(test, feature = "postgres"))]
            mod tests {}
        "#;
        assert_eq!(lines(source), vec![2, 4, 6, 8, 14]);
    }

    #[test]
    fn other_features_and_strings_do_not_count() {
        assert!(lines(r#"#[cfg(feature = "postgresql")] fn a() {}"#).is_empty());
        assert!(lines(r#"const X: &str = "cfg(feature = \"postgres\")";"#).is_empty());
        assert!(lines(r#"#[doc = "feature = postgres"] fn a() {}"#).is_empty());
    }
}
