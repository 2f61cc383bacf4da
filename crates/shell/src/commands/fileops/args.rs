//! GNU `getopt_long` as coreutils use it: short options clustered (`-rf`), values
//! attached or separate (`-m755`, `-m 755`), long options with unique abbreviations
//! (`--verb`), `--opt=value`, options anywhere among the operands, `--` ending them.

/// Whether an option takes a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Value {
    None,
    Required,
    /// Only attached: `-xVALUE`, `--opt=VALUE`.
    Optional,
}

/// A long option: its name, whether it takes a value, and the key it reports as
/// (a short option's letter, or a private character for long-only options).
pub(crate) type Long = (&'static str, Value, char);

/// The options a command takes.
pub(crate) struct Spec {
    /// getopt-style: each letter, followed by `:` for a required value or `::` for an
    /// optional one.
    pub short: &'static str,
    pub long: &'static [Long],
}

/// Options in the order given, and the operands.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Parsed {
    pub options: Vec<(char, Option<String>)>,
    pub operands: Vec<String>,
}

impl Spec {
    fn short_value(&self, letter: char) -> Option<Value> {
        for (at, c) in self.short.char_indices() {
            if c == ':' {
                continue;
            }
            if c == letter {
                let rest = &self.short[at + c.len_utf8()..];
                return Some(if rest.starts_with("::") {
                    Value::Optional
                } else if rest.starts_with(':') {
                    Value::Required
                } else {
                    Value::None
                });
            }
        }
        None
    }

    /// The long option `name` stands for: an exact name, or the one option it
    /// abbreviates.
    fn find_long(&self, name: &str) -> Result<&Long, String> {
        if let Some(exact) = self.long.iter().find(|long| long.0 == name) {
            return Ok(exact);
        }
        let matches: Vec<&Long> = self
            .long
            .iter()
            .filter(|long| long.0.starts_with(name))
            .collect();
        match matches.as_slice() {
            [] => Err(format!("unrecognized option '--{name}'")),
            [one] => Ok(one),
            [first, rest @ ..] if rest.iter().all(|l| l.1 == first.1 && l.2 == first.2) => {
                Ok(first)
            }
            many => {
                let names: Vec<String> = many.iter().map(|l| format!("'--{}'", l.0)).collect();
                Err(format!(
                    "option '--{name}' is ambiguous; possibilities: {}",
                    names.join(" ")
                ))
            }
        }
    }
}

/// One argument as parsed, in command-line order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Arg {
    Option(char, Option<String>),
    Operand(String),
}

/// Parses `args` by `spec`; the error is GNU's message (without the program name).
pub(crate) fn parse(args: &[String], spec: &Spec) -> Result<Parsed, String> {
    let mut parsed = Parsed::default();
    for arg in parse_in_order(args, spec)? {
        match arg {
            Arg::Option(key, value) => parsed.options.push((key, value)),
            Arg::Operand(operand) => parsed.operands.push(operand),
        }
    }
    Ok(parsed)
}

/// Like [`parse`], keeping options and operands in the order given (for commands
/// such as `tar -C`, where an option applies to the operands after it).
pub(crate) fn parse_in_order(args: &[String], spec: &Spec) -> Result<Vec<Arg>, String> {
    let mut parsed = Vec::new();
    let mut index = 0;
    while index < args.len() {
        let arg = &args[index];
        index += 1;
        if arg == "--" {
            parsed.extend(args[index..].iter().cloned().map(Arg::Operand));
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (key, value) = parse_long(arg, long, args, &mut index, spec)?;
            parsed.push(Arg::Option(key, value));
        } else if arg.len() > 1 && arg.starts_with('-') {
            index = parse_cluster(arg, args, index, spec, &mut parsed)?;
        } else {
            parsed.push(Arg::Operand(arg.clone()));
        }
    }
    Ok(parsed)
}

/// Parses `--long[=value]` (`long` is `arg` without the dashes), taking a separate
/// value from `args[*index]` when it needs one.
fn parse_long(
    arg: &str,
    long: &str,
    args: &[String],
    index: &mut usize,
    spec: &Spec,
) -> Result<(char, Option<String>), String> {
    let (name, attached) = match long.split_once('=') {
        Some((name, value)) => (name, Some(value.to_owned())),
        None => (long, None),
    };
    let &(full, value, key) = spec.find_long(name).map_err(|err| {
        if attached.is_some() && err.starts_with("unrecognized") {
            format!("unrecognized option '{arg}'")
        } else {
            err
        }
    })?;
    let value = match (value, attached) {
        (Value::None, Some(_)) => {
            return Err(format!("option '--{full}' doesn't allow an argument"));
        }
        (Value::None, None) | (Value::Optional, None) => None,
        (_, Some(attached)) => Some(attached),
        (Value::Required, None) => match args.get(*index) {
            Some(next) => {
                *index += 1;
                Some(next.clone())
            }
            None => return Err(format!("option '--{full}' requires an argument")),
        },
    };
    Ok((key, value))
}

/// Parses one `-abc` cluster; returns the index of the next argument.
fn parse_cluster(
    arg: &str,
    args: &[String],
    mut index: usize,
    spec: &Spec,
    parsed: &mut Vec<Arg>,
) -> Result<usize, String> {
    for (at, letter) in arg.char_indices().skip(1) {
        let rest = &arg[at + letter.len_utf8()..];
        match spec.short_value(letter) {
            None => return Err(format!("invalid option -- '{letter}'")),
            Some(Value::None) => parsed.push(Arg::Option(letter, None)),
            Some(Value::Optional) => {
                let value = (!rest.is_empty()).then(|| rest.to_owned());
                parsed.push(Arg::Option(letter, value));
                return Ok(index);
            }
            Some(Value::Required) => {
                let value = if !rest.is_empty() {
                    rest.to_owned()
                } else if let Some(next) = args.get(index) {
                    index += 1;
                    next.clone()
                } else {
                    return Err(format!("option requires an argument -- '{letter}'"));
                };
                parsed.push(Arg::Option(letter, Some(value)));
                return Ok(index);
            }
        }
    }
    Ok(index)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: Spec = Spec {
        short: "pm:vZ::",
        long: &[
            ("mode", Value::Required, 'm'),
            ("parents", Value::Required, 'p'),
            ("verbose", Value::None, 'v'),
            ("version", Value::None, 'V'),
            ("context", Value::Optional, 'Z'),
        ],
    };

    fn run(args: &[&str]) -> Result<Parsed, String> {
        let args: Vec<String> = args.iter().map(|s| (*s).to_owned()).collect();
        parse(&args, &SPEC)
    }

    #[test]
    fn clusters_values_and_operands() {
        let parsed = run(&["-pv", "a", "-m755", "b", "-m", "700", "--", "-c"]).unwrap();
        assert_eq!(
            parsed.options,
            vec![
                ('p', None),
                ('v', None),
                ('m', Some("755".into())),
                ('m', Some("700".into()))
            ]
        );
        assert_eq!(parsed.operands, vec!["a", "b", "-c"]);
    }

    #[test]
    fn long_options_and_abbreviations() {
        let parsed = run(&["--mode=1", "--mo", "2", "--verb", "-", "--context"]).unwrap();
        assert_eq!(
            parsed.options,
            vec![
                ('m', Some("1".into())),
                ('m', Some("2".into())),
                ('v', None),
                ('Z', None)
            ]
        );
        assert_eq!(parsed.operands, vec!["-"]);
    }

    #[test]
    fn gnu_messages() {
        assert_eq!(run(&["-q"]).unwrap_err(), "invalid option -- 'q'");
        assert_eq!(
            run(&["-m"]).unwrap_err(),
            "option requires an argument -- 'm'"
        );
        assert_eq!(
            run(&["--bogus"]).unwrap_err(),
            "unrecognized option '--bogus'"
        );
        assert_eq!(
            run(&["--bogus=1"]).unwrap_err(),
            "unrecognized option '--bogus=1'"
        );
        assert_eq!(
            run(&["--mode"]).unwrap_err(),
            "option '--mode' requires an argument"
        );
        assert_eq!(
            run(&["--verbose=1"]).unwrap_err(),
            "option '--verbose' doesn't allow an argument"
        );
        assert_eq!(
            run(&["--ver"]).unwrap_err(),
            "option '--ver' is ambiguous; possibilities: '--verbose' '--version'"
        );
    }
}
