use tf::Tool;

/// Searches.
#[derive(Tool)]
#[tool(name = "", title = " ", keywords = ["grep", ""])]
struct Search {
    query: String,
}

fn main() {}
