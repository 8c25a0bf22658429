use tf::Tool;

/// Searches anything.
#[derive(Tool)]
struct Search<T> {
    query: T,
}

fn main() {}
