//! The command lines of the file commands (and `gzip`, `tar`, `wget`): parsed by the
//! one parser (`commands::options`), each long option reported by the key letter it
//! stands for (the short option it is another name of, or a private letter).

pub(crate) use crate::options::Value;
use crate::options::{self, Keyed, Parser};

/// A long option: its name, whether it takes a value, and the key it reports as.
pub(crate) type Long = (&'static str, Value, char);

/// The options a command takes.
pub(crate) type Spec = options::Spec<Long>;

/// Options in the order given, and the operands.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Parsed {
    pub options: Vec<(char, Option<String>)>,
    pub operands: Vec<String>,
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
    let mut parser = Parser::new(spec, args);
    let mut parsed = Vec::new();
    while let Some(arg) = parser.next_keyed()? {
        parsed.push(match arg {
            Keyed::Option(key, value) => Arg::Option(key, value.map(str::to_owned)),
            Keyed::Operand(operand) => Arg::Operand(operand.to_owned()),
        });
    }
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: Spec = Spec {
        short: "pm:vZ::",
        long: &[
            ("mode", Value::Required, 'm'),
            ("parents", Value::Required, 'p'),
            ("verbose", Value::No, 'v'),
            ("version", Value::No, 'V'),
            ("context", Value::Optional, 'Z'),
        ],
        stop_at_operand: false,
        negative_numbers: false,
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
