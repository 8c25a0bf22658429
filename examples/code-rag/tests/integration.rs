//! The integration tests of this crate, in one test binary: each file beside this one is a
//! module, and the fixtures and helpers they share are declared once here. One binary links
//! the engine once, where one binary per file linked it dozens of times (`autotests = false`
//! in Cargo.toml; a new test file is a `mod` line below).

mod common;

mod fixture;
mod repository;
mod session;
