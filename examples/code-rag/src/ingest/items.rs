//! Turning one parsed file into scope records.

use std::collections::BTreeSet;

use proc_macro2::{Delimiter, LineColumn, TokenTree};
use quote::ToTokens;
use syn::{Attribute, Expr, ImplItem, Item, Lit, Meta, TraitItem};

use super::calls::called_names;
use super::text::SourceText;
use super::{Call, ScopeKind, ScopeRecord};

/// The longest signature kept (in characters); longer ones end with `…`.
const MAX_SIGNATURE: usize = 400;

/// Walks the items of one file and records a scope for each (see [`super`] for the kinds).
pub struct FileScopes<'a> {
    file: &'a str,
    text: &'a SourceText<'a>,
    scopes: Vec<ScopeRecord>,
}

/// Where a scope sits: its parent's uuid and qualified path.
#[derive(Clone, Default)]
struct Parent {
    uuid: Option<String>,
    path: String,
}

impl<'a> FileScopes<'a> {
    /// Scopes of `items`, defined in `file` whose text is `text`.
    pub fn collect(file: &'a str, text: &'a SourceText<'a>, items: &[Item]) -> Vec<ScopeRecord> {
        let mut walker = FileScopes {
            file,
            text,
            scopes: Vec::new(),
        };
        walker.items(items, &Parent::default());
        walker.scopes
    }

    fn items(&mut self, items: &[Item], parent: &Parent) {
        for item in items {
            self.item(item, parent);
        }
    }

    fn item(&mut self, item: &Item, parent: &Parent) {
        use ScopeKind as K;
        match item {
            Item::Fn(f) => {
                let calls = called_names(&f.block);
                self.push(item, &f.attrs, K::Function, &f.sig.ident, parent, calls);
            }
            Item::Struct(s) => self.leaf(item, &s.attrs, K::Struct, &s.ident, parent),
            Item::Union(u) => self.leaf(item, &u.attrs, K::Struct, &u.ident, parent),
            Item::Enum(e) => self.leaf(item, &e.attrs, K::Enum, &e.ident, parent),
            Item::Const(c) => self.leaf(item, &c.attrs, K::Const, &c.ident, parent),
            Item::Static(s) => self.leaf(item, &s.attrs, K::Static, &s.ident, parent),
            Item::Type(t) => self.leaf(item, &t.attrs, K::Type, &t.ident, parent),
            Item::Macro(m) => {
                if let Some(ident) = &m.ident {
                    self.leaf(item, &m.attrs, K::Macro, ident, parent);
                }
            }
            Item::Mod(m) => {
                if let Some((_, content)) = &m.content {
                    let none = BTreeSet::new();
                    let me = self.push(item, &m.attrs, K::Module, &m.ident, parent, none);
                    self.items(content, &me);
                }
            }
            Item::Trait(t) => {
                let me = self.push(item, &t.attrs, K::Trait, &t.ident, parent, BTreeSet::new());
                for member in &t.items {
                    self.trait_item(member, &me);
                }
            }
            Item::Impl(i) => {
                let me = self.push(
                    item,
                    &i.attrs,
                    K::Impl,
                    &impl_name(i),
                    parent,
                    BTreeSet::new(),
                );
                for member in &i.items {
                    self.impl_item(member, &me);
                }
            }
            _ => {}
        }
    }

    fn trait_item(&mut self, member: &TraitItem, parent: &Parent) {
        match member {
            TraitItem::Fn(f) => {
                let calls = f.default.as_ref().map(called_names).unwrap_or_default();
                self.push(
                    member,
                    &f.attrs,
                    ScopeKind::Method,
                    &f.sig.ident,
                    parent,
                    calls,
                );
            }
            TraitItem::Const(c) => self.leaf(member, &c.attrs, ScopeKind::Const, &c.ident, parent),
            TraitItem::Type(t) => self.leaf(member, &t.attrs, ScopeKind::Type, &t.ident, parent),
            _ => {}
        }
    }

    fn impl_item(&mut self, member: &ImplItem, parent: &Parent) {
        match member {
            ImplItem::Fn(f) => {
                let calls = called_names(&f.block);
                self.push(
                    member,
                    &f.attrs,
                    ScopeKind::Method,
                    &f.sig.ident,
                    parent,
                    calls,
                );
            }
            ImplItem::Const(c) => self.leaf(member, &c.attrs, ScopeKind::Const, &c.ident, parent),
            ImplItem::Type(t) => self.leaf(member, &t.attrs, ScopeKind::Type, &t.ident, parent),
            _ => {}
        }
    }

    /// Records a scope that calls nothing and has no children.
    fn leaf(
        &mut self,
        node: &dyn ToTokens,
        attrs: &[Attribute],
        kind: ScopeKind,
        name: &dyn ToString,
        parent: &Parent,
    ) {
        self.push(node, attrs, kind, name, parent, BTreeSet::new());
    }

    /// Records one scope and returns it as a parent for its children.
    fn push(
        &mut self,
        node: &dyn ToTokens,
        attrs: &[Attribute],
        kind: ScopeKind,
        name: &dyn ToString,
        parent: &Parent,
        called_names: BTreeSet<Call>,
    ) -> Parent {
        let name = name.to_string();
        let tokens = node.to_token_stream();
        let extent = Extent::of(&tokens, kind.has_initializer());
        let (start, end) = match &extent {
            Some(e) => (e.start, e.end),
            None => {
                let here = LineColumn { line: 1, column: 0 };
                (here, here)
            }
        };
        let signature = extent
            .as_ref()
            .map(|e| signature_text(self.text.slice(e.start, e.signature_end)))
            .unwrap_or_default();
        let path = if parent.path.is_empty() {
            name.clone()
        } else {
            format!("{}::{name}", parent.path)
        };
        let uuid = format!("{}::{path}#{}", self.file, start.line);
        self.scopes.push(ScopeRecord {
            uuid: uuid.clone(),
            name,
            kind,
            file: self.file.to_string(),
            start_line: start.line,
            end_line: end.line,
            signature,
            docstring: docstring(attrs),
            source: self.text.lines(start.line, end.line).to_string(),
            parent: parent.uuid.clone(),
            called_names,
        });
        Parent {
            uuid: Some(uuid),
            path,
        }
    }
}

/// `impl Registry` or `impl Tool for Echo<T>`.
fn impl_name(item: &syn::ItemImpl) -> String {
    let self_ty = compact(&item.self_ty.to_token_stream().to_string());
    match &item.trait_ {
        Some((path, _)) => {
            format!(
                "impl {} for {self_ty}",
                compact(&path.to_token_stream().to_string())
            )
        }
        None => format!("impl {self_ty}"),
    }
}

/// Token text without the spaces the token printer puts around punctuation.
fn compact(tokens: &str) -> String {
    let mut out = tokens.to_string();
    for (from, to) in [
        (" :: ", "::"),
        (":: ", "::"),
        (" <", "<"),
        ("< ", "<"),
        (" >", ">"),
        (" ,", ","),
        ("& ", "&"),
        (" (", "("),
        ("( ", "("),
        (" )", ")"),
    ] {
        out = out.replace(from, to);
    }
    out
}

/// Where an item's tokens start and end, leaving out its outer attributes and doc comments.
struct Extent {
    start: LineColumn,
    end: LineColumn,
    /// The end of the head: everything before the body braces (or before `=` for consts,
    /// statics and type aliases, or before `;`).
    signature_end: LineColumn,
}

impl Extent {
    fn of(tokens: &proc_macro2::TokenStream, stop_at_eq: bool) -> Option<Extent> {
        let tokens: Vec<TokenTree> = tokens.clone().into_iter().collect();
        let mut i = 0;
        while let (Some(TokenTree::Punct(p)), Some(TokenTree::Group(g))) =
            (tokens.get(i), tokens.get(i + 1))
        {
            if p.as_char() == '#' && g.delimiter() == Delimiter::Bracket {
                i += 2;
            } else {
                break;
            }
        }
        let first = tokens.get(i)?;
        let last = tokens.last()?;
        let mut signature_end = first.span().end();
        for token in &tokens[i..] {
            let stop = match token {
                TokenTree::Group(g) => g.delimiter() == Delimiter::Brace,
                TokenTree::Punct(p) => p.as_char() == ';' || (stop_at_eq && p.as_char() == '='),
                _ => false,
            };
            if stop {
                break;
            }
            signature_end = token.span().end();
        }
        Some(Extent {
            start: first.span().start(),
            end: last.span().end(),
            signature_end,
        })
    }
}

/// The head text on one line, whitespace runs collapsed, at most [`MAX_SIGNATURE`] characters.
fn signature_text(head: &str) -> String {
    let collapsed = head
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace("( ", "(")
        .replace(", )", ")")
        .replace(" )", ")");
    if collapsed.chars().count() > MAX_SIGNATURE {
        let mut cut: String = collapsed.chars().take(MAX_SIGNATURE).collect();
        cut.push('…');
        cut
    } else {
        collapsed
    }
}

/// The doc comments (`///`, `//!`, `#[doc = "..."]`) joined by lines, `None` when empty.
fn docstring(attrs: &[Attribute]) -> Option<String> {
    let mut lines = Vec::new();
    for attr in attrs {
        if let Meta::NameValue(nv) = &attr.meta
            && nv.path.is_ident("doc")
            && let Expr::Lit(lit) = &nv.value
            && let Lit::Str(text) = &lit.lit
        {
            let value = text.value();
            for line in value.lines() {
                lines.push(
                    line.strip_prefix(' ')
                        .unwrap_or(line)
                        .trim_end()
                        .to_string(),
                );
            }
        }
    }
    let joined = lines.join("\n").trim().to_string();
    (!joined.is_empty()).then_some(joined)
}
