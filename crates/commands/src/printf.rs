//! The field of a printf directive, `%[flags][width][.precision]`, as stat's formats
//! and seq's `-f` read it (each then has its own conversions): the flags, the width and
//! the precision, the sign a number gets, and padding to the width.

/// The flags, width and precision of one directive.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Field {
    /// `-`: pad on the right.
    pub left: bool,
    /// `0`: pad numbers with zeros after the sign.
    pub zero: bool,
    /// `+`: a sign on positive numbers too.
    pub plus: bool,
    /// ` `: a space where a positive number has no sign.
    pub space: bool,
    /// `#`: the alternate form (`0x`, a kept decimal point).
    pub alternate: bool,
    pub width: usize,
    pub precision: Option<usize>,
}

impl Field {
    /// Reads the flags, the width and the precision at `start` in `bytes` (just after
    /// the `%`): the field, and where the conversion begins. `'` (digit grouping) is
    /// taken and does nothing, as in the C locale.
    pub fn parse(bytes: &[u8], start: usize) -> (Self, usize) {
        let mut field = Self::default();
        let mut at = start;
        while let Some(&flag) = bytes.get(at) {
            match flag {
                b'-' => field.left = true,
                b'0' => field.zero = true,
                b'+' => field.plus = true,
                b' ' => field.space = true,
                b'#' => field.alternate = true,
                b'\'' => {}
                _ => break,
            }
            at += 1;
        }
        let (width, after) = number(bytes, at);
        field.width = width.unwrap_or(0);
        at = after;
        if bytes.get(at) == Some(&b'.') {
            let (precision, after) = number(bytes, at + 1);
            field.precision = Some(precision.unwrap_or(0));
            at = after;
        }
        (field, at)
    }

    /// The sign of a number: `-` when it is negative, else `+` or a space as the
    /// flags ask.
    pub fn sign(&self, negative: bool) -> &'static str {
        if negative {
            "-"
        } else if self.plus {
            "+"
        } else if self.space {
            " "
        } else {
            ""
        }
    }

    /// `text` padded with spaces to the width (at most `max_width`), on the side the
    /// flags say.
    pub fn pad(&self, text: &str, max_width: usize) -> String {
        let fill = self
            .width
            .min(max_width)
            .saturating_sub(text.chars().count());
        if self.left {
            format!("{text}{}", " ".repeat(fill))
        } else {
            format!("{}{text}", " ".repeat(fill))
        }
    }
}

/// Decimal digits at `start` (a huge number saturates), and the index after them.
fn number(bytes: &[u8], start: usize) -> (Option<usize>, usize) {
    let mut at = start;
    let mut value: Option<usize> = None;
    while let Some(digit) = bytes.get(at).filter(|b| b.is_ascii_digit()) {
        let digit = usize::from(digit - b'0');
        value = Some(value.unwrap_or(0).saturating_mul(10).saturating_add(digit));
        at += 1;
    }
    (value, at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_width_and_precision() {
        let (field, at) = Field::parse(b"%-+ #0'12.3f", 1);
        assert_eq!(at, 11);
        assert_eq!(
            field,
            Field {
                left: true,
                zero: true,
                plus: true,
                space: true,
                alternate: true,
                width: 12,
                precision: Some(3),
            }
        );
        // A bare `.` is a precision of 0; a huge width saturates.
        let (field, at) = Field::parse(b"99999999999999999999999.g", 0);
        assert_eq!(
            (field.width, field.precision, at),
            (usize::MAX, Some(0), 24)
        );
    }

    #[test]
    fn signs_and_padding() {
        let plain = Field::default();
        assert_eq!((plain.sign(true), plain.sign(false)), ("-", ""));
        let plus = Field {
            plus: true,
            space: true,
            ..plain
        };
        assert_eq!(plus.sign(false), "+");
        let space = Field {
            space: true,
            width: 4,
            ..plain
        };
        assert_eq!(space.sign(false), " ");
        assert_eq!(space.pad("ab", usize::MAX), "  ab");
        assert_eq!(
            Field {
                left: true,
                ..space
            }
            .pad("ab", usize::MAX),
            "ab  "
        );
        assert_eq!(space.pad("ab", 3), " ab");
    }
}
