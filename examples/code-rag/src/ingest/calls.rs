//! Which scopes call which, resolved by name.
//!
//! The rule, applied to the body of every function and method (and to the arguments of macros
//! in it that parse as comma-separated expressions: `format!`, `assert_eq!`, `vec!`...):
//!
//! - a plain call `f(..)` links to the one free function named `f` in the whole tree;
//! - a path call `a::b::f(..)` or `Type::f(..)` links to the one function OR method named `f`;
//! - a method call `x.m(..)` links to the one method named `m`.
//!
//! A name defined several times among the candidates (`new`, `len`) or not at all (`unwrap`,
//! from std) gives no edge. Functions passed as values (`.map(Self::f)`) are not calls, and
//! calls inside items nested in a body count for the enclosing function. No type information
//! is used, so a call of a std method that shares its name with exactly one method of the tree
//! (`set.contains(x)` and a single `fn contains`) is linked to that method.

use std::collections::{BTreeSet, HashMap};

use syn::punctuated::Punctuated;
use syn::visit::{self, Visit};
use syn::{Expr, ExprCall, ExprMethodCall, Macro, Token};

use super::{ScopeKind, ScopeRecord};

/// How a name was called.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Call {
    /// `f(..)`: a free function.
    Plain(String),
    /// `a::f(..)`, `Type::f(..)`: a function or an associated function.
    Path(String),
    /// `x.m(..)`: a method.
    Method(String),
}

/// The calls made from inside a function body (see [`resolve`] for how a call is linked to a scope).
pub fn called_names(block: &syn::Block) -> BTreeSet<Call> {
    let mut collector = Collector::default();
    collector.visit_block(block);
    collector.names
}

#[derive(Default)]
struct Collector {
    names: BTreeSet<Call>,
}

impl<'ast> Visit<'ast> for Collector {
    fn visit_expr_call(&mut self, call: &'ast ExprCall) {
        if let Expr::Path(path) = &*call.func
            && let Some(last) = path.path.segments.last()
        {
            let name = last.ident.to_string();
            self.names.insert(if path.path.segments.len() == 1 {
                Call::Plain(name)
            } else {
                Call::Path(name)
            });
        }
        visit::visit_expr_call(self, call);
    }

    fn visit_expr_method_call(&mut self, call: &'ast ExprMethodCall) {
        self.names.insert(Call::Method(call.method.to_string()));
        visit::visit_expr_method_call(self, call);
    }

    fn visit_macro(&mut self, mac: &'ast Macro) {
        if let Ok(arguments) = mac.parse_body_with(Punctuated::<Expr, Token![,]>::parse_terminated)
        {
            for argument in &arguments {
                self.visit_expr(argument);
            }
        }
        visit::visit_macro(self, mac);
    }
}

/// The CALLS edges `(caller uuid, callee uuid)` of `scopes`, sorted and without duplicates.
pub fn resolve(scopes: &[ScopeRecord]) -> Vec<(String, String)> {
    let mut functions: HashMap<&str, Vec<&str>> = HashMap::new();
    let mut methods: HashMap<&str, Vec<&str>> = HashMap::new();
    let mut either: HashMap<&str, Vec<&str>> = HashMap::new();
    for scope in scopes {
        let index = match scope.kind {
            ScopeKind::Function => &mut functions,
            ScopeKind::Method => &mut methods,
            _ => continue,
        };
        index.entry(&scope.name).or_default().push(&scope.uuid);
        either.entry(&scope.name).or_default().push(&scope.uuid);
    }
    let mut edges = BTreeSet::new();
    for scope in scopes {
        for call in &scope.called_names {
            let (index, name) = match call {
                Call::Plain(name) => (&functions, name),
                Call::Path(name) => (&either, name),
                Call::Method(name) => (&methods, name),
            };
            if let Some([callee]) = index.get(name.as_str()).map(Vec::as_slice) {
                edges.insert((scope.uuid.clone(), (*callee).to_string()));
            }
        }
    }
    edges.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collects_calls_method_calls_and_macro_arguments() {
        let block: syn::Block = syn::parse_str(
            "{ let x = a::b::first(1); x.second(); println!(\"{}\", third(x)); let f = not_a_call; }",
        )
        .unwrap();
        let calls: Vec<Call> = called_names(&block).into_iter().collect();
        assert_eq!(
            calls,
            [
                Call::Plain("third".into()),
                Call::Path("first".into()),
                Call::Method("second".into())
            ]
        );
    }
}
