//! @generated from the runtime's argument types (their `#[derive(IntoEngine)]`) by
//! `TOOLFORGE_BLESS=1 cargo test -p toolforge-tests --test integration argument_types`;
//! do not edit. The generator cannot read them itself: it never links the SQL engine.

/// A runtime type's name under `toolforge::sql::tools`, and its name parameters.
pub(crate) type NamedType = (&'static str, &'static [&'static str]);

/// Per database tool, the runtime's types its arguments name (the argument struct
/// first), each with its name parameters.
#[rustfmt::skip]
pub(crate) const TOOL_ARGUMENT_TYPES: &[(&str, &[NamedType])] = &[
    (
        "get_schema",
        &[
            ("GetSchemaArgs", &["E"]),
        ],
    ),
    (
        "describe_entity",
        &[
            ("DescribeEntityArgs", &["E"]),
        ],
    ),
    (
        "query_entities",
        &[
            ("QueryEntitiesArgs", &["E", "F"]),
            ("Condition", &["F"]),
            ("Operator", &[]),
            ("OrderBy", &["F"]),
            ("Direction", &[]),
        ],
    ),
    (
        "get_entity_by_id",
        &[
            ("GetEntityByIdArgs", &["E"]),
        ],
    ),
    (
        "get_entities_by_ids",
        &[
            ("GetEntitiesByIdsArgs", &["E", "F"]),
        ],
    ),
    (
        "explore_relationships",
        &[
            ("ExploreRelationshipsArgs", &["E", "F", "R"]),
            ("Condition", &["F"]),
            ("Operator", &[]),
            ("TraversalDirection", &[]),
        ],
    ),
    (
        "join_entities",
        &[
            ("JoinEntitiesArgs", &["E", "F", "R"]),
            ("Condition", &["F"]),
            ("Operator", &[]),
            ("JoinHop", &["E", "F", "R"]),
            ("TraversalDirection", &[]),
        ],
    ),
    (
        "full_text_search",
        &[
            ("FullTextSearchArgs", &["E", "F"]),
        ],
    ),
    (
        "semantic_search",
        &[
            ("SemanticSearchArgs", &["E", "F"]),
            ("Condition", &["F"]),
            ("Operator", &[]),
        ],
    ),
    (
        "hybrid_search",
        &[
            ("HybridSearchArgs", &["E"]),
        ],
    ),
    (
        "find_similar",
        &[
            ("FindSimilarArgs", &["E", "F", "R"]),
            ("SimilarityKind", &[]),
            ("NeighbourMeasure", &[]),
            ("Condition", &["F"]),
            ("Operator", &[]),
        ],
    ),
    (
        "query_entities_by_date_range",
        &[
            ("QueryEntitiesByDateRangeArgs", &["E", "F"]),
            ("Direction", &[]),
        ],
    ),
    (
        "query_entities_by_number_range",
        &[
            ("QueryEntitiesByNumberRangeArgs", &["E", "F"]),
            ("Direction", &[]),
        ],
    ),
    (
        "glob_search",
        &[
            ("GlobSearchArgs", &["E", "F"]),
        ],
    ),
    (
        "query_entities_by_pattern",
        &[
            ("QueryEntitiesByPatternArgs", &["E", "F"]),
            ("PatternType", &[]),
        ],
    ),
    (
        "aggregate_entities",
        &[
            ("AggregateEntitiesArgs", &["E", "F", "R"]),
            ("Aggregation", &[]),
            ("Condition", &["F"]),
            ("Operator", &[]),
            ("Bucket", &[]),
            ("Along", &["R"]),
            ("TraversalDirection", &[]),
            ("AggregateOrder", &[]),
        ],
    ),
    (
        "find_path",
        &[
            ("FindPathArgs", &["E", "R"]),
            ("PathEnd", &["E"]),
            ("TraversalDirection", &[]),
        ],
    ),
    (
        "rank_entities",
        &[
            ("RankEntitiesArgs", &["E", "R"]),
            ("RankAlgorithm", &[]),
            ("TraversalDirection", &[]),
        ],
    ),
    (
        "find_clusters",
        &[
            ("FindClustersArgs", &["E", "R"]),
        ],
    ),
    (
        "get_entity_change_history",
        &[
            ("GetEntityChangeHistoryArgs", &["E"]),
        ],
    ),
    (
        "find_recently_modified_entities",
        &[
            ("FindRecentlyModifiedEntitiesArgs", &["E"]),
            ("ChangeType", &[]),
        ],
    ),
    (
        "get_most_modified_entities",
        &[
            ("GetMostModifiedEntitiesArgs", &["E"]),
        ],
    ),
    (
        "get_change_statistics",
        &[
            ("GetChangeStatisticsArgs", &["E"]),
            ("Bucket", &[]),
        ],
    ),
    (
        "compare_entity_versions",
        &[
            ("CompareEntityVersionsArgs", &["E"]),
        ],
    ),
    (
        "analyze_churn",
        &[
            ("AnalyzeChurnArgs", &["E", "F"]),
            ("ChurnRank", &[]),
        ],
    ),
    (
        "find_near",
        &[
            ("FindNearArgs", &["E", "F"]),
            ("Condition", &["F"]),
            ("Operator", &[]),
        ],
    ),
];
