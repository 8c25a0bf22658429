//! Every page of the guide is in its table of contents and has its Rust snippets run: a chapter
//! added to `docs/guide/src/SUMMARY.md` but not to the `doctests_of!` list of this crate's
//! library would be published with snippets nobody compiled.

use std::path::Path;

/// The chapter files `SUMMARY.md` links to, in its order.
fn chapters(summary: &str) -> Vec<String> {
    summary
        .lines()
        .filter_map(|line| {
            let start = line.find("](")? + 2;
            let end = start + line[start..].find(')')?;
            Some(line[start..end].to_owned())
        })
        .collect()
}

#[test]
fn every_chapter_is_listed_and_its_snippets_are_doctests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let guide = root.join("docs/guide/src");
    let summary = std::fs::read_to_string(guide.join("SUMMARY.md")).expect("SUMMARY.md");
    let listed = chapters(&summary);
    assert!(listed.len() >= 10, "SUMMARY.md lists {listed:?}");

    let library = include_str!("../src/lib.rs");
    for chapter in &listed {
        assert!(
            guide.join(chapter).is_file(),
            "SUMMARY.md links to a missing page {chapter}"
        );
        // The generated reference pages hold no Rust; every written chapter's snippets run.
        if !chapter.starts_with("reference/") {
            let entry = format!("\"docs/guide/src/{chapter}\"");
            assert!(
                library.contains(&entry),
                "docs/guide/src/{chapter} is in SUMMARY.md but not in tests/src/lib.rs's \
                 doctests_of! list: add it there so its Rust snippets run"
            );
        }
    }
    for page in std::fs::read_dir(&guide).expect("the guide's pages") {
        let name = page
            .expect("a page")
            .file_name()
            .to_string_lossy()
            .into_owned();
        if name.ends_with(".md") && name != "SUMMARY.md" {
            assert!(
                listed.contains(&name),
                "docs/guide/src/{name} is not in SUMMARY.md"
            );
        }
    }
}
