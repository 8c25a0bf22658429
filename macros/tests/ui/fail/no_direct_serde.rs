//! The UI test crates depend on the runtime only: this proves the pass cases do not borrow a
//! direct serde dependency.

use serde::Deserialize;
use schemars::JsonSchema;

fn main() {}
