//! Entity–relationship diagrams of a config: its entities with their fields (type, unique and
//! search markers) and computed fields, and its relationships as edges from source to target
//! labelled with their type. One model ([`Diagram::from_spec`]), three renderings: Mermaid
//! ([`to_mermaid`], for Markdown), Graphviz DOT ([`to_dot`]) and, with the `svg` feature, SVG
//! laid out in-process ([`to_svg`], what `toolforge schema --format svg` prints and the
//! workbench of `toolforge serve --ui` shows). Every rendering is deterministic: config order,
//! no timestamps, fixed number formatting.
//!
//! ```
//! use toolforge_generator::__private::diagram::{Diagram, to_mermaid};
//! let source = "name: demo\nentities:\n  - name: Note\n    searchable_fields:\n      - name: title\n        type: string\n";
//! let compiled = toolforge_generator::compile_str(source, "demo.yaml", &Default::default()).unwrap();
//! let mermaid = to_mermaid(&Diagram::from_spec(&compiled.spec));
//! assert!(mermaid.contains("string uuid PK"));
//! ```

mod dot;
mod mermaid;
mod model;
#[cfg(feature = "svg")]
mod svg;

pub use dot::to_dot;
pub use mermaid::to_mermaid;
pub use model::{Computed, Diagram, Edge, Entity, Field, Marker};
#[cfg(feature = "svg")]
pub use svg::to_svg;
