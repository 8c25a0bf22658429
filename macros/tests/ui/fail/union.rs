use tf::Tool;

/// Reads bits.
#[derive(Tool)]
union Bits {
    integer: u32,
    float: f32,
}

fn main() {}
