//! The names a tool argument takes ([`ArgName`]) and the spec a generated module embeds
//! ([`EmbeddedSpec`]): what the argument structs are generic over, shared by the query builder
//! and every tool.

use std::fmt::Debug;
use std::sync::Arc;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::spec::SchemaSpec;

/// A name a tool argument takes: an entity, field or relationship name.
///
/// `String` in the engine (checked against the spec at call time); a generated enum of the
/// config's names in generated code.
///
/// ```
/// use toolforge::sql::tools::ArgName;
/// assert_eq!(String::from("Book").as_name(), "Book");
/// ```
pub trait ArgName:
    Serialize + DeserializeOwned + Clone + Debug + PartialEq + Send + Sync + 'static
{
    /// The name as written in the config.
    fn as_name(&self) -> &str;
}

impl ArgName for String {
    fn as_name(&self) -> &str {
        self
    }
}

/// The entity-name type of a generated module: it knows the module's embedded spec, so that
/// the typed argument structs instantiated with it are tools of that spec.
///
/// Generated code implements it; there is no reason to implement it by hand.
pub trait EmbeddedSpec: ArgName {
    /// The storage spec the names come from.
    fn spec() -> &'static Arc<SchemaSpec>;
}
