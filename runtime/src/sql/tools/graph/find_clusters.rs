//! `find_clusters {entity_type, relationships?, resolution?, min_cluster_size?, seed?,
//! members?, limit}`: communities of an entity's records along relationships from the entity
//! to itself, by Louvain modularity ([`louvain`](super::louvain)) over the graph `rank_entities`
//! loads (the same caps, shared loads and deadline), largest first, each with its most connected
//! members and its inner and outer edge counts.

use crate::__private::IntoEngine;
use std::time::Instant;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::spec::{EntitySpec, SchemaSpec};
use crate::{CallBudget, ToolDefinition, ToolError};

use crate::sql::Database;
use crate::sql::backend::Reader;
use crate::sql::describe::{DescriptionBuilder, relationship_arrow};
use crate::sql::graphs::GraphCache;
use crate::sql::handler_error::stopped_error;
use crate::sql::tools::engine::EngineTool;
use crate::sql::tools::graph::louvain::{louvain, modularity, undirected_links};
use crate::sql::tools::graph::rank_entities::{display_field, display_names};
use crate::sql::tools::graph::walk::{Walk, load_within, records_of, touching, walks};
use crate::sql::tools::relationships::explore_relationships::TraversalDirection;
use crate::sql::tools::shared::answers::{Answer, Record};
use crate::sql::tools::shared::common::{
    Collector, HandlerError, PageLimits, check_relationship_types, definition, entity,
};
use crate::sql::value::SqlValue;

/// The most members listed per cluster.
const MAX_MEMBERS: i64 = 50;

/// The arguments of `find_clusters`: communities of records along relationships.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, IntoEngine)]
#[serde(
    deny_unknown_fields,
    bound(deserialize = "E: Deserialize<'de>, R: Deserialize<'de>")
)]
pub struct FindClustersArgs<E = String, R = String> {
    /// The entity whose records are clustered.
    #[schemars(extend("x-toolforge-slot" = "entity"))]
    pub entity_type: E,
    /// Relationships from the entity to itself whose edges link records, either direction
    /// (default: all of them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("x-toolforge-slot" = "relationship_list"))]
    pub relationships: Vec<R>,
    /// Above 1, more and smaller clusters; below 1, fewer and larger (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.001, max = 100.0))]
    pub resolution: Option<f64>,
    /// Clusters smaller than this are not listed (default 2).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::sql::tools::shared::common::optional_integer"
    )]
    #[schemars(range(min = 1))]
    pub min_cluster_size: Option<i64>,
    /// The order records are visited in; the same seed gives the same clusters (default 0).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::sql::tools::shared::common::optional_integer"
    )]
    #[schemars(range(min = 0))]
    pub seed: Option<i64>,
    /// The most connected members listed per cluster (default 5, at most 50).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::sql::tools::shared::common::optional_integer"
    )]
    #[schemars(range(min = 0, max = 50))]
    pub members: Option<i64>,
    /// The most clusters to return.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::sql::tools::shared::common::optional_integer"
    )]
    #[schemars(extend("x-toolforge-slot" = "limit"))]
    pub limit: Option<i64>,
}

/// One member of a cluster.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ClusterMember {
    /// The record's unique id.
    #[schemars(with = "String", extend("x-toolforge-slot" = "key"))]
    id: Value,
    /// Its display name, under the entity's display name field, when it has one.
    #[serde(flatten)]
    display: Record,
    /// Its neighbours inside the cluster.
    degree: u64,
}

/// One cluster.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Cluster {
    /// How many records it holds.
    size: u64,
    /// Links between two of its records.
    internal_edges: u64,
    /// Links from one of its records to a record outside.
    external_edges: u64,
    /// Its most connected records, most first.
    members: Vec<ClusterMember>,
}

/// `find_clusters`.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Clusters {
    /// The entity clustered.
    entity_type: String,
    /// The relationships whose edges linked records.
    relationships: Vec<String>,
    /// `louvain`.
    algorithm: &'static str,
    /// The modularity of the whole partition (every cluster, listed or not).
    modularity: f64,
    /// Records in the graph.
    records: u64,
    /// Clusters of at least `min_cluster_size` records.
    total: u64,
    /// Records in smaller clusters (alone, or in pairs below the size asked).
    unclustered: u64,
    /// How many clusters this answer holds.
    returned: u64,
    /// Whether clusters were left out.
    truncated: bool,
    /// The clusters, largest first.
    results: Vec<Cluster>,
}

impl Answer for Clusters {}

/// The walks from `entity` to itself along `relationships` (all such when empty).
fn self_walks<'s>(
    spec: &'s SchemaSpec,
    entity: &EntitySpec,
    relationships: &[String],
) -> Vec<Walk<'s>> {
    let names: Vec<String> = if relationships.is_empty() {
        spec.relationships
            .iter()
            .filter(|r| r.source == entity.name && r.target == entity.name)
            .map(|r| r.rel_type.clone())
            .collect()
    } else {
        relationships.to_vec()
    };
    walks(spec, &names, TraversalDirection::Outgoing)
        .into_iter()
        .filter(|walk| walk.start_entity() == entity.name && walk.to_entity() == entity.name)
        .collect()
}

impl EngineTool for FindClustersArgs {
    type Answer = Clusters;

    fn definition(spec: &SchemaSpec) -> ToolDefinition {
        let mut text = DescriptionBuilder::new(
            "Find clusters (communities) of an entity's records: groups linked more densely \
             inside than to the rest, along relationships from the entity to itself (Louvain \
             modularity). Largest first, each with its size, its most connected members and \
             its internal and external edge counts; `resolution` above 1 gives smaller \
             clusters.",
        );
        let within: Vec<String> = spec
            .relationships
            .iter()
            .filter(|r| r.source == r.target)
            .map(relationship_arrow)
            .collect();
        text.push("\n", &format!("Relationships: {}.", within.join(", ")));
        if let Some(relationship) = spec.relationships.iter().find(|r| r.source == r.target) {
            text.push(
                "\n",
                &format!(
                    "Example call: {}",
                    json!({"entity_type": relationship.source,
                           "relationships": [relationship.rel_type], "limit": 10})
                ),
            );
        }
        definition::<Self>(
            spec,
            "Find clusters",
            text.finish(),
            &[
                "clusters",
                "communities",
                "modules",
                "groups",
                "louvain",
                "modularity",
            ],
        )
    }

    async fn execute(
        self,
        spec: &SchemaSpec,
        conn: &dyn Reader,
    ) -> Result<Self::Answer, HandlerError> {
        handle(spec, conn, self, None).await
    }

    async fn execute_in(
        self,
        spec: &SchemaSpec,
        conn: &dyn Reader,
        db: &Database,
    ) -> Result<Self::Answer, HandlerError> {
        handle(spec, conn, self, Some(db.graph_cache())).await
    }
}

async fn handle(
    spec: &SchemaSpec,
    conn: &dyn Reader,
    arguments: FindClustersArgs,
    graphs: Option<&GraphCache>,
) -> Result<Clusters, HandlerError> {
    let started = Instant::now();
    let entity = entity(spec, &arguments.entity_type, "entity_type")?;
    check_relationship_types(spec, &arguments.relationships, "relationships")?;
    let limits = PageLimits::of(spec, arguments.limit)?;
    let resolution = arguments.resolution.unwrap_or(1.0);
    if !(0.001..=100.0).contains(&resolution) {
        return Err(ToolError::invalid_arguments(
            "`resolution` is a number from 0.001 to 100 (1 is the usual modularity)",
        )
        .with_details(json!({"path": "resolution"}))
        .into());
    }
    let min_size = arguments.min_cluster_size.unwrap_or(2).max(1) as usize;
    let seed = arguments.seed.unwrap_or(0).max(0) as u64;
    let listed_members = limit_named_members(arguments.members.unwrap_or(5))? as usize;
    let within = self_walks(spec, entity, &arguments.relationships);
    if within.is_empty() {
        let arrows = touching(spec, entity);
        return Err(ToolError::invalid_arguments(format!(
            "`relationships`: clusters group records of {0} linked to records of {0}, and {1}; \
             its relationships: {2}",
            entity.name,
            if arguments.relationships.is_empty() {
                format!("no relationship links {} to itself", entity.name)
            } else {
                format!("{} do not", arguments.relationships.join(", "))
            },
            if arrows.is_empty() {
                "none".to_owned()
            } else {
                arrows.join(", ")
            }
        ))
        .with_details(json!({"path": "relationships", "relationships": arrows}))
        .into());
    }
    let total = records_of(conn, entity).await?;
    let refs: Vec<&Walk<'_>> = within.iter().collect();
    let graph = load_within(
        spec,
        conn,
        entity,
        total,
        &refs,
        graphs,
        started,
        "find_clusters loads",
        "cluster along fewer relationships",
    )
    .await?;
    let budget = CallBudget::current();
    let stop = || budget.as_ref().is_some_and(|b| b.is_expired());
    let n = graph.len();
    // The distinct undirected links: what the clustering, the modularity, the degrees and the
    // edge counts read.
    let links = undirected_links(graph.edges());
    let membership = crate::sync::compute(|| louvain(n, &links, resolution, seed, &stop))
        .ok_or_else(stopped_error)?;
    let quality = modularity(n, &links, &membership, resolution);
    let count = membership.iter().max().map_or(0, |c| *c as usize + 1);
    let mut sizes = vec![0u64; count];
    for &c in &membership {
        sizes[c as usize] += 1;
    }
    let mut internal = vec![0u64; count];
    let mut external = vec![0u64; count];
    let mut inner_degree = vec![0u64; n];
    for &(a, b) in &links {
        let (ca, cb) = (membership[a as usize], membership[b as usize]);
        if ca == cb {
            internal[ca as usize] += 1;
            inner_degree[a as usize] += 1;
            inner_degree[b as usize] += 1;
        } else {
            external[ca as usize] += 1;
            external[cb as usize] += 1;
        }
    }
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); count];
    for (node, &c) in membership.iter().enumerate() {
        members[c as usize].push(node as u32);
    }
    // Largest first; ties by their smallest record id (graph positions are in id order).
    let mut listed: Vec<usize> = (0..count)
        .filter(|&c| sizes[c] as usize >= min_size)
        .collect();
    listed.sort_by_key(|&c| (std::cmp::Reverse(sizes[c]), members[c][0]));
    let unclustered: u64 = (0..count)
        .filter(|&c| (sizes[c] as usize) < min_size)
        .map(|c| sizes[c])
        .sum();
    let display = display_field(entity);
    let mut used: Vec<String> = within
        .iter()
        .map(|w| w.relationship.rel_type.clone())
        .collect();
    used.dedup();
    let mut answer = Clusters {
        entity_type: entity.name.clone(),
        relationships: used,
        algorithm: "louvain",
        modularity: (quality * 1e12).round() / 1e12,
        records: n as u64,
        total: listed.len() as u64,
        unclustered,
        returned: 0,
        truncated: false,
        results: Vec::new(),
    };
    let mut collector = Collector::new(&limits, &answer);
    for &c in listed.iter().take(limits.rows as usize) {
        let mut top = members[c].clone();
        top.sort_by_key(|&node| (std::cmp::Reverse(inner_degree[node as usize]), node));
        top.truncate(listed_members);
        let ids: Vec<&str> = top.iter().map(|&node| graph.id(node as usize)).collect();
        let names = display_names(conn, entity, display, &ids).await?;
        let members = top
            .iter()
            .zip(&ids)
            .map(|(&node, id)| {
                let mut shown = Record::new();
                if let (Some(field), Some(SqlValue::Text(name))) = (display, names.get(*id)) {
                    shown.insert(field.into(), json!(name));
                }
                ClusterMember {
                    id: crate::sql::tools::shared::key::to_json(entity, id),
                    display: shown,
                    degree: inner_degree[node as usize],
                }
            })
            .collect();
        let cluster = Cluster {
            size: sizes[c],
            internal_edges: internal[c],
            external_edges: external[c],
            members,
        };
        if !collector.take_item(&cluster) {
            break;
        }
        answer.results.push(cluster);
    }
    answer.returned = answer.results.len() as u64;
    answer.truncated = answer.results.len() < listed.len();
    Ok(answer)
}

/// `members` checked: 0 to [`MAX_MEMBERS`].
fn limit_named_members(members: i64) -> Result<i64, ToolError> {
    if (0..=MAX_MEMBERS).contains(&members) {
        Ok(members)
    } else {
        Err(ToolError::invalid_arguments(format!(
            "`members` is from 0 to {MAX_MEMBERS} (the most connected records listed per \
             cluster)"
        ))
        .with_details(json!({"path": "members"})))
    }
}
