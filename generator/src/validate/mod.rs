//! Validation rules over a deserialized [`Config`], one file per rule family. Every rule
//! reports through the same reporter, so all problems are reported at once, each located.
//!
//! | file | rules |
//! |---|---|
//! | `names.rs` | identifiers, duplicates, snake_case / Rust identifier collisions |
//! | `types.rs` | field types, `enum` values, computed field types |
//! | `mapping.rs` | existing tables: `table:`, `column:`, keys, `foreign_key:`, `join_table:` |
//! | `references.rs` | fields named by entity settings, relationship targets, hierarchies |
//! | `vectors.rs` | vector index dimensions, source fields, similarity |
//! | `full_text.rs` | full-text index fields, weights, analyzer |
//! | `computed.rs` | computed field bodies, `materialized` / `cache_property` |
//! | `options.rs` | the `toolforge:` section |
//! | `offers.rs` | `toolforge.prompts` and `toolforge.resources`: names, arguments, templates, URIs |
//! | `storage.rs` | on the lowered spec: table and index names, merged edge properties, Rust type names |
//! | `serving.rs` | on the lowered spec: the tools named by `mcp.tools` and `toolforge.toolsets` |

mod computed;
mod drift;
mod embeddings;
mod full_text;
mod mapping;
mod names;
mod offers;
mod options;
mod references;
mod serving;
mod storage;
mod types;
mod vectors;

use crate::config::Config;
use crate::report::Reporter;

pub use crate::naming::is_identifier;
pub(crate) use drift::check_database;

/// Runs every rule on `config`.
pub(crate) fn validate(config: &Config, reporter: &mut Reporter<'_>) {
    if config.entities.is_empty() {
        reporter
            .error("entities", "the config defines no entities")
            .hint(
                "add an `entities:` list with at least one entity, for example\n  entities:\n    - name: Document\n      searchable_fields:\n        - name: title\n          type: string",
            )
            .emit();
    }
    names::check(config, reporter);
    types::check(config, reporter);
    references::check(config, reporter);
    mapping::check(config, reporter);
    vectors::check(config, reporter);
    embeddings::check(config, reporter);
    full_text::check(config, reporter);
    computed::check(config, reporter);
    options::check(config, reporter);
    offers::check(config, reporter);
}

/// Checks the spec lowered from a config without errors: what SQLite and the generated Rust
/// need beyond the config's own rules (see `storage.rs`).
pub(crate) fn validate_spec(
    config: &Config,
    spec: &toolforge::spec::SchemaSpec,
    serving: bool,
    reporter: &mut Reporter<'_>,
) {
    if reporter.error_count() == 0 {
        storage::check(config, spec, reporter);
        serving::check(config, spec, serving, reporter);
    }
}
