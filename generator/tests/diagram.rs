//! The entity–relationship diagrams of `toolforge schema --format mermaid|dot|svg`: snapshots
//! of the Mermaid and DOT text for two configs, and every corpus config drawn in the three
//! formats (the SVG read back by an XML parser, with one box per entity and one curve per
//! relationship), twice, byte for byte the same.

use std::path::{Path, PathBuf};

use toolforge_generator::__private::diagram::{Diagram, to_dot, to_mermaid};

fn diagram_of(path: &Path) -> Option<Diagram> {
    let compiled = toolforge_generator::compile_file(path, &Default::default()).ok()?;
    Some(Diagram::from_spec(&compiled.spec))
}

fn repository(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(relative)
}

#[test]
fn awkward_names_snapshots() {
    let diagram = diagram_of(&repository("tests/fixtures/awkward-names.yaml")).unwrap();
    insta::assert_snapshot!("awkward_names.mmd", to_mermaid(&diagram));
    insta::assert_snapshot!("awkward_names.dot", to_dot(&diagram));
}

#[test]
fn code_rag_snapshots() {
    let diagram = diagram_of(&repository(
        "tests/corpus/ragforge__examples__code-rag__ragforge.config.yaml",
    ))
    .unwrap();
    insta::assert_snapshot!("code_rag.mmd", to_mermaid(&diagram));
    insta::assert_snapshot!("code_rag.dot", to_dot(&diagram));
}

#[test]
fn markers_and_edges_follow_the_config() {
    let diagram = diagram_of(&repository("tests/fixtures/awkward-names.yaml")).unwrap();
    let server = &diagram.entities[0];
    assert_eq!(server.name, "HTTPServer");
    let markers = |name: &str| -> Vec<&str> {
        server
            .fields
            .iter()
            .find(|f| f.name == name)
            .unwrap()
            .markers
            .iter()
            .map(|m| m.label())
            .collect()
    };
    assert_eq!(markers("apiKey"), ["unique"]);
    assert_eq!(markers("select"), ["full-text"]);
    assert!(markers("order").is_empty());
    assert_eq!(server.computed[0].source, "order + 1");
    // one edge for the relationship declared at both ends, source first
    assert_eq!(diagram.edges.len(), 1);
    assert_eq!(
        (
            diagram.edges[0].source.as_str(),
            diagram.edges[0].target.as_str()
        ),
        ("HTTPServer", "user_account")
    );
}

fn corpus() -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(repository("tests/corpus"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    paths.sort();
    paths
}

#[test]
fn every_corpus_config_draws_in_every_format() {
    let mut drawn = 0;
    for path in corpus() {
        let Some(diagram) = diagram_of(&path) else {
            continue;
        };
        let name = path.display();
        let mermaid = to_mermaid(&diagram);
        assert!(mermaid.contains("erDiagram\n"), "{name}");
        assert_eq!(mermaid, to_mermaid(&diagram), "{name}: deterministic");
        for entity in &diagram.entities {
            assert!(
                mermaid.contains(&format!("    {} {{", entity.name)),
                "{name}"
            );
        }
        assert_eq!(
            mermaid.matches("}o--o{").count(),
            diagram.edges.len(),
            "{name}"
        );
        let dot = to_dot(&diagram);
        assert!(
            dot.starts_with("digraph ") && dot.ends_with("}\n"),
            "{name}"
        );
        assert_eq!(dot.matches(" -> ").count(), diagram.edges.len(), "{name}");
        #[cfg(feature = "svg")]
        svg_is_well_formed(&diagram, &name.to_string());
        drawn += 1;
    }
    assert!(drawn >= 10, "only {drawn} corpus configs drawn");
}

#[cfg(feature = "svg")]
fn svg_is_well_formed(diagram: &Diagram, name: &str) {
    use toolforge_generator::__private::diagram::to_svg;
    let svg = to_svg(diagram);
    assert_eq!(svg, to_svg(diagram), "{name}: deterministic");
    let document = roxmltree::Document::parse(&svg)
        .unwrap_or_else(|error| panic!("{name}: the SVG is not XML: {error}\n{svg}"));
    let root = document.root_element();
    assert_eq!(root.tag_name().name(), "svg", "{name}");
    assert_eq!(
        root.tag_name().namespace(),
        Some("http://www.w3.org/2000/svg")
    );
    let entities: Vec<&str> = root
        .descendants()
        .filter(|n| n.attribute("class") == Some("entity"))
        .filter_map(|n| n.attribute("data-entity"))
        .collect();
    let expected: Vec<&str> = diagram.entities.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(entities, expected, "{name}: one box per entity");
    let curves = root
        .descendants()
        .filter(|n| n.attribute("class") == Some("edge"))
        .count();
    assert_eq!(
        curves,
        diagram.edges.len(),
        "{name}: one curve per relationship"
    );
    for number in ["width", "height"] {
        let value: f64 = root.attribute(number).unwrap().parse().unwrap();
        assert!(value.is_finite() && value > 0.0, "{name}: {number} {value}");
    }
    assert!(!svg.contains("NaN") && !svg.contains("inf"), "{name}");
}

/// Graphs the corpus lacks: an entity linked to itself, two relationships between one pair in
/// both directions, a cycle, an entity without relationships, no entity at all.
#[cfg(feature = "svg")]
#[test]
fn awkward_graphs_draw() {
    use toolforge_generator::__private::diagram::to_svg;
    let config = "name: graphs\nentities:\n\
        - name: A\n  searchable_fields: [{name: n, type: string}]\n  relationships:\n\
        \x20   - {type: SELF, target: A, direction: outgoing}\n\
        \x20   - {type: TO_B, target: B, direction: outgoing}\n\
        \x20   - {type: ALSO_B, target: B, direction: outgoing}\n\
        - name: B\n  searchable_fields: [{name: n, type: string}]\n  relationships:\n\
        \x20   - {type: BACK, target: A, direction: outgoing}\n\
        \x20   - {type: TO_C, target: C, direction: outgoing}\n\
        - name: C\n  searchable_fields: [{name: n, type: string}]\n  relationships:\n\
        \x20   - {type: TO_A, target: A, direction: outgoing}\n\
        - name: Alone\n  searchable_fields: [{name: n, type: string}]\n";
    let compiled = toolforge_generator::compile_str(config, "graphs.yaml", &Default::default())
        .unwrap_or_else(|d| panic!("{}", d.render()));
    let diagram = Diagram::from_spec(&compiled.spec);
    assert_eq!(diagram.edges.len(), 6);
    svg_is_well_formed(&diagram, "graphs");
    let empty = Diagram {
        name: "empty".into(),
        entities: Vec::new(),
        edges: Vec::new(),
    };
    let svg = to_svg(&empty);
    roxmltree::Document::parse(&svg).unwrap();
    assert!(svg.contains("empty has no entities"));
}

/// A config past the size the layout optimises (60 entities, 180 relationships) is drawn too,
/// without crossing reduction, which would take seconds.
#[cfg(feature = "svg")]
#[test]
fn a_large_config_draws() {
    use std::fmt::Write;
    let mut config = String::from("name: large\nentities:\n");
    for i in 0..60 {
        let _ = write!(
            config,
            "  - name: E{i}\n    searchable_fields: [{{name: title, type: string}}]\n    relationships:\n"
        );
        for r in 0..3 {
            let target = (i * 7 + r * 13 + 1) % 60;
            let _ = writeln!(
                config,
                "      - {{type: R{i}_{r}, target: E{target}, direction: outgoing}}"
            );
        }
    }
    let compiled = toolforge_generator::compile_str(&config, "large.yaml", &Default::default())
        .unwrap_or_else(|d| panic!("{}", d.render()));
    let diagram = Diagram::from_spec(&compiled.spec);
    assert_eq!(diagram.edges.len(), 180);
    svg_is_well_formed(&diagram, "large");
}
