//! The search engines behind the search tools, independent of any database:
//! [`vector`], exact nearest-neighbour search over an in-memory matrix, and (feature `ann`)
//! `approximate`, an HNSW graph over the same matrix for large indexes.

#[cfg(feature = "ann")]
pub mod approximate;
pub mod vector;
