//! Architecture rules over a crate's module graph, and the report of their violations.

use std::fmt;
use std::path::{Component, Path, PathBuf};

use crate::cfg::{CfgMention, feature_cfgs};
use crate::error::LoadError;
use crate::graph::{CrateGraph, Cycle, Edge, rust_files};
use crate::module_path::ModulePath;
use crate::tree::Location;

/// One architecture rule. Module prefixes are written `"sql"`, `"sql::tools"` or
/// `"crate::sql"`, and select the module and everything below it; `""` is the whole crate.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum Rule<'a> {
    /// No cycle of the module graph contains a module under the prefix.
    Acyclic {
        /// The subtree that must stay out of cycles.
        under: &'a str,
    },
    /// Layers, bottom first: a module in layer `i` must not import a module in a layer
    /// `j > i`. A module takes the layer of its longest matching prefix; modules matching
    /// none are unconstrained.
    Layers(&'a [&'a [&'a str]]),
    /// Modules under the prefix must not mention these external crates.
    ForbiddenCrates {
        /// The subtree the crates are forbidden in.
        under: &'a str,
        /// Crate names as written in code (`tokio_postgres`, not `tokio-postgres`).
        crates: &'a [&'a str],
    },
    /// Every `cfg`/`cfg_attr`/`cfg!` mentioning `feature = "<feature>"` is in a file whose path
    /// relative to `src/` starts with one of the allowed prefixes (plain string prefixes:
    /// `"sql/postgres"` allows `sql/postgres.rs` and `sql/postgres/...`).
    CfgConfined {
        /// The Cargo feature.
        feature: &'a str,
        /// Allowed path prefixes, relative to `src/`, with `/` separators.
        allowed: &'a [&'a str],
    },
}

impl Rule<'_> {
    fn needs_graph(&self) -> bool {
        !matches!(self, Rule::CfgConfined { .. })
    }
}

impl fmt::Display for Rule<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rule::Acyclic { under } => write!(f, "acyclic({})", ModulePath::parse(under)),
            Rule::Layers(layers) => {
                f.write_str("layers(")?;
                for (index, layer) in layers.iter().enumerate() {
                    if index > 0 {
                        f.write_str(" < ")?;
                    }
                    write!(f, "[{}]", layer.join(", "))?;
                }
                f.write_str(")")
            }
            Rule::ForbiddenCrates { under, crates } => write!(
                f,
                "forbidden_crates({}, [{}])",
                ModulePath::parse(under),
                crates.join(", ")
            ),
            Rule::CfgConfined { feature, allowed } => write!(
                f,
                "cfg_confined(feature = {feature:?}, [{}])",
                allowed.join(", ")
            ),
        }
    }
}

/// One way a crate breaks a rule.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Violation {
    /// Modules that import each other in a cycle.
    Cycle(Cycle),
    /// A module imports a module of a higher layer.
    UpwardImport {
        /// The import.
        edge: Edge,
        /// The importing module's layer (0 = bottom) and the prefix that put it there.
        from_layer: (usize, String),
        /// The imported module's layer and the prefix that put it there.
        to_layer: (usize, String),
    },
    /// A module mentions a forbidden external crate.
    ForbiddenCrate {
        /// The module.
        module: ModulePath,
        /// The crate.
        krate: String,
        /// The first mention.
        location: Location,
    },
    /// A feature `cfg` outside the allowed files.
    MisplacedCfg(CfgMention),
    /// A rule names a module prefix (or, for `cfg_confined`, a path prefix) that matches
    /// nothing: the rule has gone stale, perhaps after a move.
    UnknownPrefix(String),
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Violation::Cycle(cycle) => write!(f, "{cycle}"),
            Violation::UpwardImport {
                edge,
                from_layer,
                to_layer,
            } => write!(
                f,
                "upward import: {edge}: layer {} (`{}`) imports layer {} (`{}`)",
                from_layer.0, from_layer.1, to_layer.0, to_layer.1
            ),
            Violation::ForbiddenCrate {
                module,
                krate,
                location,
            } => write!(
                f,
                "{module} mentions the forbidden crate `{krate}` ({location})"
            ),
            Violation::MisplacedCfg(mention) => {
                write!(f, "misplaced cfg at {}: {}", mention.location, mention.text)
            }
            Violation::UnknownPrefix(prefix) => {
                write!(
                    f,
                    "the rule's prefix `{prefix}` matches nothing in the crate"
                )
            }
        }
    }
}

/// The violations of one rule in one crate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// The crate's `src/` directory.
    pub src_dir: PathBuf,
    /// The rule, as text.
    pub rule: String,
    /// What breaks it.
    pub violations: Vec<Violation>,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = self.violations.len();
        writeln!(
            f,
            "{} is broken in {}: {count} violation{}",
            self.rule,
            self.src_dir.display(),
            if count == 1 { "" } else { "s" }
        )?;
        // One line per simple violation; a blank line around each multi-line one (cycles).
        let mut after_block = false;
        for violation in &self.violations {
            let text = violation.to_string();
            let text = text.trim_end();
            if text.contains('\n') {
                write!(f, "\n{text}\n")?;
                after_block = true;
            } else {
                if after_block {
                    writeln!(f)?;
                    after_block = false;
                }
                writeln!(f, "  {text}")?;
            }
        }
        Ok(())
    }
}

/// Why a check failed: the crate could not be read, or it breaks rules.
///
/// `Debug` prints the same text as `Display`, so a test that returns
/// `Result<(), Error>` or calls `.unwrap()` shows the full report.
#[non_exhaustive]
pub enum Error {
    /// The crate's source could not be read.
    Load(LoadError),
    /// One report per broken rule.
    Violated(Vec<Report>),
}

impl Error {
    /// The reports of broken rules (empty for a load error).
    pub fn reports(&self) -> &[Report] {
        match self {
            Error::Violated(reports) => reports,
            Error::Load(_) => &[],
        }
    }

    /// All violations of all reports.
    pub fn violations(&self) -> impl Iterator<Item = &Violation> {
        self.reports()
            .iter()
            .flat_map(|report| report.violations.iter())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Load(error) => write!(f, "cannot check the crate: {error}"),
            Error::Violated(reports) => {
                for (index, report) in reports.iter().enumerate() {
                    if index > 0 {
                        writeln!(f)?;
                    }
                    write!(f, "{report}")?;
                }
                Ok(())
            }
        }
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\n{self}")
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Load(error) => Some(error),
            Error::Violated(_) => None,
        }
    }
}

impl From<LoadError> for Error {
    fn from(error: LoadError) -> Self {
        Error::Load(error)
    }
}

/// Checks every rule against the crate whose `src/` directory is `src_dir`, and reports every
/// broken one.
pub fn check(src_dir: impl AsRef<Path>, rules: &[Rule<'_>]) -> Result<(), Error> {
    let src_dir = normalize(src_dir.as_ref());
    let graph = if rules.iter().any(Rule::needs_graph) {
        Some(CrateGraph::load(&src_dir)?)
    } else {
        None
    };
    let mut reports = Vec::new();
    for rule in rules {
        let violations = match (rule, &graph) {
            (Rule::CfgConfined { feature, allowed }, _) => {
                check_cfg_confined(&src_dir, feature, allowed)?
            }
            (rule, Some(graph)) => check_graph(graph, rule),
            (_, None) => unreachable!("the graph is loaded for every graph rule"),
        };
        if !violations.is_empty() {
            reports.push(Report {
                src_dir: src_dir.clone(),
                rule: rule.to_string(),
                violations,
            });
        }
    }
    if reports.is_empty() {
        Ok(())
    } else {
        Err(Error::Violated(reports))
    }
}

/// No cycle of `src_dir`'s module graph contains a module under `under` (`""`: any module).
pub fn acyclic(src_dir: impl AsRef<Path>, under: &str) -> Result<(), Error> {
    check(src_dir, &[Rule::Acyclic { under }])
}

/// Layers, bottom first: no module of layer `i` imports a module of a layer `j > i`.
pub fn layers(src_dir: impl AsRef<Path>, layers: &[&[&str]]) -> Result<(), Error> {
    check(src_dir, &[Rule::Layers(layers)])
}

/// No module under `under` mentions any of `crates`.
pub fn forbidden_crates(
    src_dir: impl AsRef<Path>,
    under: &str,
    crates: &[&str],
) -> Result<(), Error> {
    check(src_dir, &[Rule::ForbiddenCrates { under, crates }])
}

/// Every `cfg` mentioning `feature = "<feature>"` is in a file whose path relative to
/// `src_dir` starts with one of `allowed`.
pub fn cfg_confined(
    src_dir: impl AsRef<Path>,
    feature: &str,
    allowed: &[&str],
) -> Result<(), Error> {
    check(src_dir, &[Rule::CfgConfined { feature, allowed }])
}

/// The violations of a graph rule.
fn check_graph(graph: &CrateGraph, rule: &Rule<'_>) -> Vec<Violation> {
    let mut violations = Vec::new();
    let require_prefix = |prefix: &str, violations: &mut Vec<Violation>| {
        if graph.modules_under(prefix).is_empty() {
            violations.push(Violation::UnknownPrefix(prefix.to_string()));
        }
    };
    match rule {
        Rule::Acyclic { under } => {
            require_prefix(under, &mut violations);
            violations.extend(graph.cycles_under(under).into_iter().map(Violation::Cycle));
        }
        Rule::Layers(layers) => {
            for prefix in layers.iter().flat_map(|layer| layer.iter()) {
                require_prefix(prefix, &mut violations);
            }
            let layer_of = |module: &ModulePath| layer_of(layers, module);
            for edge in graph.edges() {
                if let (Some(from), Some(to)) = (layer_of(&edge.from), layer_of(&edge.to))
                    && to.0 > from.0
                {
                    violations.push(Violation::UpwardImport {
                        edge: edge.clone(),
                        from_layer: from,
                        to_layer: to,
                    });
                }
            }
        }
        Rule::ForbiddenCrates { under, crates } => {
            require_prefix(under, &mut violations);
            for module in graph.modules_under(under) {
                for (krate, location) in graph.external_crates(module.path()) {
                    if crates.contains(&krate.as_str()) {
                        violations.push(Violation::ForbiddenCrate {
                            module: module.path().clone(),
                            krate,
                            location,
                        });
                    }
                }
            }
        }
        Rule::CfgConfined { .. } => {}
    }
    violations
}

/// The layer (index and matching prefix) of a module: that of its longest matching prefix.
fn layer_of(layers: &[&[&str]], module: &ModulePath) -> Option<(usize, String)> {
    layers
        .iter()
        .enumerate()
        .flat_map(|(index, layer)| layer.iter().map(move |prefix| (index, *prefix)))
        .map(|(index, prefix)| (index, prefix, ModulePath::parse(prefix)))
        .filter(|(_, _, path)| module.is_under(path))
        .max_by_key(|(_, _, path)| path.segments().len())
        .map(|(index, prefix, _)| (index, prefix.to_string()))
}

fn check_cfg_confined(
    src_dir: &Path,
    feature: &str,
    allowed: &[&str],
) -> Result<Vec<Violation>, LoadError> {
    let files = rust_files(src_dir)?;
    let slashed = |path: &Path| path.to_string_lossy().replace('\\', "/");
    let mut violations: Vec<Violation> = allowed
        .iter()
        .filter(|prefix| !files.iter().any(|file| slashed(file).starts_with(**prefix)))
        .map(|prefix| Violation::UnknownPrefix((*prefix).to_string()))
        .collect();
    violations.extend(
        feature_cfgs(src_dir, feature)?
            .into_iter()
            .filter(|mention| {
                let file = slashed(&mention.location.file);
                !allowed.iter().any(|prefix| file.starts_with(prefix))
            })
            .map(Violation::MisplacedCfg),
    );
    Ok(violations)
}

/// `a/b/../c` as `a/c`, lexically, so reports name `runtime/src` rather than
/// `layers/../runtime/src`.
fn normalize(path: &Path) -> PathBuf {
    let mut normal = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => match normal.components().next_back() {
                Some(Component::Normal(_)) => {
                    normal.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => normal.push(".."),
            },
            Component::CurDir => {}
            other => normal.push(other),
        }
    }
    normal
}
