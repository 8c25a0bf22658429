//! The one table of database tools ([`database_tool_table!`](crate::__database_tool_table)):
//! each tool's variant, name, family and argument struct, on one line. Everything that lists
//! the tools follows from it: [`ToolFamily::tool_names`] here, the engine's `DatabaseTool`
//! enum and its dispatch (`sql::tools`), the typed calls of generated modules, and the
//! generator's type aliases, and the argument struct's public name
//! (`toolforge::sql::tools::QueryEntitiesArgs`), the tool's kind, and what a spec needs for
//! the tool to be built ([`Prerequisite`], read by
//! [`SchemaSpec::meets`](super::SchemaSpec::meets)). Adding a database tool is one file under
//! `sql/tools/<family>/`, its `mod` line in the family's `mod.rs`, and one line below.

use serde::{Deserialize, Serialize};

/// Calls the macro `$then` with every database tool, one `Variant: "name", Family,
/// family::file, ArgsStruct<E, ...>, Prerequisite;` row per tool, grouped by family in
/// registration order.
/// The module path is the tool's file under `sql/tools/`; the argument struct's parameters name
/// the name enums it is generic over: `E` entities, `F` fields, `R` relationship types. Not a public API (it is how the crates of toolforge share the table).
#[doc(hidden)]
#[macro_export]
macro_rules! __database_tool_table {
    ($then:ident) => {
        $then! {
            GetSchema: "get_schema", Schema, schema::get_schema, GetSchemaArgs<E>, Nothing;
            DescribeEntity: "describe_entity", Schema, schema::describe_entity, DescribeEntityArgs<E>, Nothing;
            QueryEntities: "query_entities", Query, query::query_entities, QueryEntitiesArgs<E, F>, Nothing;
            GetEntityById: "get_entity_by_id", Lookup, lookup::get_entity_by_id, GetEntityByIdArgs<E>, Nothing;
            GetEntitiesByIds: "get_entities_by_ids", Lookup, lookup::get_entities_by_ids, GetEntitiesByIdsArgs<E, F>, Nothing;
            ExploreRelationships: "explore_relationships", Relationships, relationships::explore_relationships, ExploreRelationshipsArgs<E, F, R>, Relationships;
            JoinEntities: "join_entities", Relationships, relationships::join_entities, JoinEntitiesArgs<E, F, R>, Relationships;
            FullTextSearch: "full_text_search", Search, search::full_text_search, FullTextSearchArgs<E, F>, FullTextIndex;
            SemanticSearch: "semantic_search", Search, search::semantic_search, SemanticSearchArgs<E, F>, VectorIndex;
            HybridSearch: "hybrid_search", Search, search::hybrid_search, HybridSearchArgs<E>, FullTextAndVectorIndex;
            FindSimilar: "find_similar", Search, search::find_similar, FindSimilarArgs<E, F, R>, RelationshipOrVectorIndex;
            QueryEntitiesByDateRange: "query_entities_by_date_range", Ranges, ranges::date_range, QueryEntitiesByDateRangeArgs<E, F>, DatetimeField;
            QueryEntitiesByNumberRange: "query_entities_by_number_range", Ranges, ranges::number_range, QueryEntitiesByNumberRangeArgs<E, F>, NumberField;
            GlobSearch: "glob_search", Patterns, patterns::glob_search, GlobSearchArgs<E, F>, Nothing;
            QueryEntitiesByPattern: "query_entities_by_pattern", Patterns, patterns::pattern, QueryEntitiesByPatternArgs<E, F>, Nothing;
            AggregateEntities: "aggregate_entities", Aggregates, aggregates::aggregate, AggregateEntitiesArgs<E, F, R>, Nothing;
            FindPath: "find_path", Graph, graph::find_path, FindPathArgs<E, R>, Relationships;
            RankEntities: "rank_entities", Graph, graph::rank_entities, RankEntitiesArgs<E, R>, Relationships;
            FindClusters: "find_clusters", Graph, graph::find_clusters, FindClustersArgs<E, R>, SelfRelationship;
            GetEntityChangeHistory: "get_entity_change_history", Changes, changes::change_history, GetEntityChangeHistoryArgs<E>, TrackedEntity;
            FindRecentlyModifiedEntities: "find_recently_modified_entities", Changes, changes::recently_modified, FindRecentlyModifiedEntitiesArgs<E>, TrackedEntity;
            GetMostModifiedEntities: "get_most_modified_entities", Changes, changes::most_modified, GetMostModifiedEntitiesArgs<E>, TrackedEntity;
            GetChangeStatistics: "get_change_statistics", Changes, changes::change_statistics, GetChangeStatisticsArgs<E>, TrackedEntity;
            CompareEntityVersions: "compare_entity_versions", Changes, changes::compare_versions, CompareEntityVersionsArgs<E>, TrackedEntity;
            AnalyzeChurn: "analyze_churn", Changes, changes::churn, AnalyzeChurnArgs<E, F>, TrackedEntity;
            FindNear: "find_near", Places, places::find_near, FindNearArgs<E, F>, PointField;
        }
    };
}

/// The table's names and families, in its order.
macro_rules! names_and_families {
    ($($variant:ident: $name:literal, $family:ident, $($module:ident)::+, $args:ident<$($param:ident),+>, $needs:ident;)*) => {
        /// Every database tool's name, in the table's order.
        const TOOL_NAMES: &[&str] = &[$($name),*];
        /// The family of each tool of [`TOOL_NAMES`].
        const TOOL_FAMILIES: &[ToolFamily] = &[$(ToolFamily::$family),*];
        /// What each tool of [`TOOL_NAMES`] needs of a spec.
        const TOOL_PREREQUISITES: &[Prerequisite] = &[$(Prerequisite::$needs),*];
    };
}
crate::__database_tool_table!(names_and_families);

/// What a spec must have for a database tool to be built: a tool whose prerequisite the spec
/// lacks is left out of its tools (a search tool without an index to search would only fail).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Prerequisite {
    /// Any spec.
    Nothing,
    /// A relationship.
    Relationships,
    /// A relationship whose source and target are one entity (a graph to cluster).
    SelfRelationship,
    /// A relationship, or a vector index (`find_similar` compares by either).
    RelationshipOrVectorIndex,
    /// A datetime field (stored or computed) other than a unique field.
    DatetimeField,
    /// A number field (stored or computed) other than a unique field.
    NumberField,
    /// A `point` field.
    PointField,
    /// An entity with a full-text index.
    FullTextIndex,
    /// An entity with a vector index.
    VectorIndex,
    /// An entity with both a full-text and a vector index.
    FullTextAndVectorIndex,
    /// An entity with change tracking.
    TrackedEntity,
}

impl Prerequisite {
    /// What the database tool `name` (without prefix) needs; `None` for a name that is not a
    /// database tool.
    pub fn of(name: &str) -> Option<Prerequisite> {
        let index = TOOL_NAMES.iter().position(|known| *known == name)?;
        Some(TOOL_PREREQUISITES[index])
    }
}

/// A group of generated tools that can be switched on or off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolFamily {
    /// `get_schema`, `describe_entity`.
    Schema,
    /// `query_entities`.
    Query,
    /// `get_entity_by_id`, `get_entities_by_ids`.
    Lookup,
    /// `explore_relationships`, `join_entities`.
    Relationships,
    /// `full_text_search` (for specs with a full-text index), `semantic_search` (for specs
    /// with a vector index), `hybrid_search` (for an entity with both), `find_similar` (for
    /// specs with a vector index or a relationship).
    Search,
    /// `query_entities_by_date_range`, `query_entities_by_number_range` (off unless listed:
    /// `query_entities` takes the same bounds as `>=` / `<=` conditions).
    Ranges,
    /// `glob_search`, `query_entities_by_pattern` (off unless listed: `query_entities` takes
    /// `GLOB` and `REGEX` conditions; only the fuzzy match is new).
    Patterns,
    /// `aggregate_entities` (off unless listed).
    Aggregates,
    /// `find_path`, `rank_entities`, `find_clusters`.
    Graph,
    /// `get_entity_change_history`, `find_recently_modified_entities`,
    /// `get_most_modified_entities`, `get_change_statistics`, `compare_entity_versions`,
    /// `analyze_churn` (for specs with tracked entities).
    Changes,
    /// `find_near` (for specs with a `point` field).
    Places,
}

impl ToolFamily {
    /// The names of the family's tools, without a prefix, in registration order. A tool
    /// is built only when the spec has what it needs (see [`SchemaSpec::offers`](super::SchemaSpec::offers)).
    pub fn tool_names(self) -> &'static [&'static str] {
        // The table lists each family's tools in one run (checked by a test below).
        let start = TOOL_FAMILIES
            .iter()
            .position(|family| *family == self)
            .unwrap_or(TOOL_FAMILIES.len());
        let run = TOOL_FAMILIES[start..]
            .iter()
            .take_while(|family| **family == self)
            .count();
        &TOOL_NAMES[start..start + run]
    }

    /// The family's name as a config writes it (`toolforge: tools: [ranges]`).
    pub fn name(self) -> &'static str {
        match self {
            ToolFamily::Schema => "schema",
            ToolFamily::Query => "query",
            ToolFamily::Lookup => "lookup",
            ToolFamily::Relationships => "relationships",
            ToolFamily::Search => "search",
            ToolFamily::Ranges => "ranges",
            ToolFamily::Patterns => "patterns",
            ToolFamily::Aggregates => "aggregates",
            ToolFamily::Graph => "graph",
            ToolFamily::Changes => "changes",
            ToolFamily::Places => "places",
        }
    }

    /// Every family, in the order tools are registered.
    pub const ALL: [ToolFamily; 11] = [
        ToolFamily::Schema,
        ToolFamily::Query,
        ToolFamily::Lookup,
        ToolFamily::Relationships,
        ToolFamily::Search,
        ToolFamily::Ranges,
        ToolFamily::Patterns,
        ToolFamily::Aggregates,
        ToolFamily::Graph,
        ToolFamily::Changes,
        ToolFamily::Places,
    ];

    /// The families built when a config does not list them: every family but
    /// [`ToolFamily::Ranges`] and [`ToolFamily::Patterns`], whose tools restate conditions
    /// `query_entities` already takes, and [`ToolFamily::Aggregates`]. A model is sent every
    /// listed tool's definition with each request, so a tool that says again what another
    /// says costs tokens on every turn.
    pub const DEFAULT: [ToolFamily; 8] = [
        ToolFamily::Schema,
        ToolFamily::Query,
        ToolFamily::Lookup,
        ToolFamily::Relationships,
        ToolFamily::Search,
        ToolFamily::Graph,
        ToolFamily::Changes,
        ToolFamily::Places,
    ];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_family_is_one_run_of_the_table() {
        for family in ToolFamily::ALL {
            let rows = TOOL_FAMILIES.iter().filter(|f| **f == family).count();
            assert!(rows > 0, "{family:?} has no tools");
            assert_eq!(
                family.tool_names().len(),
                rows,
                "{family:?} is split in the table"
            );
        }
        assert_eq!(TOOL_NAMES.len(), TOOL_FAMILIES.len());
        assert_eq!(TOOL_NAMES.len(), TOOL_PREREQUISITES.len());
    }

    #[test]
    fn families_follow_registration_order() {
        let order: Vec<ToolFamily> = TOOL_FAMILIES.iter().fold(Vec::new(), |mut seen, f| {
            if seen.last() != Some(f) {
                seen.push(*f);
            }
            seen
        });
        assert_eq!(order, ToolFamily::ALL);
    }
}
