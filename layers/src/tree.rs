//! The module tree of a crate, read from its `src/` directory: which file holds which
//! module, what each module defines and imports, and every path its code mentions.
//!
//! Modules are found by following `mod x;` declarations from `lib.rs` (or `main.rs`), never
//! by listing files, so a file no `mod` declares is not a module. Anything gated by
//! `#[cfg(test)]` (or `#[test]`) is skipped entirely: tests may import anything. Other `cfg`s
//! are ignored, so code behind every feature counts.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};
use syn::{Attribute, Ident, Item, Meta, Token, UseTree, Visibility};

use crate::error::LoadError;
use crate::module_path::ModulePath;

/// Index of a module in [`Tree::modules`].
pub(crate) type ModuleId = usize;

/// A place in a crate's source: a file relative to the crate's `src/` and a 1-based line.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Location {
    /// The file, relative to the crate's `src/` directory (`sql/database.rs`).
    pub file: PathBuf,
    /// The 1-based line.
    pub line: usize,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file.display(), self.line)
    }
}

impl fmt::Debug for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// What kind of item a module defines under a name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum ItemKind {
    /// `fn`, including functions in `extern` blocks.
    Fn,
    /// `struct`.
    Struct,
    /// `enum`.
    Enum,
    /// `union`.
    Union,
    /// `trait` or a trait alias.
    Trait,
    /// `type` alias, including types in `extern` blocks.
    Type,
    /// `const`.
    Const,
    /// `static`, including statics in `extern` blocks.
    Static,
    /// `macro_rules!`.
    Macro,
    /// A child module (`mod x;` or `mod x { ... }`).
    Mod,
}

/// A `use` item with a visibility other than private: the module makes a name of another
/// module available under its own path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReExport {
    /// The exported name (the rename for `use a::B as C`), or `None` for a glob (`pub use a::*`).
    pub name: Option<String>,
    /// The imported path as written (without the leaf's rename); for a glob, the path before
    /// `*`.
    pub path: Vec<String>,
    /// Where the re-export is written.
    pub location: Location,
}

/// One module of a crate: a file module (`lib.rs`, `a.rs`, `a/mod.rs`) or an inline
/// `mod x { ... }` block, which belongs to the file module it is written in.
#[derive(Clone, Debug)]
pub struct Module {
    pub(crate) path: ModulePath,
    /// This module's index in the tree.
    pub(crate) self_id: ModuleId,
    pub(crate) parent: Option<ModuleId>,
    /// The file module this module's code is in (itself for a file module).
    pub(crate) owner: ModuleId,
    pub(crate) file: PathBuf,
    pub(crate) lines: usize,
    pub(crate) children: BTreeMap<String, ModuleId>,
    pub(crate) defined: BTreeMap<String, ItemKind>,
    /// Every named `use` leaf of the module, private or not, in source order.
    pub(crate) imports: Vec<Import>,
    /// Every glob `use` of the module, private or not, in source order.
    pub(crate) globs: Vec<Import>,
}

impl Module {
    /// The module's path (`crate::sql::database`).
    pub fn path(&self) -> &ModulePath {
        &self.path
    }

    /// The file the module is written in, relative to the crate's `src/`.
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// Lines of source: the whole file for a file module, the block for an inline module.
    pub fn lines(&self) -> usize {
        self.lines
    }

    /// Whether the module is an inline `mod x { ... }` block. Its code counts as its file
    /// module's: it is not a node of the module graph.
    pub fn is_inline(&self) -> bool {
        self.owner != self.self_id
    }

    /// The names the module defines (items and child modules), outside `#[cfg(test)]` code.
    pub fn defined(&self) -> &BTreeMap<String, ItemKind> {
        &self.defined
    }

    /// The module's re-exports (`pub`, `pub(crate)`, `pub(super)`, `pub(in ...)` uses), in
    /// source order.
    pub fn reexports(&self) -> Vec<ReExport> {
        let named = self.imports.iter().filter(|import| import.public);
        let globs = self.globs.iter().filter(|import| import.public);
        let mut all: Vec<ReExport> = named
            .chain(globs)
            .map(|import| ReExport {
                name: import.name.clone(),
                path: import.segments.clone(),
                location: Location {
                    file: self.file.clone(),
                    line: import.line,
                },
            })
            .collect();
        all.sort_by_key(|export| export.location.line);
        all
    }

    /// The names of the module's child modules (file and inline).
    pub fn children(&self) -> impl Iterator<Item = &str> {
        self.children.keys().map(String::as_str)
    }
}

/// A `use` leaf: `use a::b::C as D` imports `D` from `[a, b, C]`; a glob has no name.
#[derive(Clone, Debug)]
pub(crate) struct Import {
    pub(crate) name: Option<String>,
    pub(crate) segments: Vec<String>,
    pub(crate) leading_colon: bool,
    pub(crate) public: bool,
    pub(crate) line: usize,
}

/// A path a module mentions — a `use` leaf (for a glob, the path before `*`), an `extern
/// crate`, or a path in its code — to resolve once the whole tree is known.
#[derive(Clone, Debug)]
pub(crate) struct Reference {
    pub(crate) scope: ModuleId,
    pub(crate) segments: Vec<String>,
    pub(crate) leading_colon: bool,
    pub(crate) line: usize,
}

/// Something odd in the tree that did not stop the analysis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    /// Where it was found.
    pub location: Location,
    /// What is odd.
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.message)
    }
}

/// Everything read from a crate's source, before resolution.
#[derive(Debug)]
pub(crate) struct Tree {
    pub(crate) src_dir: PathBuf,
    pub(crate) modules: Vec<Module>,
    pub(crate) references: Vec<Reference>,
    /// Names that mean this crate (`extern crate self as toolforge;`).
    pub(crate) crate_aliases: BTreeSet<String>,
    /// Per file module: names that are local to some code of the file (generic parameters,
    /// items declared inside function bodies). A path starting with one of them is not a
    /// mention of an external crate.
    pub(crate) local_names: BTreeMap<ModuleId, BTreeSet<String>>,
    pub(crate) warnings: Vec<Warning>,
}

impl Tree {
    /// Reads the crate whose `src/` directory is `src_dir`, following `mod` declarations from
    /// `lib.rs` (or `main.rs` for a binary-only crate).
    pub(crate) fn load(src_dir: &Path) -> Result<Tree, LoadError> {
        let root = ["lib.rs", "main.rs"]
            .into_iter()
            .map(PathBuf::from)
            .find(|name| src_dir.join(name).is_file())
            .ok_or_else(|| LoadError::NoCrateRoot {
                dir: src_dir.to_path_buf(),
            })?;
        let mut tree = Tree {
            src_dir: src_dir.to_path_buf(),
            modules: Vec::new(),
            references: Vec::new(),
            crate_aliases: BTreeSet::new(),
            local_names: BTreeMap::new(),
            warnings: Vec::new(),
        };
        tree.load_file_module(root, ModulePath::root(), None, PathBuf::new())?;
        Ok(tree)
    }

    /// Parses one file module and, recursively, the modules it declares. `child_dir` is where
    /// its `mod x;` files live, relative to `src/`.
    fn load_file_module(
        &mut self,
        file: PathBuf,
        path: ModulePath,
        parent: Option<ModuleId>,
        child_dir: PathBuf,
    ) -> Result<ModuleId, LoadError> {
        let full = self.src_dir.join(&file);
        let text = fs::read_to_string(&full).map_err(|source| LoadError::Io {
            path: full.clone(),
            source,
        })?;
        let parsed = syn::parse_file(&text).map_err(|error| {
            let start = error.span().start();
            LoadError::Parse {
                path: full.clone(),
                line: start.line,
                column: start.column + 1,
                message: error.to_string(),
            }
        })?;
        let id = self.push_module(path, parent, None, file, text.lines().count());
        self.collect_items(id, &parsed.items, &child_dir)?;
        Ok(id)
    }

    fn push_module(
        &mut self,
        path: ModulePath,
        parent: Option<ModuleId>,
        owner: Option<ModuleId>,
        file: PathBuf,
        lines: usize,
    ) -> ModuleId {
        let id = self.modules.len();
        if let Some(parent) = parent {
            let name = path.segments().last().cloned().unwrap_or_default();
            self.modules[parent].children.insert(name, id);
        }
        self.modules.push(Module {
            path,
            parent,
            owner: owner.unwrap_or(id),
            self_id: id,
            file,
            lines,
            children: BTreeMap::new(),
            defined: BTreeMap::new(),
            imports: Vec::new(),
            globs: Vec::new(),
        });
        id
    }

    /// Records the items of module `scope`: definitions, imports, child modules (loading
    /// their files), and every path their code mentions.
    fn collect_items(
        &mut self,
        scope: ModuleId,
        items: &[Item],
        child_dir: &Path,
    ) -> Result<(), LoadError> {
        for item in items {
            if is_test_only(item_attrs(item)) {
                continue;
            }
            match item {
                Item::Mod(module) => self.collect_mod(scope, module, child_dir)?,
                Item::Use(item_use) => self.collect_use(scope, item_use),
                Item::ExternCrate(extern_crate) => self.collect_extern_crate(scope, extern_crate),
                _ => {
                    if let Some((name, kind)) = defined_name(item) {
                        if let Item::Macro(mac) = item {
                            self.export_macro(scope, mac, &name);
                        }
                        self.modules[scope].defined.insert(name, kind);
                    }
                    if let Item::ForeignMod(foreign) = item {
                        for foreign_item in &foreign.items {
                            if let Some((name, kind)) = foreign_name(foreign_item) {
                                self.modules[scope].defined.insert(name, kind);
                            }
                        }
                    }
                    let mut visitor = PathCollector {
                        tree: self,
                        scope,
                        qself_position: None,
                    };
                    visit::visit_item(&mut visitor, item);
                }
            }
        }
        Ok(())
    }

    fn collect_mod(
        &mut self,
        scope: ModuleId,
        module: &syn::ItemMod,
        child_dir: &Path,
    ) -> Result<(), LoadError> {
        let name = module.ident.unraw().to_string();
        if self.modules[scope].children.contains_key(&name) {
            // The same module declared again under another `cfg`: one module either way.
            return Ok(());
        }
        self.modules[scope]
            .defined
            .insert(name.clone(), ItemKind::Mod);
        let path = self.modules[scope].path.child(&name);
        let own_child_dir = child_dir.join(&name);
        if let Some((brace, items)) = &module.content {
            let owner = self.modules[scope].owner;
            let file = self.modules[scope].file.clone();
            let start = line_of(module.mod_token.span);
            let end = brace.span.close().end().line;
            let lines = end.saturating_sub(start) + 1;
            let id = self.push_module(path, Some(scope), Some(owner), file, lines);
            return self.collect_items(id, items, &own_child_dir);
        }
        let candidates = [
            child_dir.join(format!("{name}.rs")),
            own_child_dir.join("mod.rs"),
        ];
        let found: Vec<&PathBuf> = candidates
            .iter()
            .filter(|candidate| self.src_dir.join(candidate).is_file())
            .collect();
        let location = Location {
            file: self.modules[scope].file.clone(),
            line: line_of(module.ident.span()),
        };
        match found.as_slice() {
            [] => self.warnings.push(Warning {
                location,
                message: format!(
                    "`mod {name};` has no file: neither {} nor {} exists (#[path] is not followed)",
                    candidates[0].display(),
                    candidates[1].display()
                ),
            }),
            [file, rest @ ..] => {
                if !rest.is_empty() {
                    self.warnings.push(Warning {
                        location,
                        message: format!(
                            "`mod {name};` is ambiguous: both {} and {} exist; read {}",
                            candidates[0].display(),
                            candidates[1].display(),
                            file.display()
                        ),
                    });
                }
                let file = (*file).clone();
                self.load_file_module(file, path, Some(scope), own_child_dir)?;
            }
        }
        Ok(())
    }

    /// Records every leaf of a `use` item as an import of `scope` (named or glob) and as a
    /// reference to resolve.
    fn collect_use(&mut self, scope: ModuleId, item_use: &syn::ItemUse) {
        let public = is_exported(&item_use.vis);
        let leading_colon = item_use.leading_colon.is_some();
        let mut leaves = Vec::new();
        flatten_use(&item_use.tree, &mut Vec::new(), &mut leaves);
        for leaf in leaves {
            self.references.push(Reference {
                scope,
                segments: leaf.segments.clone(),
                leading_colon,
                line: leaf.line,
            });
            let import = Import {
                name: leaf.name.filter(|name| name != "_"),
                segments: leaf.segments,
                leading_colon,
                public,
                line: leaf.line,
            };
            let module = &mut self.modules[scope];
            if leaf.glob {
                module.globs.push(import);
            } else if import.name.is_some() {
                module.imports.push(import);
            }
        }
    }

    fn collect_extern_crate(&mut self, scope: ModuleId, extern_crate: &syn::ItemExternCrate) {
        let name = extern_crate.ident.unraw().to_string();
        let alias = extern_crate
            .rename
            .as_ref()
            .map(|(_, rename)| rename.unraw().to_string());
        if name == "self" {
            if let Some(alias) = alias {
                self.crate_aliases.insert(alias);
            }
            return;
        }
        let line = line_of(extern_crate.ident.span());
        self.references.push(Reference {
            scope,
            segments: vec![name.clone()],
            leading_colon: true,
            line,
        });
        if let Some(alias) = alias.filter(|alias| alias != "_") {
            self.modules[scope].imports.push(Import {
                name: Some(alias),
                segments: vec![name],
                leading_colon: true,
                public: is_exported(&extern_crate.vis),
                line,
            });
        }
    }

    /// A `#[macro_export] macro_rules! name` defined in `scope` is named `crate::name`: the
    /// crate root gets a private import of it, so `crate::name!` leads to `scope`.
    fn export_macro(&mut self, scope: ModuleId, mac: &syn::ItemMacro, name: &str) {
        if scope == 0
            || !mac
                .attrs
                .iter()
                .any(|attr| attr.path().is_ident("macro_export"))
        {
            return;
        }
        let mut segments = vec!["crate".to_string()];
        segments.extend(self.modules[scope].path.segments().iter().cloned());
        segments.push(name.to_string());
        let line = mac.ident.as_ref().map_or(0, |ident| line_of(ident.span()));
        self.modules[0].imports.push(Import {
            name: Some(name.to_string()),
            segments,
            leading_colon: false,
            public: false,
            line,
        });
    }

    fn add_local_name(&mut self, scope: ModuleId, name: String) {
        let owner = self.modules[scope].owner;
        self.local_names.entry(owner).or_default().insert(name);
    }
}

/// One leaf of a `use` tree.
struct UseLeaf {
    segments: Vec<String>,
    name: Option<String>,
    glob: bool,
    line: usize,
}

/// Flattens `use a::{b::C, d::{self as e, *}}` into `a::b::C`, `a::d` (as `e`) and `a::d::*`.
fn flatten_use(tree: &UseTree, prefix: &mut Vec<String>, leaves: &mut Vec<UseLeaf>) {
    match tree {
        UseTree::Path(path) => {
            prefix.push(path.ident.unraw().to_string());
            flatten_use(&path.tree, prefix, leaves);
            prefix.pop();
        }
        UseTree::Name(name) => leaves.push(leaf(prefix, &name.ident, None)),
        UseTree::Rename(rename) => leaves.push(leaf(prefix, &rename.ident, Some(&rename.rename))),
        UseTree::Glob(glob) => leaves.push(UseLeaf {
            segments: prefix.clone(),
            name: None,
            glob: true,
            line: line_of(glob.star_token.span),
        }),
        UseTree::Group(group) => {
            for tree in &group.items {
                flatten_use(tree, prefix, leaves);
            }
        }
    }
}

/// The leaf `ident` (renamed to `rename`) under `prefix`; `self` names the prefix itself.
fn leaf(prefix: &[String], ident: &Ident, rename: Option<&Ident>) -> UseLeaf {
    let ident_text = ident.unraw().to_string();
    let mut segments = prefix.to_vec();
    if ident_text != "self" {
        segments.push(ident_text);
    }
    let name = rename
        .map(|rename| rename.unraw().to_string())
        .or_else(|| segments.last().cloned());
    UseLeaf {
        segments,
        name,
        glob: false,
        line: line_of(ident.span()),
    }
}

/// Collects the paths mentioned inside one item (skipping attributes, visibilities, macro
/// bodies and test-only code), the `use`s written inside function bodies, and the names that
/// are local to the item's code.
struct PathCollector<'a> {
    tree: &'a mut Tree,
    scope: ModuleId,
    /// Set by `visit_qself` for the path it qualifies: how many of its segments name the
    /// trait.
    qself_position: Option<usize>,
}

impl<'ast> Visit<'ast> for PathCollector<'_> {
    fn visit_attribute(&mut self, _: &'ast Attribute) {}

    fn visit_visibility(&mut self, _: &'ast Visibility) {}

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        // The macro's name is a path. Its tokens are code of unknown shape, except for the
        // standard macros whose arguments are expressions (`format!("{}", super::X)`).
        self.visit_path(&mac.path);
        if is_std_expression_macro(&mac.path)
            && let Ok(arguments) =
                mac.parse_body_with(Punctuated::<syn::Expr, Token![,]>::parse_terminated)
        {
            for argument in &arguments {
                self.visit_expr(argument);
            }
        }
    }

    fn visit_qself(&mut self, qself: &'ast syn::QSelf) {
        visit::visit_qself(self, qself);
        // The next path visited is the one this `<T as Trait>::` qualifies.
        self.qself_position = Some(qself.position);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        // In `<T as a::Trait>::f` only `a::Trait` is a path to resolve; in `<T>::f`, nothing.
        let named = self.qself_position.take().unwrap_or(path.segments.len());
        if named >= 2 || (named >= 1 && path.leading_colon.is_some()) {
            let segments: Vec<String> = path
                .segments
                .iter()
                .take(named)
                .map(|segment| segment.ident.unraw().to_string())
                .collect();
            let line = path
                .segments
                .first()
                .map_or_else(|| line_of(path.span()), |first| line_of(first.ident.span()));
            self.tree.references.push(Reference {
                scope: self.scope,
                segments,
                leading_colon: path.leading_colon.is_some(),
                line,
            });
        }
        visit::visit_path(self, path);
    }

    fn visit_item(&mut self, item: &'ast Item) {
        // An item inside a function body (or an inline module inside one).
        if is_test_only(item_attrs(item)) {
            return;
        }
        match item {
            Item::Use(item_use) => self.tree.collect_use(self.scope, item_use),
            Item::ExternCrate(extern_crate) => {
                self.tree.collect_extern_crate(self.scope, extern_crate);
            }
            _ => {
                if let Some((name, _)) = defined_name(item) {
                    self.tree.add_local_name(self.scope, name);
                }
                if let Item::Mod(module) = item {
                    self.tree
                        .add_local_name(self.scope, module.ident.unraw().to_string());
                }
                visit::visit_item(self, item);
            }
        }
    }

    fn visit_generic_param(&mut self, param: &'ast syn::GenericParam) {
        match param {
            syn::GenericParam::Type(ty) => {
                self.tree
                    .add_local_name(self.scope, ty.ident.unraw().to_string());
            }
            syn::GenericParam::Const(constant) => {
                self.tree
                    .add_local_name(self.scope, constant.ident.unraw().to_string());
            }
            syn::GenericParam::Lifetime(_) => {}
        }
        visit::visit_generic_param(self, param);
    }

    fn visit_impl_item(&mut self, item: &'ast syn::ImplItem) {
        let attrs = match item {
            syn::ImplItem::Const(item) => &item.attrs[..],
            syn::ImplItem::Fn(item) => &item.attrs,
            syn::ImplItem::Type(item) => &item.attrs,
            syn::ImplItem::Macro(item) => &item.attrs,
            _ => &[],
        };
        if !is_test_only(attrs) {
            visit::visit_impl_item(self, item);
        }
    }

    fn visit_trait_item(&mut self, item: &'ast syn::TraitItem) {
        let attrs = match item {
            syn::TraitItem::Const(item) => &item.attrs[..],
            syn::TraitItem::Fn(item) => &item.attrs,
            syn::TraitItem::Type(item) => &item.attrs,
            syn::TraitItem::Macro(item) => &item.attrs,
            _ => &[],
        };
        if !is_test_only(attrs) {
            visit::visit_trait_item(self, item);
        }
    }

    fn visit_field(&mut self, field: &'ast syn::Field) {
        if !is_test_only(&field.attrs) {
            visit::visit_field(self, field);
        }
    }

    fn visit_variant(&mut self, variant: &'ast syn::Variant) {
        if !is_test_only(&variant.attrs) {
            visit::visit_variant(self, variant);
        }
    }

    fn visit_arm(&mut self, arm: &'ast syn::Arm) {
        if !is_test_only(&arm.attrs) {
            visit::visit_arm(self, arm);
        }
    }

    fn visit_local(&mut self, local: &'ast syn::Local) {
        if !is_test_only(&local.attrs) {
            visit::visit_local(self, local);
        }
    }

    fn visit_stmt_macro(&mut self, stmt: &'ast syn::StmtMacro) {
        if !is_test_only(&stmt.attrs) {
            visit::visit_stmt_macro(self, stmt);
        }
    }

    fn visit_field_value(&mut self, field: &'ast syn::FieldValue) {
        if !is_test_only(&field.attrs) {
            visit::visit_field_value(self, field);
        }
    }

    fn visit_foreign_item(&mut self, item: &'ast syn::ForeignItem) {
        let attrs = match item {
            syn::ForeignItem::Fn(item) => &item.attrs[..],
            syn::ForeignItem::Static(item) => &item.attrs,
            syn::ForeignItem::Type(item) => &item.attrs,
            syn::ForeignItem::Macro(item) => &item.attrs,
            _ => &[],
        };
        if !is_test_only(attrs) {
            visit::visit_foreign_item(self, item);
        }
    }
}

/// Whether a macro is one of the standard library's whose arguments are all expressions
/// (`format!`, `assert_eq!`, `vec!`, ...), written bare or as `std::`/`core::`/`alloc::name!`.
fn is_std_expression_macro(path: &syn::Path) -> bool {
    const MACROS: &[&str] = &[
        "assert",
        "assert_eq",
        "assert_ne",
        "debug_assert",
        "debug_assert_eq",
        "debug_assert_ne",
        "dbg",
        "eprint",
        "eprintln",
        "format",
        "format_args",
        "panic",
        "print",
        "println",
        "todo",
        "unimplemented",
        "unreachable",
        "vec",
        "write",
        "writeln",
    ];
    let mut segments = path
        .segments
        .iter()
        .map(|segment| segment.ident.to_string());
    let first = segments.next();
    let (root, name) = match (first, segments.next(), segments.next()) {
        (Some(name), None, None) if path.leading_colon.is_none() => (None, name),
        (Some(root), Some(name), None) => (Some(root), name),
        _ => return false,
    };
    root.is_none_or(|root| matches!(root.as_str(), "std" | "core" | "alloc"))
        && MACROS.contains(&name.as_str())
}

/// The name and kind an item defines, if it defines one (not `impl`, `use`, `mod` or a macro
/// invocation).
fn defined_name(item: &Item) -> Option<(String, ItemKind)> {
    let (ident, kind) = match item {
        Item::Const(item) => (&item.ident, ItemKind::Const),
        Item::Enum(item) => (&item.ident, ItemKind::Enum),
        Item::Fn(item) => (&item.sig.ident, ItemKind::Fn),
        Item::Static(item) => (&item.ident, ItemKind::Static),
        Item::Struct(item) => (&item.ident, ItemKind::Struct),
        Item::Trait(item) => (&item.ident, ItemKind::Trait),
        Item::TraitAlias(item) => (&item.ident, ItemKind::Trait),
        Item::Type(item) => (&item.ident, ItemKind::Type),
        Item::Union(item) => (&item.ident, ItemKind::Union),
        Item::Macro(item) => (item.ident.as_ref()?, ItemKind::Macro),
        _ => return None,
    };
    let name = ident.unraw().to_string();
    (name != "_").then_some((name, kind))
}

fn foreign_name(item: &syn::ForeignItem) -> Option<(String, ItemKind)> {
    let (ident, kind) = match item {
        syn::ForeignItem::Fn(item) => (&item.sig.ident, ItemKind::Fn),
        syn::ForeignItem::Static(item) => (&item.ident, ItemKind::Static),
        syn::ForeignItem::Type(item) => (&item.ident, ItemKind::Type),
        _ => return None,
    };
    Some((ident.unraw().to_string(), kind))
}

fn item_attrs(item: &Item) -> &[Attribute] {
    match item {
        Item::Const(item) => &item.attrs,
        Item::Enum(item) => &item.attrs,
        Item::ExternCrate(item) => &item.attrs,
        Item::Fn(item) => &item.attrs,
        Item::ForeignMod(item) => &item.attrs,
        Item::Impl(item) => &item.attrs,
        Item::Macro(item) => &item.attrs,
        Item::Mod(item) => &item.attrs,
        Item::Static(item) => &item.attrs,
        Item::Struct(item) => &item.attrs,
        Item::Trait(item) => &item.attrs,
        Item::TraitAlias(item) => &item.attrs,
        Item::Type(item) => &item.attrs,
        Item::Union(item) => &item.attrs,
        Item::Use(item) => &item.attrs,
        _ => &[],
    }
}

/// Whether a `use` with this visibility re-exports: anything but private (`pub(self)` is
/// private too).
fn is_exported(vis: &Visibility) -> bool {
    match vis {
        Visibility::Public(_) => true,
        Visibility::Restricted(restricted) => !restricted.path.is_ident("self"),
        Visibility::Inherited => false,
    }
}

/// Whether the attributes make their item exist only in test builds: `#[test]`,
/// `#[cfg(test)]`, or a `cfg` whose predicate cannot hold without `test`
/// (`all(test, ...)`, `any(test, all(test, ...))`).
pub(crate) fn is_test_only(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|attr| {
        if attr.path().is_ident("test") {
            return true;
        }
        attr.path().is_ident("cfg")
            && attr
                .parse_args::<Meta>()
                .is_ok_and(|predicate| requires_test(&predicate))
    })
}

/// Whether a `cfg` predicate is false unless `test` is set.
fn requires_test(predicate: &Meta) -> bool {
    match predicate {
        Meta::Path(path) => path.is_ident("test"),
        Meta::List(list) => {
            let Ok(nested) = list.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
            else {
                return false;
            };
            if list.path.is_ident("all") {
                nested.iter().any(requires_test)
            } else if list.path.is_ident("any") {
                !nested.is_empty() && nested.iter().all(requires_test)
            } else {
                false
            }
        }
        Meta::NameValue(_) => false,
    }
}

/// The 1-based line a span starts on.
pub(crate) fn line_of(span: Span) -> usize {
    span.start().line
}

#[cfg(test)]
mod tests {
    use super::{is_test_only, requires_test};
    use syn::{Attribute, Meta, parse_quote};

    #[test]
    fn test_only_predicates() {
        let holds = |predicate: Meta| requires_test(&predicate);
        assert!(holds(parse_quote!(test)));
        assert!(holds(parse_quote!(all(test, feature = "postgres"))));
        assert!(holds(parse_quote!(any(test, all(unix, test)))));
        assert!(!holds(parse_quote!(not(test))));
        assert!(!holds(parse_quote!(any(test, feature = "postgres"))));
        assert!(!holds(parse_quote!(feature = "test")));
        assert!(!holds(parse_quote!(any())));
    }

    #[test]
    fn test_attribute_counts_as_test_only() {
        let attrs: Vec<Attribute> = vec![parse_quote!(#[test])];
        assert!(is_test_only(&attrs));
        let attrs: Vec<Attribute> = vec![parse_quote!(#[cfg_attr(test, derive(Debug))])];
        assert!(!is_test_only(&attrs));
    }
}
