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
    /// The aggregate called `name` (any case).
    pub fn from_name(name: &str) -> Option<AggFunc> {
        Some(match name.to_ascii_lowercase().as_str() {
            "count" => AggFunc::Count,
            "sum" => AggFunc::Sum,
            "avg" => AggFunc::Avg,
            "min" => AggFunc::Min,
            "max" => AggFunc::Max,
            _ => return None,
        })
    }

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

/// Every scalar function name with its smallest and largest argument count
/// (`usize::MAX`: variadic).
pub(crate) const SCALAR_FUNCTIONS: &[(&str, usize, usize)] = &[
    ("length", 1, 1),
    ("lower", 1, 1),
    ("upper", 1, 1),
    ("trim", 1, 1),
    ("coalesce", 2, usize::MAX),
    ("abs", 1, 1),
    ("round", 1, 2),
    ("least", 2, usize::MAX),
    ("greatest", 2, usize::MAX),
    ("now", 0, 0),
    ("days_between", 2, 2),
    ("years_between", 2, 2),
    ("concat", 1, usize::MAX),
    ("contains", 2, 2),
    ("starts_with", 2, 2),
    ("ends_with", 2, 2),
];

/// The aggregate names, for suggestions.
pub(crate) const AGGREGATES: &[&str] = &["count", "sum", "avg", "min", "max"];

/// The function called `name` (any case) and its argument count bounds.
pub(crate) fn lookup(name: &str) -> Option<(&'static str, usize, usize)> {
    SCALAR_FUNCTIONS
        .iter()
        .copied()
        .find(|(candidate, _, _)| candidate.eq_ignore_ascii_case(name))
}

/// The function to use instead of a familiar name from Cypher or SQL that the language spells
/// differently.
pub(crate) fn known_alias(name: &str) -> Option<&'static str> {
    Some(match name.to_ascii_lowercase().as_str() {
        "size" | "len" | "char_length" => "length",
        "tolower" | "lcase" => "lower",
        "toupper" | "ucase" => "upper",
        "ifnull" | "nvl" => "coalesce",
        "datetime" | "current_timestamp" | "timestamp" => "now",
        "startswith" => "starts_with",
        "endswith" => "ends_with",
        "includes" | "instr" => "contains",
        _ => return None,
    })
}
