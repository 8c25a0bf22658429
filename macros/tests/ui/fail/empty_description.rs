use tf::Tool;

#[derive(Tool)]
#[tool(description = "  ")]
struct Search {
    query: String,
}

fn main() {}
