//! Resolving a path mentioned in a module to the module that defines what it names.
//!
//! A path is walked through the module tree as far as its segments name modules (`crate`,
//! `self`, `super`, child modules, and names a `use` brought into scope). When the next
//! segment is a name the reached module imports (a re-export, or a private `use` its
//! descendants may see), the import is followed to its own target, recursively and through
//! glob imports, so a facade that re-exports `child::X` is never the target of `facade::X`:
//! `child` is. When the segment is defined in the reached module, that module is the target.

use crate::tree::{ModuleId, Tree};

/// How deep re-exports and globs are followed before giving up.
const MAX_DEPTH: usize = 32;

/// What a path resolved to, in terms of the tree's module ids.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Resolved {
    /// The path names this module itself.
    Module(ModuleId),
    /// The path names an item defined in this module (or something inside that item, such
    /// as an enum variant or an associated function).
    Item(ModuleId),
    /// The path walked into this module but its next segment names nothing the module
    /// defines or imports that this tool can see (macro-generated items, for one).
    Unresolved { within: ModuleId, name: String },
    /// The path starts at an external crate (`std`, `serde`, ...), named here.
    External(String),
    /// The path starts at something local to the code (`Self`, a generic parameter, a
    /// primitive type, a prelude type, an item declared in a function body).
    Local,
}

/// What a name means inside one module.
enum Member {
    Module(ModuleId),
    Item(ModuleId),
    External(String),
}

/// Resolves paths against a loaded [`Tree`].
pub(crate) struct Resolver<'a> {
    tree: &'a Tree,
}

/// An import or glob being followed, to break cycles (`use serde;` names the crate, not
/// itself; two modules may glob-import each other).
#[derive(PartialEq, Eq)]
enum Following {
    Import(ModuleId, usize),
    Glob(ModuleId, usize),
}

impl<'a> Resolver<'a> {
    pub(crate) fn new(tree: &'a Tree) -> Self {
        Resolver { tree }
    }

    /// Resolves `segments`, written in module `scope`.
    pub(crate) fn resolve(
        &self,
        scope: ModuleId,
        segments: &[String],
        leading_colon: bool,
    ) -> Resolved {
        self.resolve_in(scope, segments, leading_colon, &mut Vec::new())
    }

    fn resolve_in(
        &self,
        scope: ModuleId,
        segments: &[String],
        leading_colon: bool,
        following: &mut Vec<Following>,
    ) -> Resolved {
        let Some((first, rest)) = segments.split_first() else {
            return Resolved::Module(scope);
        };
        if following.len() > MAX_DEPTH {
            return Resolved::Unresolved {
                within: scope,
                name: first.clone(),
            };
        }
        let root = 0;
        if leading_colon {
            // `::name` is always an external crate (or this crate under an alias).
            return if self.tree.crate_aliases.contains(first) {
                self.walk(root, rest, following)
            } else {
                Resolved::External(first.clone())
            };
        }
        let start = match first.as_str() {
            "crate" => root,
            "self" => scope,
            "super" => match self.tree.modules[scope].parent {
                Some(parent) => parent,
                None => {
                    return Resolved::Unresolved {
                        within: scope,
                        name: "super".to_string(),
                    };
                }
            },
            "Self" => return Resolved::Local,
            name => match self.lookup(scope, name, following) {
                Some(Member::Module(module)) => module,
                Some(Member::Item(module)) => return Resolved::Item(module),
                Some(Member::External(krate)) => return Resolved::External(krate),
                None if self.tree.crate_aliases.contains(name) => root,
                None if self.is_local_name(scope, name) => return Resolved::Local,
                None => return Resolved::External(name.to_string()),
            },
        };
        self.walk(start, rest, following)
    }

    /// Walks `segments` down from module `start`.
    fn walk(
        &self,
        start: ModuleId,
        segments: &[String],
        following: &mut Vec<Following>,
    ) -> Resolved {
        let mut current = start;
        for segment in segments {
            match segment.as_str() {
                "self" => continue,
                "super" => match self.tree.modules[current].parent {
                    Some(parent) => {
                        current = parent;
                        continue;
                    }
                    None => {
                        return Resolved::Unresolved {
                            within: current,
                            name: "super".to_string(),
                        };
                    }
                },
                _ => {}
            }
            match self.lookup(current, segment, following) {
                Some(Member::Module(module)) => current = module,
                Some(Member::Item(module)) => return Resolved::Item(module),
                Some(Member::External(krate)) => return Resolved::External(krate),
                None => {
                    return Resolved::Unresolved {
                        within: current,
                        name: segment.clone(),
                    };
                }
            }
        }
        Resolved::Module(current)
    }

    /// What `name` means inside `module`: a child module, an item it defines, or whatever an
    /// import (named, then glob) of the module brings in under that name.
    fn lookup(
        &self,
        module: ModuleId,
        name: &str,
        following: &mut Vec<Following>,
    ) -> Option<Member> {
        let data = &self.tree.modules[module];
        if let Some(&child) = data.children.get(name) {
            return Some(Member::Module(child));
        }
        if data.defined.contains_key(name) {
            // Includes a `mod x;` whose file is missing: the best target is this module.
            return Some(Member::Item(module));
        }
        for (index, import) in data.imports.iter().enumerate() {
            if import.name.as_deref() != Some(name) {
                continue;
            }
            let key = Following::Import(module, index);
            if following.contains(&key) {
                continue;
            }
            following.push(key);
            let resolved =
                self.resolve_in(module, &import.segments, import.leading_colon, following);
            following.pop();
            return Some(match resolved {
                Resolved::Module(target) => Member::Module(target),
                Resolved::Item(target) => Member::Item(target),
                Resolved::Unresolved { within, .. } => Member::Item(within),
                Resolved::External(krate) => Member::External(krate),
                Resolved::Local => Member::Item(module),
            });
        }
        for (index, glob) in data.globs.iter().enumerate() {
            let key = Following::Glob(module, index);
            if following.contains(&key) {
                continue;
            }
            following.push(key);
            let target = self.resolve_in(module, &glob.segments, glob.leading_colon, following);
            let found = match target {
                Resolved::Module(target) => self.lookup(target, name, following),
                _ => None,
            };
            following.pop();
            if found.is_some() {
                return found;
            }
        }
        None
    }

    /// Whether `name`, unknown to the module tree, is local to the code rather than an
    /// external crate: `Self`, primitives, prelude and other capitalised names (types,
    /// variants, generic parameters), and names declared inside the file's code.
    fn is_local_name(&self, scope: ModuleId, name: &str) -> bool {
        const PRIMITIVES: &[&str] = &[
            "bool", "char", "str", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32",
            "i64", "i128", "isize", "f16", "f32", "f64", "f128",
        ];
        if PRIMITIVES.contains(&name) || name.starts_with(|c: char| c.is_uppercase()) {
            return true;
        }
        let owner = self.tree.modules[scope].owner;
        self.tree
            .local_names
            .get(&owner)
            .is_some_and(|names| names.contains(name))
    }
}
