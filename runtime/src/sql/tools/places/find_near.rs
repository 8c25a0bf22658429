//! `find_near {entity_type, field, latitude, longitude, radius_km?, conditions?, limit, offset}`:
//! the records whose place is nearest a given place, nearest first, each with its distance.
//!
//! With a radius, the records are first narrowed to the box around the circle through the
//! indexes on the point's coordinates ([`BoundingBox::around`]), then kept when their exact
//! great-circle distance is within the radius; without one, every record with a place is
//! ordered by distance. One statement on either backend: the distance is SQL (a registered
//! function on SQLite, the haversine formula in PostgreSQL's own functions, no extension).

use crate::__private::IntoEngine;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::spec::{EntitySpec, FieldType, SchemaSpec};
use crate::{ToolDefinition, ToolError};

use crate::sql::backend::{Reader, SqlDialect};
use crate::sql::describe::DescriptionBuilder;
use crate::sql::places::{BoundingBox, MAX_DISTANCE_KM, Point, distance_sql};
use crate::sql::query::{
    Condition, EntityQuery, Page, ROW_ALIAS, compile_conditions, fields_of_type, within_sql,
};
use crate::sql::text::ident::qualified;
use crate::sql::tools::engine::EngineTool;
use crate::sql::tools::ranges::bounds::{fields_by_entity, typed_field};
use crate::sql::tools::shared::answers::{Item, ListPage, Record, with_record};
use crate::sql::tools::shared::common::{
    Collector, HandlerError, PageLimits, definition, entity, list_answer, offset,
};
use crate::sql::value::SqlValue;

/// The arguments of `find_near`: the records of one entity nearest a place.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, IntoEngine)]
#[serde(
    deny_unknown_fields,
    bound(deserialize = "E: Deserialize<'de>, F: Deserialize<'de>")
)]
pub struct FindNearArgs<E = String, F = String> {
    /// The entity type to search.
    #[schemars(extend("x-toolforge-slot" = "entity"))]
    pub entity_type: E,
    /// A point field of the entity.
    #[schemars(extend("x-toolforge-slot" = "point_field"))]
    pub field: F,
    /// The place's latitude in degrees (-90 to 90).
    #[schemars(range(min = -90, max = 90))]
    pub latitude: f64,
    /// The place's longitude in degrees (-180 to 180).
    #[schemars(range(min = -180, max = 180))]
    pub longitude: f64,
    /// Only records within this many kilometres; absent: the nearest, however far.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius_km: Option<f64>,
    /// Conditions the records must also meet (AND), as in `query_entities`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition<F>>,
    /// The most records to return.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::sql::tools::shared::common::optional_integer"
    )]
    #[schemars(extend("x-toolforge-slot" = "limit"))]
    pub limit: Option<i64>,
    /// Records to skip: `0` (the default), then the previous answer's `next_offset`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::sql::tools::shared::common::optional_integer"
    )]
    #[schemars(range(min = 0))]
    pub offset: Option<i64>,
}

/// One record near the place.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct NearRecord {
    /// The great-circle distance from the place, in kilometres (to the metre).
    distance_km: Option<f64>,
    /// The record.
    record: Record,
}

impl Item for NearRecord {
    fn into_json(mut self) -> Result<Value, serde_json::Error> {
        let record = std::mem::take(&mut self.record);
        with_record(&self, record)
    }
}

/// The head of `find_near`'s pages.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct NearHead {
    /// The entity searched.
    entity_type: String,
    /// The point field measured.
    field: String,
}

/// `find_near`: one page of the records nearest the place, nearest first (ties by unique
/// id); `total` counts the records within the radius (with a place).
pub(crate) type NearPage = ListPage<NearHead, NearRecord>;

impl EngineTool for FindNearArgs {
    type Answer = NearPage;

    fn definition(spec: &SchemaSpec) -> ToolDefinition {
        let mut text = DescriptionBuilder::new(
            "Find the records nearest a place (latitude, longitude in degrees), nearest first, \
             each with its great-circle distance in km; `radius_km` keeps only those within it. \
             To filter by a box instead, use query_entities with the WITHIN operator.",
        );
        text.push(
            "\n",
            &format!(
                "Point fields: {}.",
                fields_by_entity(spec, FieldType::Point)
            ),
        );
        if let Some((entity, field)) = spec.entities.iter().find_map(|entity| {
            fields_of_type(entity, FieldType::Point)
                .first()
                .map(|field| (entity, *field))
        }) {
            let call = json!({"entity_type": entity.name, "field": field,
                "latitude": 48.8566, "longitude": 2.3522, "radius_km": 5, "limit": 10});
            text.push("\n", &format!("Example call: {call}"));
        }
        definition::<Self>(
            spec,
            "Find near a place",
            text.finish(),
            &[
                "near",
                "nearest",
                "distance",
                "radius",
                "location",
                "geospatial",
                "closest",
            ],
        )
    }

    async fn execute(
        self,
        spec: &SchemaSpec,
        conn: &dyn Reader,
    ) -> Result<Self::Answer, HandlerError> {
        let entity = entity(spec, &self.entity_type, "entity_type")?;
        let field = typed_field(entity, &self.field, "field", FieldType::Point, "find_near")?;
        let center = Point::new(self.latitude, self.longitude).map_err(|problem| {
            ToolError::invalid_arguments(format!("`latitude`/`longitude`: {problem}"))
                .with_details(json!({"path": "latitude"}))
        })?;
        let radius = match self.radius_km {
            Some(radius) if !(radius > 0.0 && radius.is_finite()) => {
                return Err(ToolError::invalid_arguments(format!(
                    "`radius_km` must be a positive number of kilometres, got {radius}"
                ))
                .with_details(json!({"path": "radius_km", "exclusiveMinimum": 0}))
                .into());
            }
            // Half the way round reaches every place.
            Some(radius) if radius < MAX_DISTANCE_KM => Some(radius),
            _ => None,
        };
        let limits = PageLimits::of(spec, self.limit)?;
        let offset = offset(self.offset)?;
        let dialect = conn.dialect();
        let mut params = Vec::new();
        let (where_sql, order_sql) = near_sql(
            entity,
            field,
            center,
            radius,
            &self.conditions,
            &mut params,
            dialect,
        )?;
        let mut query =
            EntityQuery::compiled(entity, where_sql, params, None, limits.rows, dialect)?
                .with_offset(offset);
        query.order_sql = order_sql;

        let head = NearHead {
            entity_type: entity.name.clone(),
            field: field.to_owned(),
        };
        let mut collector = Collector::new(&limits, &head);
        let page = query
            .run_taking(conn, |record| {
                // The wrapper adds `{"distance_km":…,"record":}` to each record.
                collector.take_bytes(crate::limits::object_len(record) + 40)
            })
            .await?;
        let results = page
            .results
            .into_iter()
            .map(|record| {
                let place = record.get(field).and_then(|p| Point::from_json(p).ok());
                NearRecord {
                    distance_km: place.map(|p| (center.distance_km(p) * 1000.0).round() / 1000.0),
                    record,
                }
            })
            .collect();
        let page = Page {
            total: page.total,
            total_exact: page.total_exact,
            offset: page.offset,
            results,
        };
        Ok(list_answer(head, page, &limits, &collector)?)
    }
}

/// The WHERE and ORDER BY of the records of `entity` with a place in `field`, within `radius`
/// of `center` when given, meeting `conditions`: nearest first, ties by unique id.
fn near_sql(
    entity: &EntitySpec,
    field: &str,
    center: Point,
    radius: Option<f64>,
    conditions: &[Condition],
    params: &mut Vec<SqlValue>,
    dialect: SqlDialect,
) -> Result<(String, String), ToolError> {
    let column = qualified(ROW_ALIAS, field);
    let postgres = dialect == SqlDialect::Postgres;
    let mut parts = vec![format!("{column} IS NOT NULL")];
    let conditions = compile_conditions(entity, conditions, "conditions", params, dialect)?;
    if conditions != dialect.true_sql() {
        parts.push(conditions);
    }
    params.push(SqlValue::Real(center.latitude));
    let latitude = format!("?{}", params.len());
    params.push(SqlValue::Real(center.longitude));
    let longitude = format!("?{}", params.len());
    let distance = distance_sql(&column, &latitude, &longitude, postgres);
    match radius {
        Some(radius) => {
            if let Some(bbox) = BoundingBox::around(center, radius) {
                parts.push(within_sql(&column, &bbox, params, dialect));
            }
            params.push(SqlValue::Real(radius));
            parts.push(format!("{distance} <= ?{}", params.len()));
        }
        // The count runs the WHERE alone, and binds every parameter: it must name the place.
        None => parts.push(format!("{distance} IS NOT NULL")),
    }
    let order = format!(
        "{distance} ASC, {} ASC",
        qualified(ROW_ALIAS, &entity.unique_field)
    );
    Ok((parts.join(" AND "), order))
}
