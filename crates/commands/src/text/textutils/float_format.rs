//! One C `printf` floating-point conversion (`%f`, `%e`, `%g`, `%a` and their capitals,
//! with flags, width and precision), as glibc prints a `long double`.

use crate::printf::Field;

/// A parsed `%[flags][width][.precision][L]conv` directive.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct FloatSpec {
    pub field: Field,
    /// One of `efgaEFGA`.
    pub conversion: char,
}

/// The most digits printed after the point (beyond that glibc only prints zeros,
/// and huge requests must not exhaust memory).
const MAX_PRECISION: usize = 4096;

/// The widest field padded (a huge width must not exhaust memory either).
const MAX_WIDTH: usize = 1 << 20;

impl FloatSpec {
    /// `value` formatted as printf would.
    pub fn format(&self, value: f64) -> String {
        let upper = self.conversion.is_ascii_uppercase();
        let negative = value.is_sign_negative() && !value.is_nan();
        let magnitude = value.abs();
        let precision = self.field.precision.map(|p| p.min(MAX_PRECISION));
        let mut body = if !value.is_finite() {
            if value.is_nan() { "nan" } else { "inf" }.to_owned()
        } else {
            match self.conversion.to_ascii_lowercase() {
                'f' => self.fixed(magnitude, precision.unwrap_or(6)),
                'e' => self.exponent(magnitude, precision.unwrap_or(6)),
                'g' => self.general(magnitude, precision.unwrap_or(6)),
                _ => hex(magnitude, precision, self.field.alternate),
            }
        };
        if upper {
            body = body.to_ascii_uppercase();
        }
        self.pad(self.field.sign(negative), &body, value.is_finite())
    }

    fn pad(&self, sign: &str, body: &str, finite: bool) -> String {
        let len = sign.len() + body.len();
        let fill = self.field.width.min(MAX_WIDTH).saturating_sub(len);
        if self.field.zero && finite && !self.field.left {
            // Zeros go after the sign (and after a hex prefix).
            let (prefix, digits) = match body.get(..2) {
                Some(p) if p.eq_ignore_ascii_case("0x") => body.split_at(2),
                _ => ("", body),
            };
            format!("{sign}{prefix}{}{digits}", "0".repeat(fill))
        } else {
            self.field.pad(&format!("{sign}{body}"), MAX_WIDTH)
        }
    }

    fn fixed(&self, magnitude: f64, precision: usize) -> String {
        let mut text = format!("{magnitude:.precision$}");
        if precision == 0 && self.field.alternate {
            text.push('.');
        }
        text
    }

    fn exponent(&self, magnitude: f64, precision: usize) -> String {
        let (mantissa, exp) = split_exponent(magnitude, precision);
        let mut mantissa = mantissa;
        if precision == 0 && self.field.alternate {
            mantissa.push('.');
        }
        format!("{mantissa}{}", exponent_suffix(exp))
    }

    /// `%g`: `%e` for exponents below -4 or from the precision up, else `%f`; trailing
    /// zeros removed unless `#`.
    fn general(&self, magnitude: f64, precision: usize) -> String {
        let significant = precision.max(1);
        let (_, exp) = split_exponent(magnitude, significant - 1);
        let exp_i64 = i64::from(exp);
        let mut text = if exp_i64 < -4 || exp_i64 >= significant as i64 {
            let (mantissa, exp) = split_exponent(magnitude, significant - 1);
            let mantissa = if self.field.alternate {
                with_point(mantissa)
            } else {
                trim_fraction(&mantissa)
            };
            format!("{mantissa}{}", exponent_suffix(exp))
        } else {
            let decimals = usize::try_from(significant as i64 - 1 - exp_i64).unwrap_or(0);
            let fixed = format!("{magnitude:.decimals$}");
            if self.field.alternate {
                with_point(fixed)
            } else {
                trim_fraction(&fixed)
            }
        };
        if text.is_empty() {
            text.push('0');
        }
        text
    }
}

/// `magnitude` as `d.ddd` with `precision` decimals, and its decimal exponent.
fn split_exponent(magnitude: f64, precision: usize) -> (String, i32) {
    let text = format!("{magnitude:.precision$e}");
    match text.split_once('e') {
        Some((mantissa, exp)) => (mantissa.to_owned(), exp.parse().unwrap_or(0)),
        None => (text, 0),
    }
}

/// `e+05`: the sign always, and at least two digits.
fn exponent_suffix(exp: i32) -> String {
    let sign = if exp < 0 { '-' } else { '+' };
    format!("e{sign}{:02}", exp.unsigned_abs())
}

fn with_point(mut text: String) -> String {
    if !text.contains('.') {
        text.push('.');
    }
    text
}

/// Without trailing zeros after the point, nor a bare point.
fn trim_fraction(text: &str) -> String {
    if !text.contains('.') {
        return text.to_owned();
    }
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// `%a` as glibc prints an x86 `long double`: a leading hex digit of 8 to f (the
/// explicit integer bit and three fraction bits), the rest of the 64-bit mantissa.
fn hex(magnitude: f64, precision: Option<usize>, alternate: bool) -> String {
    if magnitude == 0.0 {
        let digits = "0".repeat(precision.unwrap_or(0));
        let point = if digits.is_empty() && !alternate {
            ""
        } else {
            "."
        };
        return format!("0x0{point}{digits}p+0");
    }
    let bits = magnitude.to_bits();
    let biased = i64::try_from((bits >> 52) & 0x7ff).unwrap_or(0);
    let fraction = bits & ((1u64 << 52) - 1);
    // Normalise subnormals so that the integer bit is set.
    let (mut mantissa, mut exp) = if biased == 0 {
        let shift = fraction.leading_zeros() - 11;
        (fraction << shift, -1022 - i64::from(shift))
    } else {
        (fraction | (1u64 << 52), biased - 1023)
    };
    mantissa <<= 11; // 64 bits, the integer bit on top.
    exp -= 3; // The leading hex digit holds four bits.
    let lead = mantissa >> 60;
    let rest = mantissa & ((1u64 << 60) - 1);
    let mut digits = format!("{rest:015x}");
    let mut lead_digit = lead;
    match precision {
        None => digits = digits.trim_end_matches('0').to_owned(),
        Some(p) if p < 15 => {
            let (kept, value) = round_hex(rest, p);
            digits = kept;
            if value {
                lead_digit += 1;
            }
            if lead_digit == 16 {
                lead_digit = 8;
                exp += 1;
            }
        }
        Some(p) => digits.push_str(&"0".repeat(p - 15)),
    }
    let point = if digits.is_empty() && !alternate {
        ""
    } else {
        "."
    };
    let sign = if exp < 0 { '-' } else { '+' };
    format!(
        "0x{lead_digit:x}{point}{digits}p{sign}{}",
        exp.unsigned_abs()
    )
}

/// The first `keep` hex digits of the 60-bit `rest`, rounded half to even; and whether
/// the rounding carried into the leading digit.
fn round_hex(rest: u64, keep: usize) -> (String, bool) {
    let dropped_bits = 4 * (15 - keep as u32);
    let kept = rest >> dropped_bits;
    let remainder = rest & ((1u64 << dropped_bits) - 1);
    let half = 1u64 << (dropped_bits - 1);
    let round_up = remainder > half || (remainder == half && kept & 1 == 1);
    let kept = kept + u64::from(round_up);
    let carry = kept >> (4 * keep as u32) != 0;
    let kept = kept & ((1u64 << (4 * keep as u32)) - 1);
    let text = if keep == 0 {
        String::new()
    } else {
        format!("{kept:0width$x}", width = keep)
    };
    (text, carry)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(conversion: char) -> FloatSpec {
        FloatSpec {
            conversion,
            ..FloatSpec::default()
        }
    }

    #[test]
    fn fixed_and_exponent() {
        assert_eq!(spec('f').format(1.5), "1.500000");
        assert_eq!(spec('e').format(1.0), "1.000000e+00");
        assert_eq!(spec('e').format(12345.678), "1.234568e+04");
        assert_eq!(spec('E').format(0.00012), "1.200000E-04");
        assert_eq!(spec('f').format(-0.0), "-0.000000");
        assert_eq!(spec('f').format(f64::INFINITY), "inf");
        assert_eq!(spec('F').format(f64::NEG_INFINITY), "-INF");
    }

    #[test]
    fn general() {
        assert_eq!(spec('g').format(1.0), "1");
        assert_eq!(spec('g').format(0.5), "0.5");
        assert_eq!(spec('g').format(100000.0), "100000");
        assert_eq!(spec('g').format(1000000.0), "1e+06");
        assert_eq!(spec('g').format(0.0001), "0.0001");
        assert_eq!(spec('g').format(0.00001), "1e-05");
        assert_eq!(spec('g').format(123456789.0), "1.23457e+08");
        assert_eq!(spec('g').format(0.0), "0");
        let alt = FloatSpec {
            field: Field {
                alternate: true,
                ..Field::default()
            },
            ..spec('g')
        };
        assert_eq!(alt.format(1.0), "1.00000");
    }

    #[test]
    fn flags_and_width() {
        let zero3 = FloatSpec {
            field: Field {
                zero: true,
                width: 3,
                ..Field::default()
            },
            ..spec('g')
        };
        assert_eq!(zero3.format(1.0), "001");
        assert_eq!(zero3.format(-1.0), "-01");
        let padded = FloatSpec {
            field: Field {
                width: 6,
                precision: Some(1),
                ..Field::default()
            },
            ..spec('f')
        };
        assert_eq!(padded.format(2.25), "   2.2");
        let left = FloatSpec {
            field: Field {
                left: true,
                plus: true,
                ..padded.field
            },
            ..padded
        };
        assert_eq!(left.format(2.0), "+2.0  ");
    }

    #[test]
    fn hex_as_long_double() {
        assert_eq!(spec('a').format(1.0), "0x8p-3");
        assert_eq!(spec('a').format(3.0), "0xcp-2");
        assert_eq!(spec('a').format(0.0), "0x0p+0");
        assert_eq!(spec('a').format(0.1), "0xc.cccccccccccdp-7"); // An f64 has fewer digits.
    }
}
