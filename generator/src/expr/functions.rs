//! The built-in scalar functions and relationship aggregates of the expression language.

/// A scalar function, after overload resolution (`length` on an array is [`Builtin::ArrayLength`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Builtin {
    /// `length(string)`: characters.
    Length,
    /// `length(array)`: elements (`json_array_length`).
    ArrayLength,
    /// `lower(string)`.
    Lower,
    /// `upper(string)`.
    Upper,
    /// `trim(string)`.
    Trim,
    /// `coalesce(a, b, ...)`: the first non-null argument.
    Coalesce,
    /// `abs(number)`.
    Abs,
    /// `round(number [, digits])`.
    Round,
    /// `least(a, b, ...)`: the smallest argument (null when any is null).
    Least,
    /// `greatest(a, b, ...)`: the largest argument (null when any is null).
    Greatest,
    /// `now()`: the current UTC time.
    Now,
    /// `days_between(a, b)`: whole days from `a` to `b`.
    DaysBetween,
    /// `years_between(a, b)`: whole calendar years from `a` to `b`.
    YearsBetween,
    /// `concat(a, ...)`: joins the arguments as text, nulls as empty text.
    Concat,
    /// `contains(string, part)`.
    Contains,
    /// `contains(array, element)`.
    ArrayContains,
    /// `starts_with(string, prefix)`.
    StartsWith,
    /// `ends_with(string, suffix)`.
    EndsWith,
}

/// A relationship aggregate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AggFunc {
    /// `count(REL)` / `count(REL.field)`.
    Count,
    /// `sum(REL.field)` (0 without related records).
    Sum,
    /// `avg(REL.field)`.
    Avg,
    /// `min(REL.field)`.
    Min,
    /// `max(REL.field)`.
    Max,
}

impl AggFunc {
    /// The aggregate's name.
    pub fn name(self) -> &'static str {
        match self {
            AggFunc::Count => "count",
            AggFunc::Sum => "sum",
            AggFunc::Avg => "avg",
            AggFunc::Min => "min",
            AggFunc::Max => "max",
        }
    }
}

/// A scalar function of the language, by name (before overload resolution: `length` is one
/// [`Scalar`], [`Builtin::Length`] or [`Builtin::ArrayLength`] after type checking).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scalar {
    /// `length(string | array)`.
    Length,
    /// `lower(string)`.
    Lower,
    /// `upper(string)`.
    Upper,
    /// `trim(string)`.
    Trim,
    /// `coalesce(a, b, ...)`.
    Coalesce,
    /// `abs(number)`.
    Abs,
    /// `round(number [, digits])`.
    Round,
    /// `least(a, b, ...)`.
    Least,
    /// `greatest(a, b, ...)`.
    Greatest,
    /// `now()`.
    Now,
    /// `days_between(a, b)`.
    DaysBetween,
    /// `years_between(a, b)`.
    YearsBetween,
    /// `concat(a, ...)`.
    Concat,
    /// `contains(string | array, part)`.
    Contains,
    /// `starts_with(string, prefix)`.
    StartsWith,
    /// `ends_with(string, suffix)`.
    EndsWith,
}

impl Scalar {
    /// Every scalar function, in the order the language documents them.
    pub const ALL: [Scalar; 16] = [
        Scalar::Length,
        Scalar::Lower,
        Scalar::Upper,
        Scalar::Trim,
        Scalar::Coalesce,
        Scalar::Abs,
        Scalar::Round,
        Scalar::Least,
        Scalar::Greatest,
        Scalar::Now,
        Scalar::DaysBetween,
        Scalar::YearsBetween,
        Scalar::Concat,
        Scalar::Contains,
        Scalar::StartsWith,
        Scalar::EndsWith,
    ];

    /// The function's name in expressions.
    pub fn name(self) -> &'static str {
        match self {
            Scalar::Length => "length",
            Scalar::Lower => "lower",
            Scalar::Upper => "upper",
            Scalar::Trim => "trim",
            Scalar::Coalesce => "coalesce",
            Scalar::Abs => "abs",
            Scalar::Round => "round",
            Scalar::Least => "least",
            Scalar::Greatest => "greatest",
            Scalar::Now => "now",
            Scalar::DaysBetween => "days_between",
            Scalar::YearsBetween => "years_between",
            Scalar::Concat => "concat",
            Scalar::Contains => "contains",
            Scalar::StartsWith => "starts_with",
            Scalar::EndsWith => "ends_with",
        }
    }

    /// The smallest and largest argument count (`usize::MAX`: variadic).
    pub fn arity(self) -> (usize, usize) {
        match self {
            Scalar::Now => (0, 0),
            Scalar::Length | Scalar::Lower | Scalar::Upper | Scalar::Trim | Scalar::Abs => (1, 1),
            Scalar::Round => (1, 2),
            Scalar::DaysBetween
            | Scalar::YearsBetween
            | Scalar::Contains
            | Scalar::StartsWith
            | Scalar::EndsWith => (2, 2),
            Scalar::Concat => (1, usize::MAX),
            Scalar::Coalesce | Scalar::Least | Scalar::Greatest => (2, usize::MAX),
        }
    }
}

/// A function of the expression language: a scalar function or a relationship aggregate.
/// Parsed once from the name written in the expression ([`Function::parse`]); everything
/// after that matches on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Function {
    /// A function of the row's values.
    Scalar(Scalar),
    /// An aggregate over a relationship.
    Aggregate(AggFunc),
}

impl Function {
    /// Every function: the scalar ones, then the aggregates.
    pub const ALL: [Function; 21] = [
        Function::Scalar(Scalar::Length),
        Function::Scalar(Scalar::Lower),
        Function::Scalar(Scalar::Upper),
        Function::Scalar(Scalar::Trim),
        Function::Scalar(Scalar::Coalesce),
        Function::Scalar(Scalar::Abs),
        Function::Scalar(Scalar::Round),
        Function::Scalar(Scalar::Least),
        Function::Scalar(Scalar::Greatest),
        Function::Scalar(Scalar::Now),
        Function::Scalar(Scalar::DaysBetween),
        Function::Scalar(Scalar::YearsBetween),
        Function::Scalar(Scalar::Concat),
        Function::Scalar(Scalar::Contains),
        Function::Scalar(Scalar::StartsWith),
        Function::Scalar(Scalar::EndsWith),
        Function::Aggregate(AggFunc::Count),
        Function::Aggregate(AggFunc::Sum),
        Function::Aggregate(AggFunc::Avg),
        Function::Aggregate(AggFunc::Min),
        Function::Aggregate(AggFunc::Max),
    ];

    /// The function's name in expressions.
    pub fn name(self) -> &'static str {
        match self {
            Function::Scalar(scalar) => scalar.name(),
            Function::Aggregate(aggregate) => aggregate.name(),
        }
    }

    /// The function called `name` (any case); `None` for a name that is no function.
    pub fn parse(name: &str) -> Option<Function> {
        Function::ALL
            .into_iter()
            .find(|function| function.name().eq_ignore_ascii_case(name))
    }

    /// Every function name, for suggestions (as `&'a str`, to chain with other names).
    pub fn names<'a>() -> impl Iterator<Item = &'a str> + Clone {
        Function::ALL
            .into_iter()
            .map(|function| -> &'a str { function.name() })
    }
}

/// Familiar names from Cypher or SQL that the language spells differently, with the function
/// to use instead.
const ALIASES: &[(&str, Scalar)] = &[
    ("size", Scalar::Length),
    ("len", Scalar::Length),
    ("char_length", Scalar::Length),
    ("tolower", Scalar::Lower),
    ("lcase", Scalar::Lower),
    ("toupper", Scalar::Upper),
    ("ucase", Scalar::Upper),
    ("ifnull", Scalar::Coalesce),
    ("nvl", Scalar::Coalesce),
    ("datetime", Scalar::Now),
    ("current_timestamp", Scalar::Now),
    ("timestamp", Scalar::Now),
    ("startswith", Scalar::StartsWith),
    ("endswith", Scalar::EndsWith),
    ("includes", Scalar::Contains),
    ("instr", Scalar::Contains),
];

/// The function to use instead of `name` (any case), when `name` is a familiar spelling from
/// Cypher or SQL.
pub(crate) fn known_alias(name: &str) -> Option<Scalar> {
    ALIASES
        .iter()
        .find(|(alias, _)| alias.eq_ignore_ascii_case(name))
        .map(|&(_, scalar)| scalar)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_function_parses_from_its_name_in_any_case() {
        for function in Function::ALL {
            assert_eq!(Function::parse(function.name()), Some(function));
            let upper = function.name().to_ascii_uppercase();
            assert_eq!(Function::parse(&upper), Some(function));
        }
        assert_eq!(Function::parse("lenght"), None);
        assert_eq!(Function::parse(""), None);
    }

    #[test]
    fn the_list_holds_each_function_once() {
        let mut names: Vec<&str> = Function::names().collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Function::ALL.len());
        assert!(Function::ALL.contains(&Function::Aggregate(AggFunc::Max)));
    }

    #[test]
    fn aliases_name_no_function_of_their_own() {
        for (alias, scalar) in ALIASES {
            assert_eq!(Function::parse(alias), None, "{alias}");
            assert_eq!(known_alias(&alias.to_ascii_uppercase()), Some(*scalar));
        }
        assert_eq!(known_alias("length"), None);
    }
}
