//! A few books and authors, loaded through the generated typed API (no JSON, no SQL).

use toolforge::sql::{Database, ImportError, ImportStats};

use crate::library::records::{self, Author, Book, BookGenre};

/// The sample authors.
pub fn authors() -> Vec<Author> {
    let author = |slug: &str, name: &str, born: f64| Author {
        slug: slug.into(),
        name: Some(name.into()),
        born: Some(born),
    };
    vec![
        author("frank-herbert", "Frank Herbert", 1920.0),
        author("ursula-k-le-guin", "Ursula K. Le Guin", 1929.0),
        author("terry-pratchett", "Terry Pratchett", 1948.0),
        author("neil-gaiman", "Neil Gaiman", 1960.0),
    ]
}

/// The sample books (the ISBNs are made up), each with the slugs of its authors.
pub fn books() -> Vec<(Book, &'static [&'static str])> {
    let book = |isbn: &str, title: &str, genre: BookGenre, year: f64, pages: f64| Book {
        isbn: isbn.into(),
        title: Some(title.into()),
        genre: Some(genre),
        year: Some(year),
        pages: Some(pages),
        // Computed by the database (`pages > 400`); never written.
        is_long: None,
    };
    vec![
        (
            book(
                "9780000000001",
                "Dune",
                BookGenre::ScienceFiction,
                1965.0,
                617.0,
            ),
            &["frank-herbert"],
        ),
        (
            book(
                "9780000000002",
                "Dune Messiah",
                BookGenre::ScienceFiction,
                1969.0,
                256.0,
            ),
            &["frank-herbert"],
        ),
        (
            book(
                "9780000000003",
                "A Wizard of Earthsea",
                BookGenre::Fantasy,
                1968.0,
                183.0,
            ),
            &["ursula-k-le-guin"],
        ),
        (
            book(
                "9780000000004",
                "The Left Hand of Darkness",
                BookGenre::ScienceFiction,
                1969.0,
                304.0,
            ),
            &["ursula-k-le-guin"],
        ),
        (
            book(
                "9780000000005",
                "The Dispossessed",
                BookGenre::ScienceFiction,
                1974.0,
                387.0,
            ),
            &["ursula-k-le-guin"],
        ),
        (
            book(
                "9780000000006",
                "Good Omens",
                BookGenre::Fantasy,
                1990.0,
                412.0,
            ),
            &["terry-pratchett", "neil-gaiman"],
        ),
        (
            book(
                "9780000000007",
                "American Gods",
                BookGenre::Fantasy,
                2001.0,
                465.0,
            ),
            &["neil-gaiman"],
        ),
    ]
}

/// Creates the tables (if missing) and loads the sample in one transaction: one typed upsert
/// per entity, then one `link_written_by_author_in` per (book, author) pair. Returns how much
/// was written.
pub fn load(db: &Database) -> Result<ImportStats, ImportError> {
    crate::library::apply_schema(db)?;
    let authors = authors();
    let books = books();
    let book_records: Vec<Book> = books.iter().map(|(book, _)| book.clone()).collect();
    let ((), stats) = records::write(db, |w| {
        w.upsert(&authors)?;
        w.upsert(&book_records)?;
        for (book, slugs) in &books {
            for slug in *slugs {
                let author =
                    authors
                        .iter()
                        .find(|a| a.slug == *slug)
                        .ok_or_else(|| ImportError {
                            line: None,
                            field: None,
                            message: format!("`{}` names the unknown author `{slug}`", book.isbn),
                        })?;
                book.link_written_by_author_in(w, author)?;
            }
        }
        Ok(())
    })?;
    Ok(stats)
}
