//! The search engines behind the search tools, independent of any database:
//! [`vector`], exact nearest-neighbour search over an in-memory matrix.

pub mod vector;
