//! Procedural macros for toolforge. Use them through the `toolforge` crate, which re-exports
//! them.

#![forbid(unsafe_code)]
