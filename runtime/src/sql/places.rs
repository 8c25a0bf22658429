//! Places on Earth: the value of a `point` field, great-circle distances, the box around a
//! circle, and the SQL text that reads a stored point's coordinates.
//!
//! A point is stored as the JSON object `{"latitude": .., "longitude": ..}` (degrees, WGS 84):
//! SQLite text, PostgreSQL `jsonb`. Each coordinate has an index on the expression that reads
//! it ([`coordinate_sql`]), and the queries read it with the same text, so both databases
//! answer a box through the index. Distances are on a sphere of the Earth's mean radius
//! ([`EARTH_RADIUS_KM`]) by the haversine formula, exact to rounding on every backend and
//! within 0.5 % of the ellipsoid's.
//!
//! ```
//! use toolforge::sql::places::{BoundingBox, Point};
//!
//! let paris = Point::new(48.8566, 2.3522).unwrap();
//! let london = Point::new(51.5074, -0.1278).unwrap();
//! let km = paris.distance_km(london);
//! assert!((km - 343.6).abs() < 0.5, "{km}");
//! let around = BoundingBox::around(paris, 400.0).unwrap();
//! assert!(around.contains(london));
//! ```

use std::f64::consts::PI;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The Earth's mean radius (IUGG), the sphere distances are measured on.
pub const EARTH_RADIUS_KM: f64 = 6371.0088;

/// The longest great-circle distance: half the way round.
pub const MAX_DISTANCE_KM: f64 = PI * EARTH_RADIUS_KM;

/// A place: latitude and longitude in degrees (WGS 84), the value of a `point` field.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Point {
    /// Degrees north of the equator (-90 to 90).
    pub latitude: f64,
    /// Degrees east of Greenwich (-180 to 180).
    pub longitude: f64,
}

/// How a value that should be a point is not one, said so that the caller can fix it.
pub(crate) const POINT_SHAPE: &str =
    "an object {\"latitude\": -90 to 90, \"longitude\": -180 to 180} in degrees";

impl Point {
    /// The point at `latitude`, `longitude` (degrees), or why they are not a place.
    pub fn new(latitude: f64, longitude: f64) -> Result<Point, String> {
        if !latitude.is_finite() || !(-90.0..=90.0).contains(&latitude) {
            return Err(format!(
                "latitude {latitude} is not between -90 and 90 degrees"
            ));
        }
        if !longitude.is_finite() || !(-180.0..=180.0).contains(&longitude) {
            return Err(format!(
                "longitude {longitude} is not between -180 and 180 degrees"
            ));
        }
        Ok(Point {
            latitude,
            longitude,
        })
    }

    /// Reads `{"latitude": .., "longitude": ..}`; the error says what is wrong with the value.
    pub fn from_json(value: &Value) -> Result<Point, String> {
        let Value::Object(object) = value else {
            return Err(format!("expected {POINT_SHAPE}"));
        };
        if let Some(other) = object
            .keys()
            .find(|key| !matches!(key.as_str(), "latitude" | "longitude"))
        {
            return Err(format!(
                "unknown member `{other}`; expected {POINT_SHAPE} (GeoJSON's [longitude, latitude] \
                 order is not accepted, to leave no doubt which is which)"
            ));
        }
        let coordinate = |name: &str| match object.get(name) {
            Some(Value::Number(n)) => n.as_f64().ok_or_else(|| format!("`{name}` is not finite")),
            Some(_) => Err(format!("`{name}` must be a number of degrees")),
            None => Err(format!("`{name}` is missing; expected {POINT_SHAPE}")),
        };
        Point::new(coordinate("latitude")?, coordinate("longitude")?)
    }

    /// The JSON text stored for the point: `{"latitude":..,"longitude":..}`.
    pub fn to_json_text(self) -> String {
        serde_json::json!({"latitude": self.latitude, "longitude": self.longitude}).to_string()
    }

    /// The great-circle distance to `other`, in kilometres (haversine, on a sphere of
    /// [`EARTH_RADIUS_KM`]).
    pub fn distance_km(self, other: Point) -> f64 {
        great_circle_km(
            self.latitude,
            self.longitude,
            other.latitude,
            other.longitude,
        )
    }
}

/// The great-circle distance in kilometres between two places given in degrees (haversine).
pub fn great_circle_km(lat1: f64, lon1: f64, lat2: f64, lon2: f64) -> f64 {
    let (phi1, phi2) = (lat1.to_radians(), lat2.to_radians());
    let dphi = (lat2 - lat1).to_radians();
    let dlambda = (lon2 - lon1).to_radians();
    let h = (dphi / 2.0).sin().powi(2) + phi1.cos() * phi2.cos() * (dlambda / 2.0).sin().powi(2);
    2.0 * EARTH_RADIUS_KM * h.sqrt().min(1.0).asin()
}

/// A latitude–longitude box: `south..=north` and `west..=east` in degrees. When `west` is
/// greater than `east` the box crosses the antimeridian (longitude ±180).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoundingBox {
    /// The smallest latitude.
    pub south: f64,
    /// The western edge.
    pub west: f64,
    /// The largest latitude.
    pub north: f64,
    /// The eastern edge.
    pub east: f64,
}

/// The form a box takes in a condition, said where a value is not one.
pub(crate) const BOX_SHAPE: &str = "[south, west, north, east] in degrees (latitudes -90 to 90 \
     with south <= north, longitudes -180 to 180; west > east crosses the antimeridian)";

/// A hair of a degree (about a centimetre) the box around a circle is widened by, so that
/// rounding never drops a place the exact distance keeps.
const MARGIN_DEGREES: f64 = 1e-7;

impl BoundingBox {
    /// Reads `[south, west, north, east]`; the error says what is wrong with the value.
    pub fn from_json(value: &Value) -> Result<BoundingBox, String> {
        let numbers: Option<Vec<f64>> = match value {
            Value::Array(items) if items.len() == 4 => items.iter().map(Value::as_f64).collect(),
            _ => None,
        };
        let Some(numbers) = numbers else {
            return Err(format!("expected four numbers {BOX_SHAPE}"));
        };
        let (south, west, north, east) = (numbers[0], numbers[1], numbers[2], numbers[3]);
        Point::new(south, west).map_err(|e| format!("{e} (south-west corner)"))?;
        Point::new(north, east).map_err(|e| format!("{e} (north-east corner)"))?;
        if south > north {
            return Err(format!(
                "south ({south}) is north of north ({north}); swap them: {BOX_SHAPE}"
            ));
        }
        Ok(BoundingBox {
            south,
            west,
            north,
            east,
        })
    }

    /// The smallest box holding every place within `radius_km` of `center`, or `None` when
    /// that is the whole Earth (the radius reaches half the way round). The box is widened by
    /// about a centimetre so that rounding never leaves out a place the exact distance keeps.
    pub fn around(center: Point, radius_km: f64) -> Option<BoundingBox> {
        let angle = radius_km / EARTH_RADIUS_KM;
        if angle >= PI {
            return None;
        }
        let angle_degrees = angle.to_degrees();
        let south = center.latitude - angle_degrees - MARGIN_DEGREES;
        let north = center.latitude + angle_degrees + MARGIN_DEGREES;
        // A pole inside the circle: every longitude is reached near it.
        if south <= -90.0 || north >= 90.0 {
            return Some(BoundingBox {
                south: south.max(-90.0),
                west: -180.0,
                north: north.min(90.0),
                east: 180.0,
            });
        }
        // The widest longitude a circle of this angle reaches (Matuschek, "Finding Points
        // Within a Distance of a Latitude/Longitude Using Bounding Coordinates").
        let ratio = angle.sin() / center.latitude.to_radians().cos();
        if ratio >= 1.0 {
            return Some(BoundingBox {
                south,
                west: -180.0,
                north,
                east: 180.0,
            });
        }
        let spread = ratio.asin().to_degrees() + MARGIN_DEGREES;
        let mut west = center.longitude - spread;
        let mut east = center.longitude + spread;
        if west < -180.0 {
            west += 360.0;
        }
        if east > 180.0 {
            east -= 360.0;
        }
        Some(BoundingBox {
            south,
            west,
            north,
            east,
        })
    }

    /// Whether the box spans every longitude.
    pub fn all_longitudes(&self) -> bool {
        self.west <= -180.0 && self.east >= 180.0
    }

    /// Whether the box crosses the antimeridian (`west > east`).
    pub fn crosses_antimeridian(&self) -> bool {
        self.west > self.east
    }

    /// Whether `point` lies in the box (edges included).
    pub fn contains(&self, point: Point) -> bool {
        let latitude = (self.south..=self.north).contains(&point.latitude);
        let longitude = if self.crosses_antimeridian() {
            point.longitude >= self.west || point.longitude <= self.east
        } else {
            (self.west..=self.east).contains(&point.longitude)
        };
        latitude && longitude
    }
}

/// A coordinate of a stored point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coordinate {
    /// Degrees north.
    Latitude,
    /// Degrees east.
    Longitude,
}

impl Coordinate {
    /// Both coordinates, latitude first.
    pub const BOTH: [Coordinate; 2] = [Coordinate::Latitude, Coordinate::Longitude];

    /// The JSON member holding it (`latitude`).
    pub fn key(self) -> &'static str {
        match self {
            Coordinate::Latitude => "latitude",
            Coordinate::Longitude => "longitude",
        }
    }
}

/// The SQL reading `coordinate` of the point stored in `column` (an SQL expression, quoted),
/// as a number: the same text in the coordinate's index and in every query, so that the
/// database uses the index.
pub fn coordinate_sql(column: &str, coordinate: Coordinate, postgres: bool) -> String {
    let key = coordinate.key();
    if postgres {
        format!("CAST(({column} ->> '{key}') AS DOUBLE PRECISION)")
    } else {
        format!("json_extract({column}, '$.{key}')")
    }
}

/// The name of the SQLite function computing [`great_circle_km`] (degrees in, kilometres out).
pub const DISTANCE_FUNCTION: &str = "toolforge_distance_km";

/// The SQL of the great-circle distance in kilometres between the point stored in `column`
/// and the place whose latitude and longitude are bound at `latitude` and `longitude`.
pub fn distance_sql(column: &str, latitude: &str, longitude: &str, postgres: bool) -> String {
    let lat = coordinate_sql(column, Coordinate::Latitude, postgres);
    let lon = coordinate_sql(column, Coordinate::Longitude, postgres);
    if postgres {
        format!(
            "(2 * {EARTH_RADIUS_KM} * asin(least(1.0, sqrt(\
             power(sin(radians({lat} - {latitude}) / 2), 2) + \
             cos(radians({latitude})) * cos(radians({lat})) * \
             power(sin(radians({lon} - {longitude}) / 2), 2)))))"
        )
    } else {
        format!("{DISTANCE_FUNCTION}({lat}, {lon}, {latitude}, {longitude})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_points_and_says_what_is_wrong() {
        let p = Point::from_json(&json!({"latitude": 1.5, "longitude": -2})).unwrap();
        assert_eq!(p, Point::new(1.5, -2.0).unwrap());
        assert_eq!(p.to_json_text(), r#"{"latitude":1.5,"longitude":-2.0}"#);
        let err = Point::from_json(&json!([2.0, 1.5])).unwrap_err();
        assert!(err.contains("\"latitude\""), "{err}");
        let err = Point::from_json(&json!({"latitude": 91, "longitude": 0})).unwrap_err();
        assert!(err.contains("between -90 and 90"), "{err}");
        let err = Point::from_json(&json!({"lat": 1, "lon": 2})).unwrap_err();
        assert!(err.contains("unknown member `lat`"), "{err}");
        let err = Point::from_json(&json!({"latitude": 1})).unwrap_err();
        assert!(err.contains("`longitude` is missing"), "{err}");
    }

    #[test]
    fn boxes_hold_their_circles() {
        // Points on the circle's edge, all round, at several latitudes and sizes, including
        // circles over a pole and across the antimeridian.
        for (lat, lon, radius) in [
            (0.0, 0.0, 100.0),
            (60.0, 179.9, 500.0),
            (-45.0, -179.5, 2000.0),
            (89.0, 10.0, 300.0),
            (-10.0, 30.0, 15000.0),
        ] {
            let center = Point::new(lat, lon).unwrap();
            let Some(bbox) = BoundingBox::around(center, radius) else {
                panic!("a whole-Earth box for {radius} km");
            };
            for step in 0..360 {
                let bearing = f64::from(step).to_radians();
                let angle = radius / EARTH_RADIUS_KM * 0.999_999;
                let (phi, lambda) = (lat.to_radians(), lon.to_radians());
                let phi2 =
                    (phi.sin() * angle.cos() + phi.cos() * angle.sin() * bearing.cos()).asin();
                let lambda2 = lambda
                    + (bearing.sin() * angle.sin() * phi.cos())
                        .atan2(angle.cos() - phi.sin() * phi2.sin());
                let lon2 = (lambda2.to_degrees() + 540.0).rem_euclid(360.0) - 180.0;
                let edge = Point::new(phi2.to_degrees(), lon2).unwrap();
                assert!(
                    bbox.contains(edge),
                    "{edge:?} at {step}° is {} km from {center:?} but outside {bbox:?}",
                    center.distance_km(edge)
                );
            }
        }
        assert!(BoundingBox::around(Point::new(0.0, 0.0).unwrap(), MAX_DISTANCE_KM).is_none());
    }

    #[test]
    fn reads_boxes() {
        let bbox = BoundingBox::from_json(&json!([40, 170, 50, -170])).unwrap();
        assert!(bbox.crosses_antimeridian());
        assert!(bbox.contains(Point::new(45.0, 179.0).unwrap()));
        assert!(!bbox.contains(Point::new(45.0, 0.0).unwrap()));
        let err = BoundingBox::from_json(&json!([50, 0, 40, 1])).unwrap_err();
        assert!(err.contains("swap them"), "{err}");
        let err = BoundingBox::from_json(&json!({"south": 1})).unwrap_err();
        assert!(err.contains("[south, west, north, east]"), "{err}");
    }
}
