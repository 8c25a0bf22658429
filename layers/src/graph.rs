//! The module graph of one crate: file modules as nodes, imports as edges, and the cycles
//! (strongly connected components) among them.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

use petgraph::algo::tarjan_scc;
use petgraph::graph::{DiGraph, NodeIndex};

use crate::error::LoadError;
use crate::module_path::ModulePath;
use crate::resolve::{Resolved, Resolver};
use crate::tree::{Location, Module, ModuleId, ReExport, Tree, Warning};

/// `from` imports or mentions something `to` defines.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Edge {
    /// The importing module (a file module).
    pub from: ModulePath,
    /// The defining module (a file module).
    pub to: ModulePath,
    /// The first place in `from`'s file where the dependency arises.
    pub first: Location,
    /// How many `use` leaves and paths make up the dependency.
    pub count: usize,
}

impl fmt::Display for Edge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} -> {} ({})", self.from, self.to, self.first)?;
        if self.count > 1 {
            write!(f, " [{} mentions]", self.count)?;
        }
        Ok(())
    }
}

impl fmt::Debug for Edge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A strongly connected component of more than one module: each of them reaches every
/// other through imports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cycle {
    /// The modules, sorted.
    pub modules: Vec<ModulePath>,
    /// Every edge between two of the modules: removing enough of them breaks the cycle.
    pub edges: Vec<Edge>,
}

impl fmt::Display for Cycle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "cycle of {} modules:", self.modules.len())?;
        for module in &self.modules {
            writeln!(f, "    {module}")?;
        }
        writeln!(f, "  through {} edges:", self.edges.len())?;
        for edge in &self.edges {
            writeln!(f, "    {edge}")?;
        }
        Ok(())
    }
}

/// Where a path resolved to.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Resolution {
    /// The path names this module.
    Module(ModulePath),
    /// The path names an item this module defines.
    Item(ModulePath),
    /// The path reached this module but names nothing it defines or imports that the tool
    /// can see (a macro-generated item, say).
    Unresolved {
        /// The last module the path reached.
        within: ModulePath,
        /// The segment that named nothing known.
        name: String,
    },
    /// The path starts at this external crate.
    External(String),
    /// The path starts at something local to the code (`Self`, a generic, a primitive).
    Local,
}

/// A path whose target the tool could not see, counted as an edge to the last module it
/// reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unresolved {
    /// Where the path is written.
    pub location: Location,
    /// The path, `::`-joined.
    pub path: String,
    /// The last module it reached.
    pub within: ModulePath,
    /// The segment that named nothing known there.
    pub name: String,
}

/// A crate's modules and the dependencies among them, read from source.
///
/// ```no_run
/// let graph = toolforge_layers::CrateGraph::load("runtime/src")?;
/// for cycle in graph.cycles_under("sql") {
///     println!("{cycle}");
/// }
/// # Ok::<(), toolforge_layers::LoadError>(())
/// ```
#[derive(Debug)]
pub struct CrateGraph {
    tree: Tree,
    edges: Vec<Edge>,
    external: BTreeMap<ModuleId, BTreeMap<String, Location>>,
    unresolved: Vec<Unresolved>,
}

impl CrateGraph {
    /// Reads and resolves the crate whose `src/` directory is `src_dir`.
    pub fn load(src_dir: impl AsRef<Path>) -> Result<CrateGraph, LoadError> {
        let tree = Tree::load(src_dir.as_ref())?;
        Ok(Self::build(tree))
    }

    fn build(tree: Tree) -> CrateGraph {
        let resolver = Resolver::new(&tree);
        let mut edges: BTreeMap<(ModuleId, ModuleId), (Location, usize)> = BTreeMap::new();
        let mut external: BTreeMap<ModuleId, BTreeMap<String, Location>> = BTreeMap::new();
        let mut unresolved = Vec::new();
        for reference in &tree.references {
            let from = tree.modules[reference.scope].owner;
            let location = Location {
                file: tree.modules[from].file.clone(),
                line: reference.line,
            };
            let resolved = resolver.resolve(
                reference.scope,
                &reference.segments,
                reference.leading_colon,
            );
            let target = match resolved {
                Resolved::Module(target) | Resolved::Item(target) => target,
                Resolved::Unresolved { within, name } => {
                    unresolved.push(Unresolved {
                        location: location.clone(),
                        path: reference.segments.join("::"),
                        within: tree.modules[within].path.clone(),
                        name,
                    });
                    within
                }
                Resolved::External(krate) => {
                    let first = external.entry(from).or_default().entry(krate);
                    let first = first.or_insert_with(|| location.clone());
                    if location.line < first.line {
                        *first = location;
                    }
                    continue;
                }
                Resolved::Local => continue,
            };
            let to = tree.modules[target].owner;
            if to == from {
                continue;
            }
            let entry = edges.entry((from, to)).or_insert((location.clone(), 0));
            if location.line < entry.0.line {
                entry.0 = location;
            }
            entry.1 += 1;
        }
        let mut edges: Vec<Edge> = edges
            .into_iter()
            .map(|((from, to), (first, count))| Edge {
                from: tree.modules[from].path.clone(),
                to: tree.modules[to].path.clone(),
                first,
                count,
            })
            .collect();
        edges.sort();
        CrateGraph {
            tree,
            edges,
            external,
            unresolved,
        }
    }

    /// The crate's `src/` directory, as given to [`CrateGraph::load`].
    pub fn src_dir(&self) -> &Path {
        &self.tree.src_dir
    }

    /// Every module, file and inline, in declaration order from the crate root.
    pub fn modules(&self) -> impl Iterator<Item = &Module> {
        self.tree.modules.iter()
    }

    /// The file modules (the nodes of the graph), sorted by path.
    pub fn file_modules(&self) -> Vec<&Module> {
        let mut modules: Vec<&Module> = self.modules().filter(|m| !m.is_inline()).collect();
        modules.sort_by(|a, b| a.path().cmp(b.path()));
        modules
    }

    /// The module at `path` (file or inline).
    pub fn module(&self, path: &ModulePath) -> Option<&Module> {
        self.tree
            .modules
            .iter()
            .find(|module| module.path() == path)
    }

    /// The modules at or below `prefix` (`"sql"`, `"crate::sql"`; `""` is the whole crate).
    pub fn modules_under(&self, prefix: &str) -> Vec<&Module> {
        let prefix = ModulePath::parse(prefix);
        self.file_modules()
            .into_iter()
            .filter(|module| module.path().is_under(&prefix))
            .collect()
    }

    /// Every dependency between two different file modules, sorted by `from` then `to`.
    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    /// The external crates a file module's code mentions, with the first place each is
    /// mentioned. Inline modules count as their file module.
    pub fn external_crates(&self, module: &ModulePath) -> BTreeMap<String, Location> {
        self.tree
            .modules
            .iter()
            .position(|candidate| candidate.path() == module)
            .map(|id| self.tree.modules[id].owner)
            .and_then(|owner| self.external.get(&owner).cloned())
            .unwrap_or_default()
    }

    /// The re-exports of a module, each with where it resolves to.
    pub fn reexports(&self, module: &ModulePath) -> Vec<(ReExport, Resolution)> {
        let Some(id) = self.id_of(module) else {
            return Vec::new();
        };
        let resolver = Resolver::new(&self.tree);
        let data = &self.tree.modules[id];
        let imports = data.imports.iter().chain(&data.globs);
        let mut resolved: Vec<(ReExport, Resolution)> = imports
            .filter(|import| import.public)
            .map(|import| {
                let export = ReExport {
                    name: import.name.clone(),
                    path: import.segments.clone(),
                    location: Location {
                        file: data.file.clone(),
                        line: import.line,
                    },
                };
                let target = resolver.resolve(id, &import.segments, import.leading_colon);
                (export, self.public_resolution(target))
            })
            .collect();
        resolved.sort_by_key(|(export, _)| export.location.line);
        resolved
    }

    /// Resolves a path as if written in `module` (`"database::open"`, `"crate::sql::Database"`,
    /// `"super::ddl"`).
    pub fn resolve(&self, module: &ModulePath, path: &str) -> Option<Resolution> {
        let id = self.id_of(module)?;
        let path = path.trim();
        let (leading_colon, path) = match path.strip_prefix("::") {
            Some(rest) => (true, rest),
            None => (false, path),
        };
        let segments: Vec<String> = path.split("::").map(|s| s.trim().to_string()).collect();
        let resolved = Resolver::new(&self.tree).resolve(id, &segments, leading_colon);
        Some(self.public_resolution(resolved))
    }

    /// Paths whose target the tool could not see (each still counted as an edge to the last
    /// module it reached).
    pub fn unresolved(&self) -> &[Unresolved] {
        &self.unresolved
    }

    /// Oddities met while reading the tree (a `mod x;` without a file, say).
    pub fn warnings(&self) -> &[Warning] {
        &self.tree.warnings
    }

    /// Every cycle in the graph: the strongly connected components of more than one module,
    /// computed with petgraph's Tarjan SCC, sorted by their first module.
    pub fn cycles(&self) -> Vec<Cycle> {
        let modules = self.file_modules();
        let mut graph: DiGraph<&ModulePath, ()> = DiGraph::new();
        let nodes: BTreeMap<&ModulePath, NodeIndex> = modules
            .iter()
            .map(|module| (module.path(), graph.add_node(module.path())))
            .collect();
        for edge in &self.edges {
            if let (Some(&from), Some(&to)) = (nodes.get(&edge.from), nodes.get(&edge.to)) {
                graph.add_edge(from, to, ());
            }
        }
        let mut cycles: Vec<Cycle> = tarjan_scc(&graph)
            .into_iter()
            .filter(|component| component.len() > 1)
            .map(|component| {
                let members: BTreeSet<&ModulePath> =
                    component.iter().map(|&node| graph[node]).collect();
                let edges = self
                    .edges
                    .iter()
                    .filter(|edge| members.contains(&edge.from) && members.contains(&edge.to))
                    .cloned()
                    .collect();
                Cycle {
                    modules: members.into_iter().cloned().collect(),
                    edges,
                }
            })
            .collect();
        cycles.sort_by(|a, b| a.modules.cmp(&b.modules));
        cycles
    }

    /// The cycles that contain at least one module at or below `prefix` (`""`: all).
    pub fn cycles_under(&self, prefix: &str) -> Vec<Cycle> {
        let prefix = ModulePath::parse(prefix);
        self.cycles()
            .into_iter()
            .filter(|cycle| cycle.modules.iter().any(|module| module.is_under(&prefix)))
            .collect()
    }

    fn id_of(&self, path: &ModulePath) -> Option<ModuleId> {
        self.tree
            .modules
            .iter()
            .position(|module| module.path() == path)
    }

    fn public_resolution(&self, resolved: Resolved) -> Resolution {
        let path = |id: ModuleId| self.tree.modules[id].path.clone();
        match resolved {
            Resolved::Module(id) => Resolution::Module(path(id)),
            Resolved::Item(id) => Resolution::Item(path(id)),
            Resolved::Unresolved { within, name } => Resolution::Unresolved {
                within: path(within),
                name,
            },
            Resolved::External(krate) => Resolution::External(krate),
            Resolved::Local => Resolution::Local,
        }
    }
}

/// Every `.rs` file under `dir`, relative to it, sorted.
pub(crate) fn rust_files(dir: &Path) -> Result<Vec<PathBuf>, LoadError> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), LoadError> {
        let io = |source| LoadError::Io {
            path: dir.to_path_buf(),
            source,
        };
        for entry in std::fs::read_dir(dir).map_err(io)? {
            let path = entry.map_err(io)?.path();
            if path.is_dir() {
                walk(root, &path, out)?;
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                let relative = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
                out.push(relative);
            }
        }
        Ok(())
    }
    let mut files = Vec::new();
    walk(dir, dir, &mut files)?;
    files.sort();
    Ok(files)
}
