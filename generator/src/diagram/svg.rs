//! The diagram drawn as SVG, without Graphviz: the layered layout of the `layout-rs` crate
//! (Sugiyama style: ranks, crossing reduction, Brandes–Köpf placement, edges routed through
//! dummy nodes as curves) places one box per entity and one label per relationship; this module
//! measures the boxes and writes the SVG itself, so the output is deterministic (the crate's own
//! SVG writer orders its styles by a hash map) and looks like the DOT rendering.
//!
//! Text is set in a monospace font whose advance is taken as 0.6 em, so the boxes fit their
//! lines without measuring fonts. Coordinates are written with one decimal. Configs of more
//! than [`MAX_OPTIMISED_EDGES`] relationships are laid out without crossing reduction, which
//! would take seconds.

use std::fmt::Write;

use layout::core::base::Orientation;
use layout::core::format::{ClipHandle, RenderBackend};
use layout::core::geometry::Point;
use layout::core::style::StyleAttr;
use layout::std_shapes::shapes::{Arrow, Element, ShapeKind};
use layout::topo::layout::VisualGraph;

use super::dot::{COMPUTED_COLOUR, HEADER_FILL, html};
use super::model::{Diagram, Entity, shorten};

/// Font size of field lines, in pixels.
const FONT: f64 = 12.0;
/// Font size of relationship labels, in pixels.
const LABEL_FONT: f64 = 11.0;
/// The advance of one monospace character, per pixel of font size.
const ADVANCE: f64 = 0.6;
/// Height of an entity's header.
const HEADER: f64 = 24.0;
/// Height of one field line.
const LINE: f64 = 17.0;
/// Space inside a box, left and right of its lines.
const PAD: f64 = 8.0;
/// Space around the drawing.
const MARGIN: f64 = 16.0;
/// The most relationships whose drawing gets the layout's rank and crossing optimisations:
/// they take about half a second for 90 (30 entities), five for 180 (60 entities), and the
/// diagram is drawn before `serve --ui` serves. Larger configs are laid out without them, in
/// under a second, with more crossings.
const MAX_OPTIMISED_EDGES: usize = 96;
/// The longest computed-field expression shown, in characters.
const EXPRESSION_CHARS: usize = 48;

/// The diagram as a standalone SVG document.
pub fn to_svg(diagram: &Diagram) -> String {
    let boxes: Vec<EntityBox> = diagram.entities.iter().map(EntityBox::new).collect();
    let mut graph = VisualGraph::new(Orientation::LeftToRight);
    // The layout checks its graph is still acyclic after every edge it adds, at a cost
    // quadratic in the edges: the checks guard the crate's own invariants, not the input.
    graph.dag.set_validate(false);
    let mut handles = Vec::with_capacity(boxes.len());
    for (index, entity) in boxes.iter().enumerate() {
        let element = Element::create_with_properties(
            ShapeKind::new_box(""),
            StyleAttr::simple(),
            Orientation::LeftToRight,
            Point::new(entity.width, entity.height),
            index.to_string(),
        );
        handles.push(graph.add_node(element));
    }
    let position = |name: &str| diagram.entities.iter().position(|e| e.name == name);
    for edge in &diagram.edges {
        let (Some(source), Some(target)) = (position(&edge.source), position(&edge.target)) else {
            continue;
        };
        let mut arrow = Arrow::simple(&edge.label());
        arrow.look.font_size = LABEL_FONT as usize;
        graph.add_edge(arrow, handles[source], handles[target]);
    }
    let mut canvas = Canvas::default();
    if !boxes.is_empty() {
        // Crossing reduction grows steeply with the graph: past this size it is skipped.
        let skip_optimisations = diagram.edges.len() > MAX_OPTIMISED_EDGES;
        graph.do_it(false, skip_optimisations, false, &mut canvas);
    }
    canvas.write(diagram, &boxes)
}

/// One entity's box: its lines and its size.
struct EntityBox {
    /// Field lines: the name, the type and the markers.
    fields: Vec<(String, String, String)>,
    /// Computed lines: the name, and `: type = expression`.
    computed: Vec<(String, String)>,
    width: f64,
    height: f64,
}

impl EntityBox {
    fn new(entity: &Entity) -> EntityBox {
        let fields: Vec<(String, String, String)> = entity
            .fields
            .iter()
            .map(|field| {
                let markers: Vec<&str> = field.markers.iter().map(|m| m.label()).collect();
                let markers = if markers.is_empty() {
                    String::new()
                } else {
                    format!("  {}", markers.join(", "))
                };
                (
                    field.name.clone(),
                    format!(": {}", field.type_text()),
                    markers,
                )
            })
            .collect();
        let computed: Vec<(String, String)> = entity
            .computed
            .iter()
            .map(|field| {
                (
                    field.name.clone(),
                    format!(
                        ": {} = {}",
                        field.ty,
                        shorten(&field.source, EXPRESSION_CHARS)
                    ),
                )
            })
            .collect();
        let chars = fields
            .iter()
            .map(|(a, b, c)| chars(a) + chars(b) + chars(c))
            .chain(computed.iter().map(|(a, b)| chars(a) + chars(b)))
            .max()
            .unwrap_or(0)
            .max(chars(&entity.name) + 2);
        let width = (chars as f64 * FONT * ADVANCE + 2.0 * PAD).max(96.0).ceil();
        let separator = if computed.is_empty() { 0.0 } else { 6.0 };
        let lines = (fields.len() + computed.len()) as f64;
        let height = (HEADER + lines * LINE + 6.0 + separator).ceil();
        EntityBox {
            fields,
            computed,
            width,
            height,
        }
    }
}

fn chars(text: &str) -> usize {
    text.chars().count()
}

/// What the layout drew: where each entity's box went, the labels and the edges' curves.
#[derive(Default)]
struct Canvas {
    /// Per entity (by index): the box's top-left corner.
    boxes: Vec<(usize, Point)>,
    /// Relationship labels: centre and text.
    labels: Vec<(Point, String)>,
    /// Edges, in the order the layout draws them.
    edges: Vec<Curve>,
}

/// One edge's curve: its points as the layout hands them (the exit vector, then entry
/// vectors) and whether each end has an arrowhead.
type Curve = (Vec<(Point, Point)>, (bool, bool));

impl RenderBackend for Canvas {
    fn draw_rect(
        &mut self,
        xy: Point,
        _size: Point,
        _look: &StyleAttr,
        properties: Option<String>,
        _clip: Option<ClipHandle>,
    ) {
        if let Some(index) = properties.and_then(|p| p.parse::<usize>().ok()) {
            self.boxes.push((index, xy));
        }
    }

    fn draw_line(&mut self, _: Point, _: Point, _: &StyleAttr, _: Option<String>) {}

    fn draw_circle(&mut self, _: Point, _: Point, _: &StyleAttr, _: Option<String>) {}

    fn draw_text(&mut self, xy: Point, text: &str, _look: &StyleAttr) {
        if !text.is_empty() {
            self.labels.push((xy, text.to_owned()));
        }
    }

    fn draw_arrow(
        &mut self,
        path: &[(Point, Point)],
        _dashed: bool,
        head: (bool, bool),
        _look: &StyleAttr,
        _properties: Option<String>,
        _text: &str,
    ) {
        if path.len() >= 2 {
            self.edges.push((path.to_vec(), head));
        }
    }

    fn create_clip(&mut self, _: Point, _: Point, _: usize) -> ClipHandle {
        0
    }
}

/// The smallest rectangle holding what was added.
struct Bounds {
    min: Point,
    max: Point,
}

impl Bounds {
    fn new() -> Bounds {
        Bounds {
            min: Point::new(f64::INFINITY, f64::INFINITY),
            max: Point::new(f64::NEG_INFINITY, f64::NEG_INFINITY),
        }
    }

    fn add(&mut self, point: Point) {
        if point.x.is_finite() && point.y.is_finite() {
            self.min = Point::new(self.min.x.min(point.x), self.min.y.min(point.y));
            self.max = Point::new(self.max.x.max(point.x), self.max.y.max(point.y));
        }
    }

    fn is_empty(&self) -> bool {
        self.min.x > self.max.x
    }
}

/// Width of a label's text.
fn label_width(text: &str) -> f64 {
    chars(text) as f64 * LABEL_FONT * ADVANCE
}

impl Canvas {
    /// Where each label goes. The layout draws an edge's label at the node it routes the edge
    /// through, in the order it draws the edges (labels and curves pair up one to one, since
    /// every relationship has a label); a loop's label is moved beside the loop's far end,
    /// which the layout's own spot misses.
    fn placed_labels(&self) -> Vec<(Point, String)> {
        if self.labels.len() != self.edges.len() {
            return self.labels.clone();
        }
        self.labels
            .iter()
            .zip(&self.edges)
            .map(|((centre, text), (path, _))| {
                let (start, end) = (path[0].0, path[path.len() - 1].1);
                let is_loop = path.len() == 3 && start.distance_to(end) < 1.0;
                if is_loop {
                    let apex = path[1].1;
                    let beside = Point::new(apex.x + label_width(text) / 2.0 + 6.0, apex.y);
                    (beside, text.clone())
                } else {
                    (*centre, text.clone())
                }
            })
            .collect()
    }

    /// The SVG document.
    fn write(&self, diagram: &Diagram, boxes: &[EntityBox]) -> String {
        let mut bounds = Bounds::new();
        for (index, corner) in &self.boxes {
            if let Some(entity) = boxes.get(*index) {
                bounds.add(*corner);
                bounds.add(Point::new(
                    corner.x + entity.width,
                    corner.y + entity.height,
                ));
            }
        }
        for (centre, text) in &self.placed_labels() {
            let half = Point::new(label_width(text) / 2.0 + 4.0, LABEL_FONT);
            bounds.add(Point::new(centre.x - half.x, centre.y - half.y));
            bounds.add(Point::new(centre.x + half.x, centre.y + half.y));
        }
        for (path, _) in &self.edges {
            for (a, b) in path {
                bounds.add(*a);
                bounds.add(*b);
            }
        }
        if bounds.is_empty() {
            bounds.add(Point::new(0.0, 0.0));
            bounds.add(Point::new(240.0, 40.0));
        }
        let shift = Point::new(MARGIN - bounds.min.x, MARGIN - bounds.min.y);
        let at = |p: Point| Point::new(p.x + shift.x, p.y + shift.y);
        let width = (bounds.max.x - bounds.min.x + 2.0 * MARGIN).ceil();
        let height = (bounds.max.y - bounds.min.y + 2.0 * MARGIN).ceil();

        let mut out = String::new();
        let _ = writeln!(
            out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"toolforge-er\" \
             viewBox=\"0 0 {width} {height}\" width=\"{width}\" height=\"{height}\" role=\"img\" \
             aria-label=\"{}\">",
            html(&format!("Entities of {}", diagram.name))
        );
        let _ = writeln!(out, "<title>{}</title>", html(&diagram.name));
        out.push_str(concat!(
            "<defs><marker id=\"arrowhead\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" ",
            "markerWidth=\"8\" markerHeight=\"8\" orient=\"auto-start-reverse\">",
            "<path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"#444444\"/></marker></defs>\n",
        ));
        let _ = writeln!(
            out,
            // Every rule scoped to the diagram, which a page may inline among its own elements.
            "<style>.toolforge-er text {{ font-family: ui-monospace, Menlo, Consolas, \"DejaVu \
             Sans Mono\", monospace; font-size: {FONT}px; fill: #1a1a1a; }} .toolforge-er \
             .entity-name {{ font-weight: bold; }} .toolforge-er .type {{ fill: #555555; }} \
             .toolforge-er .marker {{ fill: #8a5a00; }} .toolforge-er .computed {{ fill: \
             {COMPUTED_COLOUR}; font-style: italic; }} .toolforge-er .label {{ font-size: \
             {LABEL_FONT}px; fill: #333333; }} .toolforge-er .edge {{ fill: none; stroke: \
             #444444; stroke-width: 1.2; }}</style>"
        );
        if self.boxes.is_empty() {
            let _ = writeln!(
                out,
                "<text x=\"{MARGIN}\" y=\"{}\">{} has no entities</text>",
                MARGIN + FONT,
                html(&diagram.name)
            );
        }
        out.push_str("<g class=\"edges\">\n");
        for (path, (start, end)) in &self.edges {
            let mut d = String::new();
            let (first, second) = (path[0], path[1]);
            let _ = write!(
                d,
                "M {} C {} {} {}",
                xy(at(first.0)),
                xy(at(first.1)),
                xy(at(second.0)),
                xy(at(second.1))
            );
            for point in &path[2..] {
                let _ = write!(d, " S {} {}", xy(at(point.0)), xy(at(point.1)));
            }
            let mut heads = String::new();
            if *start {
                heads.push_str(" marker-start=\"url(#arrowhead)\"");
            }
            if *end {
                heads.push_str(" marker-end=\"url(#arrowhead)\"");
            }
            let _ = writeln!(out, "<path class=\"edge\" d=\"{d}\"{heads}/>");
        }
        out.push_str("</g>\n<g class=\"labels\">\n");
        for (centre, text) in &self.placed_labels() {
            let c = at(*centre);
            let w = label_width(text) + 6.0;
            let _ = writeln!(
                out,
                "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#ffffff\" \
                 fill-opacity=\"0.85\"/><text class=\"label\" x=\"{}\" y=\"{}\" \
                 text-anchor=\"middle\">{}</text>",
                num(c.x - w / 2.0),
                num(c.y - LABEL_FONT * 0.8),
                num(w),
                num(LABEL_FONT * 1.4),
                num(c.x),
                num(c.y + LABEL_FONT * 0.35),
                html(text)
            );
        }
        out.push_str("</g>\n<g class=\"entities\">\n");
        let mut placed: Vec<&(usize, Point)> = self.boxes.iter().collect();
        placed.sort_by_key(|(index, _)| *index);
        for (index, corner) in placed {
            let (Some(entity), Some(shape)) = (diagram.entities.get(*index), boxes.get(*index))
            else {
                continue;
            };
            write_entity(&mut out, &entity.name, shape, at(*corner));
        }
        out.push_str("</g>\n</svg>\n");
        out
    }
}

/// One entity's box at `corner`.
fn write_entity(out: &mut String, name: &str, shape: &EntityBox, corner: Point) {
    let (x, y) = (corner.x, corner.y);
    let _ = writeln!(out, "<g class=\"entity\" data-entity=\"{}\">", html(name));
    let (w, h) = (num(shape.width), num(shape.height));
    let _ = writeln!(
        out,
        "<rect x=\"{}\" y=\"{}\" width=\"{w}\" height=\"{h}\" rx=\"4\" fill=\"#ffffff\"/>",
        num(x),
        num(y)
    );
    // The header: rounded above, square where it meets the fields.
    let _ = writeln!(
        out,
        "<rect x=\"{}\" y=\"{}\" width=\"{w}\" height=\"{}\" rx=\"4\" fill=\"{HEADER_FILL}\"/>\
         <rect x=\"{}\" y=\"{}\" width=\"{w}\" height=\"4\" fill=\"{HEADER_FILL}\"/>",
        num(x),
        num(y),
        num(HEADER),
        num(x),
        num(y + HEADER - 4.0)
    );
    let _ = writeln!(
        out,
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#5b6b80\" stroke-width=\"1\"/>",
        num(x),
        num(y + HEADER),
        num(x + shape.width),
        num(y + HEADER)
    );
    let _ = writeln!(
        out,
        "<rect x=\"{}\" y=\"{}\" width=\"{w}\" height=\"{h}\" rx=\"4\" fill=\"none\" \
         stroke=\"#5b6b80\" stroke-width=\"1.2\"/>",
        num(x),
        num(y)
    );
    let _ = writeln!(
        out,
        "<text class=\"entity-name\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
        num(x + shape.width / 2.0),
        num(y + HEADER / 2.0 + FONT * 0.35),
        html(name)
    );
    let mut baseline = y + HEADER + LINE - 3.0;
    for (field, ty, markers) in &shape.fields {
        let _ = write!(
            out,
            "<text x=\"{}\" y=\"{}\">{}<tspan class=\"type\">{}</tspan>",
            num(x + PAD),
            num(baseline),
            html(field),
            html(ty)
        );
        if !markers.is_empty() {
            let _ = write!(out, "<tspan class=\"marker\">{}</tspan>", html(markers));
        }
        out.push_str("</text>\n");
        baseline += LINE;
    }
    if !shape.computed.is_empty() {
        let line_y = baseline - LINE + 6.0;
        let _ = writeln!(
            out,
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#c5ccd6\" \
             stroke-dasharray=\"3 2\"/>",
            num(x + 4.0),
            num(line_y),
            num(x + shape.width - 4.0),
            num(line_y)
        );
        baseline += 6.0;
        for (field, rest) in &shape.computed {
            let _ = writeln!(
                out,
                "<text class=\"computed\" x=\"{}\" y=\"{}\">{}{}</text>",
                num(x + PAD),
                num(baseline),
                html(field),
                html(rest)
            );
            baseline += LINE;
        }
    }
    out.push_str("</g>\n");
}

/// A coordinate pair, `x y`.
fn xy(point: Point) -> String {
    format!("{} {}", num(point.x), num(point.y))
}

/// A number with at most one decimal, without `-0`.
fn num(value: f64) -> String {
    let rounded = (value * 10.0).round() / 10.0;
    if rounded == 0.0 || !rounded.is_finite() {
        return "0".to_owned();
    }
    if rounded.fract() == 0.0 {
        format!("{rounded:.0}")
    } else {
        format!("{rounded:.1}")
    }
}
