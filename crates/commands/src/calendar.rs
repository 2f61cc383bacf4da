//! Times as sandtab's commands read and print them, in UTC (the sandbox's time zone):
//! chrono's calendar, and on it the layer that is GNU's own: strftime's flags, widths
//! and `%N`, and a directive it does not know printed as written.

use chrono::format::{Item, StrftimeItems};
use chrono::{DateTime, Datelike, NaiveDate, Utc};
use sandtab_vfs::Timestamp;
use std::fmt::Write as _;

/// The widest padding a directive gets.
const MAX_WIDTH: usize = 1024;

/// A point in time: seconds since the epoch (negative before 1970) and nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Instant {
    pub secs: i64,
    pub nanos: u32,
}

impl Instant {
    pub fn from_nanos(nanos: u64) -> Self {
        Self {
            secs: i64::try_from(nanos / 1_000_000_000).unwrap_or(i64::MAX),
            nanos: u32::try_from(nanos % 1_000_000_000).unwrap_or(0),
        }
    }

    /// Nanoseconds since the epoch; `None` before 1970 or too far ahead to store.
    pub fn to_nanos(self) -> Option<u64> {
        let secs = u64::try_from(self.secs).ok()?;
        secs.checked_mul(1_000_000_000)?
            .checked_add(u64::from(self.nanos))
    }
}

impl From<Timestamp> for Instant {
    fn from(time: Timestamp) -> Self {
        Self::from_nanos(time.0)
    }
}

/// The calendar year `secs` seconds after the epoch falls in.
pub(crate) fn year_of(secs: i64) -> i64 {
    DateTime::<Utc>::from_timestamp(secs, 0).map_or(1970, |when| i64::from(when.year()))
}

/// Seconds since the epoch of a calendar time, if every field is in range (a leap
/// second, `:60`, is the second after `:59`).
pub(crate) fn civil_seconds(
    year: i64,
    month: u32,
    day: u32,
    hour: u32,
    minute: u32,
    second: u32,
) -> Option<i64> {
    let leap = u32::from(second == 60);
    let when = NaiveDate::from_ymd_opt(i32::try_from(year).ok()?, month, day)?.and_hms_opt(
        hour,
        minute,
        second - leap,
    )?;
    Some(when.and_utc().timestamp() + i64::from(leap))
}

/// `time` in `format` (strftime, GNU's directives), in UTC. A directive that is not
/// known is printed as written, as GNU date does.
pub(crate) fn format(format: &str, time: Instant) -> String {
    let Some(when) = DateTime::<Utc>::from_timestamp(time.secs, time.nanos) else {
        return format!("{}", time.secs);
    };
    let mut text = String::new();
    let mut rest = format;
    while let Some(at) = rest.find('%') {
        text.push_str(&rest[..at]);
        let spec = directive(&rest[at..]);
        rest = &rest[at + spec.len()..];
        text.push_str(&format_directive(spec, &when));
    }
    text.push_str(rest);
    text
}

/// The directive at the start of `text` (which starts with `%`): flags (`-_0^#`), a
/// width, colons (`%:z`), and its letter.
fn directive(text: &str) -> &str {
    let bytes = text.as_bytes();
    let mut end = 1;
    while end < bytes.len() && matches!(bytes[end], b'-' | b'_' | b'0' | b'^' | b'#') {
        end += 1;
    }
    while end < bytes.len() && bytes[end].is_ascii_digit() {
        end += 1;
    }
    while end < bytes.len() && bytes[end] == b':' {
        end += 1;
    }
    match text[end..].chars().next() {
        Some(letter) => &text[..end + letter.len_utf8()],
        None => text,
    }
}

fn format_directive(spec: &str, when: &DateTime<Utc>) -> String {
    let letter = spec.chars().last().unwrap_or('%');
    let body = &spec[1..spec.len() - letter.len_utf8().min(spec.len() - 1)];
    let flags: String = body.chars().take_while(|c| "-_0^#".contains(*c)).collect();
    let width = body[flags.len()..].trim_end_matches(':');
    // GNU's `%N` (nanoseconds, `%3N` for the first three digits) is chrono's `%f`.
    if letter == 'N' {
        let digits = width.parse::<usize>().unwrap_or(9).clamp(1, 9);
        let nanos = format!("{:09}", when.timestamp_subsec_nanos());
        return nanos[..digits].to_owned();
    }
    if letter == '%' && body.is_empty() {
        return "%".to_owned();
    }
    let upper = flags.contains('^');
    let pad = match (
        flags.contains('-'),
        flags.contains('_'),
        flags.contains('0'),
    ) {
        (true, _, _) => "-",
        (_, true, _) => "_",
        (_, _, true) => "0",
        _ => "",
    };
    let colons = &body[body.trim_end_matches(':').len()..];
    let chrono_spec = format!("%{pad}{colons}{letter}");
    let items: Vec<Item<'_>> = StrftimeItems::new(&chrono_spec).collect();
    if items.iter().any(|item| matches!(item, Item::Error)) {
        return spec.to_owned();
    }
    let mut shown = String::new();
    if write!(shown, "{}", when.format_with_items(items.into_iter())).is_err() {
        return spec.to_owned();
    }
    // A padding width is bounded, so that `%999999999d` cannot fill the memory.
    if let Ok(width) = width.parse::<usize>().map(|w| w.min(MAX_WIDTH))
        && shown.chars().count() < width
    {
        let fill = match pad {
            "_" => ' ',
            "0" => '0',
            _ if "aAbBhpPZekl".contains(letter) => ' ',
            _ => '0',
        };
        let missing = width - shown.chars().count();
        shown = std::iter::repeat_n(fill, missing).collect::<String>() + &shown;
    }
    if upper {
        shown = shown.to_uppercase();
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs: i64, nanos: u32) -> Instant {
        Instant { secs, nanos }
    }

    #[test]
    fn gnu_formats() {
        let t = at(1_709_622_489, 123_456_789); // 2024-03-05 07:08:09.123456789 UTC
        assert_eq!(
            format("%a %b %e %H:%M:%S %Z %Y", t),
            "Tue Mar  5 07:08:09 UTC 2024"
        );
        assert_eq!(
            format("%F %T %s %j", t),
            "2024-03-05 07:08:09 1709622489 065"
        );
        assert_eq!(
            format("%N %3N %-d %_m %^a %:z", t),
            "123456789 123 5  3 TUE +00:00"
        );
        assert_eq!(format("%Q 100%% %", t), "%Q 100% %");
        assert_eq!(format("%10s|%5d", t), "1709622489|00005");
        assert_eq!(
            format("%Y-%m-%dT%H:%M:%S%:z", at(86_400, 0)),
            "1970-01-02T00:00:00+00:00"
        );
        assert_eq!(format("%Y", at(-1, 0)), "1969");
        assert_eq!(format("%999999999d", t).len(), MAX_WIDTH);
    }

    #[test]
    fn civil_times() {
        assert_eq!(civil_seconds(1970, 1, 1, 0, 0, 0), Some(0));
        assert_eq!(civil_seconds(2024, 2, 29, 7, 8, 9), Some(1_709_190_489));
        assert_eq!(civil_seconds(2023, 2, 29, 0, 0, 0), None);
        assert_eq!(civil_seconds(1969, 12, 31, 23, 59, 60), Some(0));
        assert_eq!(civil_seconds(2024, 13, 1, 0, 0, 0), None);
        assert_eq!(year_of(-1), 1969);
        assert_eq!(
            format("%a %b %e %H:%M:%S %Y", at(1_796_150_382, 0)),
            "Tue Dec  1 18:39:42 2026"
        );
    }
}
