//! `find_near` and the `WITHIN` condition on every backend against a brute force written here:
//! stores scattered over the Earth, with crowds near the antimeridian and the North Pole, each
//! distance computed by this file with the spherical Vincenty formula (not the haversine the
//! engine uses), each box by plain comparisons.

use std::sync::Arc;

use serde_json::{Value, json};
use toolforge::spec::SchemaSpec;
use toolforge::sql::Database;
use toolforge::sql::tools::DatabaseTool;

const STORES: usize = 400;
const EARTH_RADIUS_KM: f64 = 6371.0088;

/// Stores with a place (`location`), some without one, and a kind to filter by.
pub fn spec() -> SchemaSpec {
    serde_json::from_value(json!({
        "name": "stores",
        "entities": [
            {"name": "Store", "table": "store", "unique_field": "id",
             "fields": [{"name": "id", "type": "string", "unique": true},
                        {"name": "kind", "type": "enum", "values": ["cafe", "bakery", "market"]},
                        {"name": "location", "type": "point"},
                        {"name": "opened", "type": "number"}]}
        ],
        "relationships": [],
        "tools": {"default_limit": 10, "max_limit": 500, "families": ["query", "lookup", "places"]}
    }))
    .unwrap()
}

/// A store: its id, kind and place (latitude, longitude), if it has one.
struct Store {
    id: String,
    kind: &'static str,
    place: Option<(f64, f64)>,
}

fn stores() -> Vec<Store> {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut unit = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % 1_000_000) as f64 / 1_000_000.0
    };
    let kinds = ["cafe", "bakery", "market"];
    (0..STORES)
        .map(|i| {
            let place = match i % 5 {
                // Every tenth store has no place.
                _ if i % 10 == 9 => None,
                // Around the antimeridian near Fiji.
                0 => Some((-17.0 + unit() * 4.0, 177.0 + unit() * 6.0)),
                // Near the North Pole.
                1 => Some((86.0 + unit() * 4.0, unit() * 360.0)),
                // Around Paris.
                2 => Some((48.0 + unit() * 2.0, 1.5 + unit() * 2.0)),
                // Anywhere.
                _ => Some((unit() * 180.0 - 90.0, unit() * 360.0)),
            }
            .map(|(lat, lon): (f64, f64)| {
                let lon = if lon > 180.0 { lon - 360.0 } else { lon };
                ((lat * 1e5).round() / 1e5, (lon * 1e5).round() / 1e5)
            });
            Store {
                id: format!("s{i:03}"),
                kind: kinds[i % 3],
                place,
            }
        })
        .collect()
}

fn import_lines(stores: &[Store]) -> String {
    stores
        .iter()
        .map(|store| {
            let mut data = json!({"id": store.id, "kind": store.kind, "opened": 2000});
            if let Some((lat, lon)) = store.place {
                data["location"] = json!({"latitude": lat, "longitude": lon});
            }
            format!("{}\n", json!({"entity": "Store", "data": data}))
        })
        .collect()
}

/// The great-circle distance by the spherical Vincenty formula (atan2 of the chord parts).
fn reference_km(a: (f64, f64), b: (f64, f64)) -> f64 {
    let (phi1, phi2) = (a.0.to_radians(), b.0.to_radians());
    let dlambda = (b.1 - a.1).to_radians();
    let y = ((phi2.cos() * dlambda.sin()).powi(2)
        + (phi1.cos() * phi2.sin() - phi1.sin() * phi2.cos() * dlambda.cos()).powi(2))
    .sqrt();
    let x = phi1.sin() * phi2.sin() + phi1.cos() * phi2.cos() * dlambda.cos();
    EARTH_RADIUS_KM * y.atan2(x)
}

/// The stores with a place meeting `keep`, within `radius` of `center`, nearest first (ties
/// by id), with their distances.
fn nearest(
    stores: &[Store],
    center: (f64, f64),
    radius: Option<f64>,
    keep: &dyn Fn(&Store) -> bool,
) -> Vec<(String, f64)> {
    let mut found: Vec<(String, f64)> = stores
        .iter()
        .filter(|s| keep(s))
        .filter_map(|s| s.place.map(|p| (s.id.clone(), reference_km(center, p))))
        .filter(|(_, d)| radius.is_none_or(|r| *d <= r))
        .collect();
    found.sort_by(|a, b| a.1.total_cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
    found
}

fn rows(answer: &Value) -> Vec<(String, f64)> {
    answer["results"]
        .as_array()
        .unwrap_or_else(|| panic!("no results: {answer}"))
        .iter()
        .map(|row| {
            (
                row["record"]["id"].as_str().unwrap().to_owned(),
                row["distance_km"].as_f64().unwrap(),
            )
        })
        .collect()
}

fn same(got: &[(String, f64)], want: &[(String, f64)], what: &str) {
    let ids = |list: &[(String, f64)]| list.iter().map(|(id, _)| id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(got), ids(want), "{what}");
    for ((id, km), (_, reference)) in got.iter().zip(want) {
        assert!(
            (km - reference).abs() <= 0.001,
            "{what}: {id} is {km} km away, the reference says {reference} (more than 1 m apart)"
        );
    }
}

/// Imports the stores into `db` and checks `find_near` and `WITHIN` against the brute force.
pub async fn check_places(db: &Database) {
    let spec = spec();
    db.init(&spec).unwrap();
    let all = stores();
    db.import_jsonl(&spec, import_lines(&all).as_bytes())
        .unwrap();
    let spec = Arc::new(spec);
    let call = |tool: DatabaseTool, args: Value| {
        let spec = spec.clone();
        let db = db.clone();
        async move { tool.call(spec, db, args.clone()).await }
    };
    let near = |args: Value| {
        let call = &call;
        async move {
            call(DatabaseTool::FindNear, args.clone())
                .await
                .unwrap_or_else(|error| panic!("{args}: {}", error.to_json()))
        }
    };
    let every = |_: &Store| true;

    // The nearest, however far: from Paris, from Fiji across the antimeridian, from the pole.
    for center in [
        (48.8566, 2.3522),
        (-18.1, 179.9),
        (90.0, 0.0),
        (-33.9, 151.2),
    ] {
        let answer = near(json!({"entity_type": "Store", "field": "location",
            "latitude": center.0, "longitude": center.1, "limit": 25}))
        .await;
        let want = nearest(&all, center, None, &every);
        same(
            &rows(&answer),
            &want[..25],
            &format!("nearest to {center:?}"),
        );
        assert_eq!(answer["total"], json!(want.len().min(1000)), "{answer}");
    }

    // Within a radius, paged: exactly the stores the brute force keeps, in order.
    for (center, radius) in [
        ((48.8566, 2.3522), 60.0),
        ((-15.0, -179.5), 400.0),
        ((88.0, -120.0), 500.0),
        ((0.0, 0.0), 12_000.0),
    ] {
        let want = nearest(&all, center, Some(radius), &every);
        assert!(
            want.len() > 3,
            "{center:?} {radius} km holds {} stores",
            want.len()
        );
        let mut got = Vec::new();
        let mut offset = 0;
        loop {
            let answer = near(json!({"entity_type": "Store", "field": "location",
                "latitude": center.0, "longitude": center.1, "radius_km": radius,
                "limit": 7, "offset": offset}))
            .await;
            got.extend(rows(&answer));
            match answer["next_offset"].as_u64() {
                Some(next) => offset = next,
                None => {
                    assert_eq!(answer["total"], json!(want.len()), "{answer}");
                    break;
                }
            }
        }
        same(&got, &want, &format!("within {radius} km of {center:?}"));
    }

    // With conditions, as query_entities takes them.
    let cafes = |s: &Store| s.kind == "cafe";
    let answer = near(json!({"entity_type": "Store", "field": "location",
        "latitude": 48.8566, "longitude": 2.3522, "radius_km": 150,
        "conditions": [{"field": "kind", "operator": "=", "value": "cafe"}], "limit": 500}))
    .await;
    same(
        &rows(&answer),
        &nearest(&all, (48.8566, 2.3522), Some(150.0), &cafes),
        "cafes near Paris",
    );

    // A record's place reads back as it was written.
    let record = call(
        DatabaseTool::GetEntityById,
        json!({"entity_type": "Store", "id_value": "s002"}),
    )
    .await
    .unwrap();
    let (lat, lon) = all[2].place.unwrap();
    assert_eq!(
        record["record"]["location"],
        json!({"latitude": lat, "longitude": lon}),
        "{record}"
    );

    // WITHIN boxes, one across the antimeridian, one around the pole.
    for bbox in [
        [-18.0, 178.0, -14.0, -178.5],
        [47.5, 1.0, 49.5, 3.0],
        [87.0, -180.0, 90.0, 180.0],
    ] {
        let answer = call(
            DatabaseTool::QueryEntities,
            json!({"entity_type": "Store", "limit": 500,
                   "conditions": [{"field": "location", "operator": "WITHIN", "value": bbox}]}),
        )
        .await
        .unwrap_or_else(|error| panic!("{bbox:?}: {}", error.to_json()));
        let got: Vec<&str> = answer["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_str().unwrap())
            .collect();
        let [south, west, north, east] = bbox;
        let want: Vec<&str> = all
            .iter()
            .filter(|s| {
                s.place.is_some_and(|(lat, lon)| {
                    let longitude = if west > east {
                        lon >= west || lon <= east
                    } else {
                        lon >= west && lon <= east
                    };
                    lat >= south && lat <= north && longitude
                })
            })
            .map(|s| s.id.as_str())
            .collect();
        assert!(want.len() > 3, "{bbox:?} holds {}", want.len());
        assert_eq!(got, want, "WITHIN {bbox:?}");
    }

    // Errors that say what to fix.
    let refused = |tool: DatabaseTool, args: Value, needle: &'static str| {
        let call = &call;
        async move {
            let error = call(tool, args.clone())
                .await
                .expect_err(&format!("{args} was answered"));
            let text = error.to_json().to_string();
            assert!(text.contains(needle), "{args}: {text} lacks {needle:?}");
        }
    };
    refused(
        DatabaseTool::FindNear,
        json!({"entity_type": "Store", "field": "location", "latitude": 95, "longitude": 0}),
        "between -90 and 90",
    )
    .await;
    refused(
        DatabaseTool::FindNear,
        json!({"entity_type": "Store", "field": "kind", "latitude": 1, "longitude": 0}),
        "takes one of its point fields: location",
    )
    .await;
    refused(
        DatabaseTool::FindNear,
        json!({"entity_type": "Store", "field": "location", "latitude": 1, "longitude": 0,
               "radius_km": -3}),
        "`radius_km` must be a positive number",
    )
    .await;
    refused(
        DatabaseTool::QueryEntities,
        json!({"entity_type": "Store", "conditions": [
            {"field": "location", "operator": "WITHIN", "value": [50, 0, 40, 1]}]}),
        "swap them",
    )
    .await;
    refused(
        DatabaseTool::QueryEntities,
        json!({"entity_type": "Store", "conditions": [
            {"field": "location", "operator": "=", "value": {"latitude": 1, "longitude": 2}}]}),
        "take only null",
    )
    .await;
    refused(
        DatabaseTool::QueryEntities,
        json!({"entity_type": "Store", "order_by": {"field": "location"}}),
        "find_near orders them by distance",
    )
    .await;
    refused(
        DatabaseTool::QueryEntities,
        json!({"entity_type": "Store", "conditions": [
            {"field": "kind", "operator": "WITHIN", "value": [0, 0, 1, 1]}]}),
        "does not apply to `kind`",
    )
    .await;

    // A place that is not one is refused on import, and nothing of the line is written.
    let spec = spec.as_ref();
    for (bad, needle) in [
        (json!([2.35, 48.85]), "{\"latitude\": -90 to 90"),
        (json!({"lat": 48.85, "lon": 2.35}), "unknown member `lat`"),
        (
            json!({"latitude": 48.85, "longitude": 200}),
            "between -180 and 180",
        ),
    ] {
        let line = json!({"entity": "Store", "data": {"id": "bad", "location": bad}});
        let error = db
            .import_jsonl(spec, format!("{line}\n").as_bytes())
            .expect_err("a bad place was imported");
        let text = error.to_string();
        assert!(text.contains(needle), "{text} lacks {needle:?}");
    }
    let missing = call(
        DatabaseTool::GetEntityById,
        json!({"entity_type": "Store", "id_value": "bad"}),
    )
    .await;
    assert!(
        missing.is_err(),
        "a refused line left a record: {missing:?}"
    );
}
