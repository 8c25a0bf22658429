//! The dates a model writes for `after` / `before`: ISO 8601 or a relative form, read against
//! a clock into the UTC text datetimes are stored as.
//!
//! The grammar (case and surrounding spaces ignored; `N` is a whole number from 0 to 100,000):
//!
//! | form | meaning |
//! |---|---|
//! | ISO 8601: `2024-05-01`, `2024-05-01T12:00:00Z`, `2024-05-01T14:00:00+02:00`, `2024-05-01 12:00` | that instant (a date is its midnight, no offset is UTC) |
//! | `now` | the clock's instant |
//! | `today`, `yesterday`, `tomorrow` | midnight (UTC) starting that day |
//! | `N <unit> ago`, `in N <unit>` | the clock's instant moved back / forward |
//! | `last <unit>`, `next <unit>` | the same as `1 <unit> ago`, `in 1 <unit>` |
//!
//! Units: `second`, `minute`, `hour`, `day`, `week`, `month`, `year` (singular or plural).
//! Months and years move the calendar date (the 31st one month back from March 31st is the
//! last day of February), all in UTC.

use jiff::{Span, Timestamp, Zoned, tz::TimeZone};

use crate::sql::value::normalize_datetime;

/// The forms [`resolve`] accepts, for error messages and tool descriptions.
pub const ACCEPTED_FORMS: &str = "an ISO 8601 date or datetime (2024-05-01, \
    2024-05-01T12:00:00Z, 2024-05-01T14:00:00+02:00), `now`, `today`, `yesterday`, `tomorrow`, \
    `N <unit> ago`, `in N <unit>`, `last <unit>` or `next <unit>`, with <unit> one of second, \
    minute, hour, day, week, month, year (plural allowed)";

/// The largest `N` of a relative form.
const MAX_AMOUNT: i64 = 100_000;

/// Reads `text` as of the instant `now`, into the stored form of a datetime
/// (`2024-05-01T12:00:00Z`); an error names every accepted form.
pub fn resolve(text: &str, now: Timestamp) -> Result<String, String> {
    let unknown = || {
        format!(
            "\"{}\" is not a date this tool reads; use {ACCEPTED_FORMS}",
            super::names::shorten(text)
        )
    };
    let lowered = text.trim().to_lowercase();
    let words: Vec<&str> = lowered.split_whitespace().collect();
    // To the second, as writes are stamped (`2024-05-01T12:00:00Z`): a clock with a fraction
    // would sort before a change stamped in the same second, and `now` would miss it.
    let now = Timestamp::from_second(now.as_second()).unwrap_or(now);
    let zoned = now.to_zoned(TimeZone::UTC);
    let midnight = |days: i64| -> Result<String, String> {
        let start = zoned.start_of_day().map_err(|error| error.to_string())?;
        let moved = start
            .checked_add(Span::new().days(days))
            .map_err(|_| out_of_range(text))?;
        Ok(moved.timestamp().to_string())
    };
    match words.as_slice() {
        ["now"] => Ok(now.to_string()),
        ["today"] => midnight(0),
        ["yesterday"] => midnight(-1),
        ["tomorrow"] => midnight(1),
        ["last", unit] => shift(&zoned, -1, unit, text).ok_or_else(unknown)?,
        ["next", unit] => shift(&zoned, 1, unit, text).ok_or_else(unknown)?,
        [amount, unit, "ago"] => {
            let amount = amount_of(amount, text)?.ok_or_else(unknown)?;
            shift(&zoned, -amount, unit, text).ok_or_else(unknown)?
        }
        ["in", amount, unit] => {
            let amount = amount_of(amount, text)?.ok_or_else(unknown)?;
            shift(&zoned, amount, unit, text).ok_or_else(unknown)?
        }
        _ => normalize_datetime(text).map_err(|_| unknown()),
    }
}

/// `N` of a relative form: `None` when it is not a whole number, an error when too large.
fn amount_of(word: &str, text: &str) -> Result<Option<i64>, String> {
    if word.is_empty() || !word.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(None);
    }
    match word.parse::<i64>() {
        Ok(n) if n <= MAX_AMOUNT => Ok(Some(n)),
        _ => Err(format!(
            "\"{}\": the number of a relative date is at most {MAX_AMOUNT}",
            super::names::shorten(text)
        )),
    }
}

/// `zoned` moved by `amount` units named `unit`; `None` when `unit` is not a unit.
fn shift(zoned: &Zoned, amount: i64, unit: &str, text: &str) -> Option<Result<String, String>> {
    let span = Span::new();
    let span = match unit.strip_suffix('s').unwrap_or(unit) {
        "second" => span.try_seconds(amount),
        "minute" => span.try_minutes(amount),
        "hour" => span.try_hours(amount),
        "day" => span.try_days(amount),
        "week" => span.try_weeks(amount),
        "month" => span.try_months(amount),
        "year" => span.try_years(amount),
        _ => return None,
    };
    Some(
        span.and_then(|span| zoned.checked_add(span))
            .map(|moved| moved.timestamp().to_string())
            .map_err(|_| out_of_range(text)),
    )
}

fn out_of_range(text: &str) -> String {
    format!(
        "\"{}\" falls outside the dates this tool reads (years -9999 to 9999)",
        super::names::shorten(text)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fixed clock: Wednesday 2024-03-13, 08:15:30 UTC.
    fn now() -> Timestamp {
        "2024-03-13T08:15:30Z".parse().unwrap()
    }

    #[test]
    fn every_form_reads_against_the_clock() {
        let cases = [
            ("now", "2024-03-13T08:15:30Z"),
            ("  NOW ", "2024-03-13T08:15:30Z"),
            ("today", "2024-03-13T00:00:00Z"),
            ("yesterday", "2024-03-12T00:00:00Z"),
            ("tomorrow", "2024-03-14T00:00:00Z"),
            ("7 days ago", "2024-03-06T08:15:30Z"),
            ("1 day ago", "2024-03-12T08:15:30Z"),
            ("2 weeks ago", "2024-02-28T08:15:30Z"),
            ("3 hours ago", "2024-03-13T05:15:30Z"),
            ("90 minutes ago", "2024-03-13T06:45:30Z"),
            ("30 seconds ago", "2024-03-13T08:15:00Z"),
            ("0 days ago", "2024-03-13T08:15:30Z"),
            ("last month", "2024-02-13T08:15:30Z"),
            ("last year", "2023-03-13T08:15:30Z"),
            ("last week", "2024-03-06T08:15:30Z"),
            ("next week", "2024-03-20T08:15:30Z"),
            ("in 3 days", "2024-03-16T08:15:30Z"),
            ("in 1 month", "2024-04-13T08:15:30Z"),
            ("In 2 Years", "2026-03-13T08:15:30Z"),
            ("2024-05-01", "2024-05-01T00:00:00Z"),
            ("2024-05-01T14:00:00+02:00", "2024-05-01T12:00:00Z"),
            ("2024-05-01T12:00:00Z", "2024-05-01T12:00:00Z"),
            ("2024-05-01 12:00", "2024-05-01T12:00:00Z"),
        ];
        for (text, expected) in cases {
            assert_eq!(resolve(text, now()).as_deref(), Ok(expected), "{text}");
        }
    }

    #[test]
    fn months_clamp_to_the_end_of_a_shorter_month() {
        let now: Timestamp = "2023-03-31T00:00:00Z".parse().unwrap();
        assert_eq!(
            resolve("1 month ago", now).as_deref(),
            Ok("2023-02-28T00:00:00Z")
        );
        let leap: Timestamp = "2024-02-29T12:00:00Z".parse().unwrap();
        assert_eq!(
            resolve("in 1 year", leap).as_deref(),
            Ok("2025-02-28T12:00:00Z")
        );
    }

    #[test]
    fn unknown_forms_name_the_accepted_ones() {
        for text in [
            "",
            "a while ago",
            "7 fortnights ago",
            "-3 days ago",
            "3.5 days ago",
            "last",
            "in days",
            "2024-13-01",
            "seven days ago",
        ] {
            let error = resolve(text, now()).unwrap_err();
            assert!(
                error.contains("N <unit> ago") && error.contains("ISO 8601"),
                "{text}: {error}"
            );
        }
    }

    #[test]
    fn huge_amounts_are_refused_without_panicking() {
        let error = resolve("100001 days ago", now()).unwrap_err();
        assert!(error.contains("at most 100000"), "{error}");
        let error = resolve("99999999999999999999 days ago", now()).unwrap_err();
        assert!(error.contains("at most"), "{error}");
        let error = resolve("100000 years ago", now()).unwrap_err();
        assert!(error.contains("outside"), "{error}");
    }
}

#[cfg(test)]
mod examples {
    #[test]
    fn resolve_as_documented() {
        use super::resolve;
        let now: jiff::Timestamp = "2024-03-31T10:30:00Z".parse().unwrap();
        assert_eq!(resolve("7 days ago", now).unwrap(), "2024-03-24T10:30:00Z");
        assert_eq!(resolve("last month", now).unwrap(), "2024-02-29T10:30:00Z");
        assert_eq!(resolve("yesterday", now).unwrap(), "2024-03-30T00:00:00Z");
        assert_eq!(resolve("2024-01-01", now).unwrap(), "2024-01-01T00:00:00Z");
        assert!(
            resolve("a while ago", now)
                .unwrap_err()
                .contains("N <unit> ago")
        );
        // The clock is read to the second: a change stamped this second is not after `now`.
        let later: jiff::Timestamp = "2024-03-31T10:30:00.750Z".parse().unwrap();
        assert_eq!(resolve("now", later).unwrap(), "2024-03-31T10:30:00Z");
        assert_eq!(resolve("in 1 hour", later).unwrap(), "2024-03-31T11:30:00Z");
    }
}
