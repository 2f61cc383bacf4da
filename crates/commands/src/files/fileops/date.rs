//! Dates as `touch -d`/`-t` read them and as `tar -tv` prints them, in UTC (the
//! sandbox's time zone).

pub(crate) use crate::calendar::Instant;
use crate::calendar::{civil_seconds, format, year_of};

/// `YYYY-MM-DD HH:MM` as `tar -tv` shows a time.
pub(crate) fn format_minutes(secs: i64) -> String {
    format("%Y-%m-%d %H:%M", Instant { secs, nanos: 0 })
}

/// `Dec  1 18:55` (C's `ctime` without the weekday, seconds and year).
pub(crate) fn format_month_day_time(secs: i64) -> String {
    format("%b %e %H:%M", Instant { secs, nanos: 0 })
}

fn digits(text: &str) -> Option<u32> {
    (!text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()))
        .then(|| text.parse().ok())
        .flatten()
}

/// `touch -t [[CC]YY]MMDDhhmm[.ss]`; `now` supplies the year when it is left out.
pub(crate) fn parse_stamp(text: &str, now: Instant) -> Option<Instant> {
    let (main, seconds) = match text.split_once('.') {
        Some((main, seconds)) if seconds.len() == 2 => (main, digits(seconds)?),
        Some(_) => return None,
        None => (text, 0),
    };
    if !main.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (year, rest) = match main.len() {
        8 => (year_of(now.secs), main),
        10 => {
            let short = i64::from(digits(&main[..2])?);
            (
                if short < 69 {
                    2000 + short
                } else {
                    1900 + short
                },
                &main[2..],
            )
        }
        12 => (i64::from(digits(&main[..4])?), &main[4..]),
        _ => return None,
    };
    let field = |at: usize| digits(&rest[at..at + 2]);
    let secs = civil_seconds(year, field(0)?, field(2)?, field(4)?, field(6)?, seconds)?;
    Some(Instant { secs, nanos: 0 })
}

/// `touch -d`: `@SECONDS`, `YYYY-MM-DD[ HH:MM[:SS[.frac]]]` (or with `T`, and an
/// optional `Z`/`UTC`/`±HH:MM` zone), `now`, `today`, `yesterday`, `tomorrow`, and
/// relative items (`2 days ago`, `-1 hour`, `+3 weeks`) after any of them.
pub(crate) fn parse_date(text: &str, now: Instant) -> Option<Instant> {
    let text = text.trim();
    if let Some(epoch) = text.strip_prefix('@') {
        return parse_epoch(epoch);
    }
    let lower = text.to_ascii_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    let (base, rest) = parse_base(&words, now)?;
    apply_relative(base, rest)
}

fn parse_epoch(text: &str) -> Option<Instant> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let secs: i64 = whole.parse().ok()?;
    Some(Instant {
        secs,
        nanos: parse_fraction(fraction)?,
    })
}

/// Digits after a decimal point as nanoseconds.
fn parse_fraction(text: &str) -> Option<u32> {
    if text.is_empty() {
        return Some(0);
    }
    if !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut padded: String = text.chars().take(9).collect();
    while padded.len() < 9 {
        padded.push('0');
    }
    padded.parse().ok()
}

/// The absolute part of a date and the words after it.
fn parse_base<'w>(words: &'w [&'w str], now: Instant) -> Option<(Instant, &'w [&'w str])> {
    let midnight = |instant: Instant| Instant {
        secs: instant.secs - instant.secs.rem_euclid(86_400),
        nanos: 0,
    };
    match words.first() {
        None => Some((midnight(now), words)),
        Some(&"now") => Some((now, &words[1..])),
        Some(&"today") => Some((midnight(now), &words[1..])),
        Some(&"yesterday") => Some((shift(midnight(now), -86_400)?, &words[1..])),
        Some(&"tomorrow") => Some((shift(midnight(now), 86_400)?, &words[1..])),
        Some(first)
            if first.contains('-') && first.len() >= 8 && !first.starts_with(['-', '+']) =>
        {
            parse_calendar(words)
        }
        Some(_) => Some((now, words)),
    }
}

/// `YYYY-MM-DD`, then an optional time (`HH:MM[:SS[.frac]]`) and zone.
fn parse_calendar<'w>(words: &'w [&'w str]) -> Option<(Instant, &'w [&'w str])> {
    let (date, mut time) = match words[0].split_once('t') {
        Some((date, time)) => (date, Some(time)),
        None => (words[0], None),
    };
    let mut used = 1;
    if time.is_none()
        && let Some(next) = words.get(1).filter(|w| w.contains(':'))
    {
        time = Some(next);
        used = 2;
    }
    let mut parts = date.splitn(3, '-');
    let year = i64::from(digits(parts.next()?)?);
    let month = digits(parts.next()?)?;
    let day = digits(parts.next()?)?;
    let (clock, mut offset) = match time {
        Some(time) => split_zone(time)?,
        None => ("", 0),
    };
    let (hour, minute, second, nanos) = parse_clock(clock)?;
    if let Some(zone_offset) = words.get(used).and_then(|zone| parse_zone(zone)) {
        offset = zone_offset;
        used += 1;
    }
    let secs = civil_seconds(year, month, day, hour, minute, second)? - offset;
    Some((Instant { secs, nanos }, &words[used..]))
}

/// `HH:MM[:SS[.frac]]`, or nothing for midnight.
fn parse_clock(clock: &str) -> Option<(u32, u32, u32, u32)> {
    if clock.is_empty() {
        return Some((0, 0, 0, 0));
    }
    let mut parts = clock.splitn(3, ':');
    let hour = digits(parts.next()?)?;
    let minute = digits(parts.next()?)?;
    let (second, nanos) = match parts.next() {
        Some(seconds) => {
            let (whole, fraction) = seconds.split_once(['.', ',']).unwrap_or((seconds, ""));
            (digits(whole)?, parse_fraction(fraction)?)
        }
        None => (0, 0),
    };
    Some((hour, minute, second, nanos))
}

/// A time with its zone split off: the clock and the zone's offset in seconds.
fn split_zone(time: &str) -> Option<(&str, i64)> {
    if let Some(clock) = time.strip_suffix('z') {
        return Some((clock, 0));
    }
    match time.rfind(['+', '-']) {
        Some(at) => Some((&time[..at], parse_zone(&time[at..])?)),
        None => Some((time, 0)),
    }
}

/// `Z`, `UTC`, `GMT`, `+HH:MM`, `-HHMM`: seconds east of UTC.
fn parse_zone(zone: &str) -> Option<i64> {
    if matches!(zone, "z" | "utc" | "gmt") {
        return Some(0);
    }
    let sign = match zone.as_bytes().first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let digits_only: String = zone[1..].chars().filter(|c| *c != ':').collect();
    let ascii_digits = digits_only.bytes().all(|b| b.is_ascii_digit());
    if !ascii_digits || (digits_only.len() != 4 && digits_only.len() != 2) {
        return None;
    }
    let hours = i64::from(digits(&digits_only[..2])?);
    let minutes = i64::from(digits(digits_only.get(2..).unwrap_or("0")).unwrap_or(0));
    Some(sign * (hours * 3600 + minutes * 60))
}

fn shift(instant: Instant, secs: i64) -> Option<Instant> {
    Some(Instant {
        secs: instant.secs.checked_add(secs)?,
        nanos: instant.nanos,
    })
}

/// `2 days ago`, `-1 hour`, `+3 weeks`, `week` (one), applied in order.
fn apply_relative(mut instant: Instant, words: &[&str]) -> Option<Instant> {
    let mut index = 0;
    while index < words.len() {
        let word = words[index];
        let (count, unit_word) = match word.parse::<i64>() {
            Ok(count) => {
                index += 1;
                (count, *words.get(index)?)
            }
            Err(_) => match split_number(word) {
                Some((count, unit)) => (count, unit),
                None => (1, word),
            },
        };
        index += 1;
        let unit = unit_seconds(unit_word)?;
        let mut amount = count.checked_mul(unit)?;
        if words.get(index) == Some(&"ago") {
            amount = -amount;
            index += 1;
        }
        instant = shift(instant, amount)?;
    }
    Some(instant)
}

/// `3days` or `-2h`-style words: the number and the unit.
fn split_number(word: &str) -> Option<(i64, &str)> {
    let end = word
        .char_indices()
        .find(|(at, c)| !(c.is_ascii_digit() || (*at == 0 && (*c == '-' || *c == '+'))))
        .map(|(at, _)| at)?;
    if end == 0 {
        return None;
    }
    Some((word[..end].parse().ok()?, &word[end..]))
}

fn unit_seconds(unit: &str) -> Option<i64> {
    let unit = unit
        .strip_suffix('s')
        .filter(|u| !u.is_empty())
        .unwrap_or(unit);
    Some(match unit {
        "sec" | "second" => 1,
        "min" | "minute" => 60,
        "hour" => 3600,
        "day" => 86_400,
        "week" => 7 * 86_400,
        "fortnight" => 14 * 86_400,
        "month" => 30 * 86_400,
        "year" => 365 * 86_400,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: Instant = Instant {
        secs: 1_764_614_520, // 2025-12-01 18:42:00
        nanos: 0,
    };

    fn date(text: &str) -> Option<String> {
        parse_date(text, NOW).map(|i| format!("{} {}", format_minutes(i.secs), i.secs % 60))
    }

    #[test]
    fn tar_listing_times() {
        assert_eq!(format_minutes(0), "1970-01-01 00:00");
        assert_eq!(format_minutes(NOW.secs), "2025-12-01 18:42");
        assert_eq!(format_month_day_time(NOW.secs), "Dec  1 18:42");
    }

    #[test]
    fn stamps() {
        let stamp = |t| parse_stamp(t, NOW).map(|i| i.secs);
        assert_eq!(stamp("202101020304.05"), Some(1_609_556_645));
        assert_eq!(
            stamp("01020304").map(format_minutes).as_deref(),
            Some("2025-01-02 03:04")
        );
        assert_eq!(stamp("7001010000"), Some(0));
        assert_eq!(stamp("bogus"), None);
        assert_eq!(stamp("202113020304"), None);
    }

    #[test]
    fn dates() {
        assert_eq!(
            date("2020-01-02 03:04:05").as_deref(),
            Some("2020-01-02 03:04 5")
        );
        assert_eq!(date("2020-05-06").as_deref(), Some("2020-05-06 00:00 0"));
        assert_eq!(
            date("2020-05-06T10:00:00Z").as_deref(),
            Some("2020-05-06 10:00 0")
        );
        assert_eq!(
            date("2020-05-06 10:00 +02:00").as_deref(),
            Some("2020-05-06 08:00 0")
        );
        assert_eq!(date("@100").as_deref(), Some("1970-01-01 00:01 40"));
        assert_eq!(date("yesterday").as_deref(), Some("2025-11-30 00:00 0"));
        assert_eq!(date("2 days ago").as_deref(), Some("2025-11-29 18:42 0"));
        assert_eq!(date("-1 hour").as_deref(), Some("2025-12-01 17:42 0"));
        assert_eq!(date("now").as_deref(), Some("2025-12-01 18:42 0"));
        assert_eq!(date("bogus"), None);
        assert_eq!(date("2020-13-01"), None);
        assert_eq!(date("2020-01-01 10:00 +a\u{e9}a"), None);
    }
}
