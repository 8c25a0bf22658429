use tf::Tool;

/// Searches.
#[derive(Tool)]
#[tool(definition = search_definition, name = "search", read_only)]
#[tool(keywords = ["find"])]
struct Search {
    query: String,
}

fn main() {}
