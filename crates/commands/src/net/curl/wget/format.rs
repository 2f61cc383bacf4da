//! How wget words sizes, rates, reasons and times in its messages.

use crate::calendar::{self, Instant};
use sandtab_caps::HttpResponse;

/// wget's time stamp (`2024-05-06 07:08:09`) for `ms` since the epoch, in UTC (the
/// sandbox's time zone).
pub(super) fn stamp(ms: f64) -> String {
    let secs = (ms / 1000.0).floor() as i64;
    calendar::format("%Y-%m-%d %H:%M:%S", Instant { secs, nanos: 0 })
}

/// The reason phrase, or the standard one when the response has none (HTTP/2).
pub(super) fn reason(response: &HttpResponse) -> String {
    if !response.status_text.is_empty() {
        return response.status_text.clone();
    }
    match response.status {
        200 => "OK",
        201 => "Created",
        204 => "No Content",
        206 => "Partial Content",
        301 => "Moved Permanently",
        302 => "Found",
        304 => "Not Modified",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "",
    }
    .to_owned()
}

/// ` (1.2K)` after a length of at least 1 KiB.
pub(super) fn human(n: usize) -> String {
    let mut value = n as f64;
    let mut unit = "";
    for next in ["K", "M", "G"] {
        if value < 1024.0 {
            break;
        }
        value /= 1024.0;
        unit = next;
    }
    match (unit, value < 10.0) {
        ("", _) => String::new(),
        (_, true) => format!(" ({value:.1}{unit})"),
        (_, false) => format!(" ({value:.0}{unit})"),
    }
}

/// A transfer rate as wget shows it: `119 KB/s`, `1.18 MB/s`.
pub(super) fn rate(bytes: usize, seconds: f64) -> String {
    let mut value = bytes as f64 / seconds;
    let mut unit = "B/s";
    for next in ["KB/s", "MB/s", "GB/s"] {
        if value < 1024.0 {
            break;
        }
        value /= 1024.0;
        unit = next;
    }
    let decimals = if value < 10.0 {
        2
    } else if value < 100.0 {
        1
    } else {
        0
    };
    format!("{value:.decimals$} {unit}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_rates_and_stamps() {
        assert_eq!(human(6), "");
        assert_eq!(human(1256), " (1.2K)");
        assert_eq!(human(355_000), " (347K)");
        assert_eq!(rate(6, 0.001), "5.86 KB/s");
        assert_eq!(rate(100, 1.0), "100 B/s");
        assert_eq!(stamp(1_714_979_289_999.0), "2024-05-06 07:08:09");
        assert_eq!(stamp(0.0), "1970-01-01 00:00:00");
    }
}
