//! Benchmarks of the config front end (placeholder until written).
fn main() {}
