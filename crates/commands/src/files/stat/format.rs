//! stat's format strings: `%` directives with printf-style flags, width and precision,
//! and backslash escapes (for `--printf`), expanded against one file or file system.

use crate::files::stat::epoch_secs;
use crate::printf::Field;
use sandtab_vfs::Timestamp;

/// One `%` directive: its printf-style flags, width and precision, and its letter (with
/// the `H`/`L` prefix of `%Hd`, `%Lr`).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct Spec {
    pub(super) field: Field,
    pub(super) prefix: Option<char>,
    pub(super) letter: char,
}

impl Spec {
    /// `text` padded to the width (a string directive: the precision cuts it).
    pub(super) fn string(&self, text: &str, out: &mut Vec<u8>) {
        let text = match self.field.precision {
            Some(precision) => text.chars().take(precision).collect::<String>(),
            None => text.to_owned(),
        };
        self.pad(&text, out);
    }

    pub(super) fn pad(&self, text: &str, out: &mut Vec<u8>) {
        out.extend_from_slice(self.field.pad(text, usize::MAX).as_bytes());
    }

    /// An unsigned number in decimal.
    pub(super) fn unsigned(&self, value: u64, out: &mut Vec<u8>) {
        self.number(&value.to_string(), "", "", out);
    }

    /// A signed number in decimal (`+` and space flags apply).
    pub(super) fn signed(&self, value: i64, out: &mut Vec<u8>) {
        let sign = self.field.sign(value < 0);
        self.number(&value.unsigned_abs().to_string(), sign, "", out);
    }

    pub(super) fn octal(&self, value: u64, out: &mut Vec<u8>) {
        let prefix = if self.field.alternate && value != 0 {
            "0"
        } else {
            ""
        };
        self.number(&format!("{value:o}"), "", prefix, out);
    }

    pub(super) fn hex(&self, value: u64, out: &mut Vec<u8>) {
        let prefix = if self.field.alternate && value != 0 {
            "0x"
        } else {
            ""
        };
        self.number(&format!("{value:x}"), "", prefix, out);
    }

    /// `digits` with printf's rules: the precision is a minimum of digits, and `0` pads
    /// with zeros unless `-` or a precision is given.
    pub(super) fn number(&self, digits: &str, sign: &str, prefix: &str, out: &mut Vec<u8>) {
        let mut body = String::new();
        if let Some(precision) = self.field.precision {
            body.extend(std::iter::repeat_n(
                '0',
                precision.saturating_sub(digits.len()),
            ));
        }
        body.push_str(digits);
        let lead = format!("{sign}{prefix}");
        let length = lead.len() + body.len();
        if self.field.zero
            && !self.field.left
            && self.field.precision.is_none()
            && self.field.width > length
        {
            let zeros = "0".repeat(self.field.width - length);
            self.pad(&format!("{lead}{zeros}{body}"), out);
        } else {
            self.pad(&format!("{lead}{body}"), out);
        }
    }

    /// Seconds since the epoch; a precision adds that many digits of the fraction.
    pub(super) fn epoch(&self, time: Timestamp, out: &mut Vec<u8>) {
        let secs = epoch_secs(time);
        let Some(precision) = self.field.precision.filter(|p| *p > 0) else {
            let plain = Spec {
                field: Field {
                    precision: None,
                    ..self.field
                },
                ..self.clone()
            };
            plain.signed(secs, out);
            return;
        };
        let mut fraction = format!("{:09}", time.0 % 1_000_000_000);
        fraction.truncate(precision.min(9));
        fraction.extend(std::iter::repeat_n('0', precision.saturating_sub(9)));
        let whole = Spec {
            field: Field {
                precision: None,
                width: 0,
                ..self.field
            },
            ..self.clone()
        };
        let mut seconds = Vec::new();
        whole.signed(secs, &mut seconds);
        let text = format!("{}.{fraction}", String::from_utf8_lossy(&seconds));
        let padded = Spec {
            field: Field {
                precision: None,
                ..self.field
            },
            ..self.clone()
        };
        padded.pad(&text, out);
    }
}

/// Expands `format`: `%` directives through `directive`, and with `escapes` (as
/// `--printf` does) backslash escapes. Warnings about the format go to `warnings`.
pub(super) fn expand(
    format: &str,
    escapes: bool,
    out: &mut Vec<u8>,
    warnings: &mut Vec<String>,
    directive: &dyn Fn(&Spec, &mut Vec<u8>),
) {
    let bytes = format.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => i = expand_directive(bytes, i + 1, out, directive),
            b'\\' if escapes => i = expand_escape(bytes, i + 1, out, warnings),
            byte => {
                out.push(byte);
                i += 1;
            }
        }
    }
}

/// Reads the directive after a `%` at `start`, writes it, and returns where the format
/// goes on.
pub(super) fn expand_directive(
    bytes: &[u8],
    start: usize,
    out: &mut Vec<u8>,
    directive: &dyn Fn(&Spec, &mut Vec<u8>),
) -> usize {
    let (field, mut i) = Field::parse(bytes, start);
    let mut spec = Spec {
        field,
        ..Spec::default()
    };
    let Some(&letter) = bytes.get(i) else {
        // A `%` ending the format stands for itself, with what followed it.
        out.push(b'%');
        out.extend_from_slice(&bytes[start..]);
        return bytes.len();
    };
    if letter == b'%' {
        out.push(b'%');
        return i + 1;
    }
    if matches!(letter, b'H' | b'L') && matches!(bytes.get(i + 1), Some(b'd' | b'r')) {
        spec.prefix = Some(char::from(letter));
        i += 1;
    }
    // A multi-byte character is not a directive: stat prints `?` for it.
    spec.letter = match bytes.get(i) {
        Some(&byte) if byte.is_ascii() => char::from(byte),
        _ => '?',
    };
    directive(&spec, out);
    let mut next = i + 1;
    while next < bytes.len() && (bytes[next] & 0xC0) == 0x80 {
        next += 1;
    }
    next
}

/// Writes the escape after a backslash at `start`; returns where the format goes on.
pub(super) fn expand_escape(
    bytes: &[u8],
    start: usize,
    out: &mut Vec<u8>,
    warnings: &mut Vec<String>,
) -> usize {
    let Some(&letter) = bytes.get(start) else {
        warnings.push("backslash at end of format".into());
        out.push(b'\\');
        return start;
    };
    let simple = match letter {
        b'a' => Some(0x07),
        b'b' => Some(0x08),
        b'e' => Some(0x1b),
        b'f' => Some(0x0c),
        b'n' => Some(b'\n'),
        b'r' => Some(b'\r'),
        b't' => Some(b'\t'),
        b'v' => Some(0x0b),
        b'\\' => Some(b'\\'),
        b'"' => Some(b'"'),
        _ => None,
    };
    if let Some(byte) = simple {
        out.push(byte);
        return start + 1;
    }
    if (b'0'..=b'7').contains(&letter) {
        let mut value: u32 = 0;
        let mut i = start;
        while i < start + 3 && bytes.get(i).is_some_and(|b| (b'0'..=b'7').contains(b)) {
            value = value * 8 + u32::from(bytes[i] - b'0');
            i += 1;
        }
        out.push(u8::try_from(value & 0xff).unwrap_or(0));
        return i;
    }
    if letter == b'x' && bytes.get(start + 1).is_some_and(u8::is_ascii_hexdigit) {
        let mut value: u32 = 0;
        let mut i = start + 1;
        while i < start + 3 && bytes.get(i).is_some_and(u8::is_ascii_hexdigit) {
            value = value * 16 + char::from(bytes[i]).to_digit(16).unwrap_or(0);
            i += 1;
        }
        out.push(u8::try_from(value).unwrap_or(0));
        return i;
    }
    let shown = String::from_utf8_lossy(&bytes[start..(start + 1).min(bytes.len())]).into_owned();
    warnings.push(format!("unrecognized escape '\\{shown}'"));
    out.push(letter);
    start + 1
}
