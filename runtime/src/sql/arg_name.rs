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

    /// The name as an owned `String`.
    fn into_name(self) -> String
    where
        Self: Sized,
    {
        self.as_name().to_owned()
    }
}

impl ArgName for String {
    fn as_name(&self) -> &str {
        self
    }

    fn into_name(self) -> String {
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

/// A tool argument type's engine form: every name (a generated enum, or a `String`) becomes
/// the `String` the engine reads, everything else stays as it is. Derived by every argument
/// struct and every type inside one (`#[derive(IntoEngine)]` of `toolforge-macros`), never
/// written by hand.
pub trait IntoEngine {
    /// The type with every name a `String` (`Self` for a type without name parameters).
    type Engine;

    /// The value in its engine form.
    fn into_engine(self) -> Self::Engine;

    /// Appends the runtime's argument types this type names, itself first, each once: what a
    /// generated `tool_args` module re-exports beside the argument struct's alias.
    fn named_types(out: &mut Vec<NamedType>) {
        let _ = out;
    }
}

/// An argument type of the runtime (`toolforge::sql::tools::<name>`), and the name
/// parameters it takes (`E` entities, `F` fields, `R` relationship types; none for an enum).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NamedType {
    /// The type's name under `toolforge::sql::tools`.
    pub name: &'static str,
    /// Its name parameters, in order.
    pub params: &'static [&'static str],
}

impl<T: ArgName> IntoEngine for T {
    type Engine = String;

    fn into_engine(self) -> String {
        self.into_name()
    }
}

impl<T: IntoEngine> IntoEngine for Option<T> {
    type Engine = Option<T::Engine>;

    fn into_engine(self) -> Self::Engine {
        self.map(T::into_engine)
    }

    fn named_types(out: &mut Vec<NamedType>) {
        T::named_types(out);
    }
}

impl<T: IntoEngine> IntoEngine for Vec<T> {
    type Engine = Vec<T::Engine>;

    fn into_engine(self) -> Self::Engine {
        self.into_iter().map(T::into_engine).collect()
    }

    fn named_types(out: &mut Vec<NamedType>) {
        T::named_types(out);
    }
}

/// Types an argument holds as they are.
macro_rules! as_they_are {
    ($($ty:ty),*) => {
        $(impl IntoEngine for $ty {
            type Engine = Self;

            fn into_engine(self) -> Self {
                self
            }
        })*
    };
}
as_they_are!(
    bool,
    i64,
    u32,
    u64,
    usize,
    f64,
    serde_json::Value,
    serde_json::Number
);
