//! Command lines parsed by getopt_long's rules, with its messages: clustered short
//! options (`-qn5`), values attached or separate (`-n5`, `-n 5`), long options with
//! `=value` or a separate value, unambiguous prefixes of long names (`--li`), `--` to
//! end the options, and operands anywhere (unless the command stops at the first).

/// Whether a long option takes a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Value {
    No,
    Required,
}

/// The options a command accepts.
#[derive(Debug)]
pub(super) struct Spec {
    /// Short options without a value.
    pub flags: &'static str,
    /// Short options that take a value.
    pub valued: &'static str,
    pub long: &'static [(&'static str, Value)],
    /// Options end at the first operand (getopt's leading `+`).
    pub stop_at_operand: bool,
    /// An argument such as `-3` or `-.5` is an operand, not options (seq).
    pub negative_numbers: bool,
}

/// One parsed argument.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Arg<'a> {
    Short(char, Option<&'a str>),
    /// The long option's full name, and its value.
    Long(&'static str, Option<&'a str>),
    Operand(&'a str),
}

/// Walks a command line, one option or operand at a time.
#[derive(Debug)]
pub(super) struct Parser<'a> {
    spec: &'a Spec,
    args: &'a [String],
    next: usize,
    /// The rest of a cluster of short options being read.
    cluster: &'a str,
    only_operands: bool,
}

impl<'a> Parser<'a> {
    pub fn new(spec: &'a Spec, args: &'a [String]) -> Self {
        Self {
            spec,
            args,
            next: 0,
            cluster: "",
            only_operands: false,
        }
    }

    /// The next argument, or the message of a usage error.
    pub fn next_arg(&mut self) -> Result<Option<Arg<'a>>, String> {
        if !self.cluster.is_empty() {
            return self.short();
        }
        let Some(arg) = self.args.get(self.next) else {
            return Ok(None);
        };
        self.next += 1;
        if self.only_operands || arg == "-" || !arg.starts_with('-') {
            self.only_operands |= self.spec.stop_at_operand;
            return Ok(Some(Arg::Operand(arg)));
        }
        if arg == "--" {
            self.only_operands = true;
            return self.next_arg();
        }
        if self.spec.negative_numbers && looks_negative(arg) {
            self.only_operands = true;
            return Ok(Some(Arg::Operand(arg)));
        }
        match arg.strip_prefix("--") {
            Some(long) => self.long(arg, long).map(Some),
            None => {
                self.cluster = &arg[1..];
                self.short()
            }
        }
    }

    /// Everything, options and operands, until the first error.
    pub fn collect(mut self) -> Result<Vec<Arg<'a>>, String> {
        let mut all = Vec::new();
        while let Some(arg) = self.next_arg()? {
            all.push(arg);
        }
        Ok(all)
    }

    fn short(&mut self) -> Result<Option<Arg<'a>>, String> {
        let mut chars = self.cluster.chars();
        let Some(c) = chars.next() else {
            return Ok(None);
        };
        self.cluster = chars.as_str();
        if self.spec.flags.contains(c) {
            return Ok(Some(Arg::Short(c, None)));
        }
        if !self.spec.valued.contains(c) {
            self.cluster = "";
            return Err(format!("invalid option -- '{c}'"));
        }
        let value = if self.cluster.is_empty() {
            let value = self
                .args
                .get(self.next)
                .ok_or_else(|| format!("option requires an argument -- '{c}'"))?;
            self.next += 1;
            value.as_str()
        } else {
            std::mem::take(&mut self.cluster)
        };
        Ok(Some(Arg::Short(c, Some(value))))
    }

    fn long(&mut self, whole: &str, long: &'a str) -> Result<Arg<'a>, String> {
        let (name, attached) = match long.split_once('=') {
            Some((name, value)) => (name, Some(value)),
            None => (long, None),
        };
        let (full, takes) = self.resolve(whole, name)?;
        let value = match (takes, attached) {
            (Value::No, Some(_)) => {
                return Err(format!("option '--{full}' doesn't allow an argument"));
            }
            (Value::Required, None) => {
                let value = self
                    .args
                    .get(self.next)
                    .ok_or_else(|| format!("option '--{full}' requires an argument"))?;
                self.next += 1;
                Some(value.as_str())
            }
            (_, attached) => attached,
        };
        Ok(Arg::Long(full, value))
    }

    /// The long option `name` stands for: itself, or the only one it begins.
    fn resolve(&self, whole: &str, name: &str) -> Result<(&'static str, Value), String> {
        let long = self.spec.long;
        if let Some(&exact) = long.iter().find(|(full, _)| *full == name) {
            return Ok(exact);
        }
        let candidates: Vec<_> = long
            .iter()
            .filter(|(full, _)| !name.is_empty() && full.starts_with(name))
            .collect();
        match candidates.as_slice() {
            [] => Err(format!("unrecognized option '{whole}'")),
            [only] => Ok(**only),
            _ => {
                let names: Vec<String> = candidates
                    .iter()
                    .map(|(full, _)| format!("'--{full}'"))
                    .collect();
                let shown = whole.split('=').next().unwrap_or(whole);
                Err(format!(
                    "option '{shown}' is ambiguous; possibilities: {}",
                    names.join(" ")
                ))
            }
        }
    }
}

/// `-5`, `-.5`: a negative number where seq expects its operands.
fn looks_negative(arg: &str) -> bool {
    arg.as_bytes()
        .get(1)
        .is_some_and(|&b| b == b'.' || b.is_ascii_digit())
}

/// GNU's help for options that every command here takes.
pub(super) const HELP_VERSION: &str = "      --help        display this help and exit
      --version     output version information and exit
";

/// The `--version` text.
pub(super) fn version(name: &str) -> String {
    format!("{name} (GNU coreutils) 9.1\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: Spec = Spec {
        flags: "qv",
        valued: "n",
        long: &[
            ("lines", Value::Required),
            ("quiet", Value::No),
            ("quit", Value::No),
        ],
        stop_at_operand: false,
        negative_numbers: false,
    };

    fn parse(spec: &Spec, args: &[&str]) -> Result<Vec<String>, String> {
        let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        let parsed = Parser::new(spec, &args).collect()?;
        Ok(parsed.iter().map(|a| format!("{a:?}")).collect())
    }

    #[test]
    fn clusters_and_values() {
        assert_eq!(
            parse(
                &SPEC,
                &["-qn5", "f", "-n", "3", "--lines=2", "--lines", "1"]
            ),
            Ok(vec![
                "Short('q', None)".to_owned(),
                "Short('n', Some(\"5\"))".to_owned(),
                "Operand(\"f\")".to_owned(),
                "Short('n', Some(\"3\"))".to_owned(),
                "Long(\"lines\", Some(\"2\"))".to_owned(),
                "Long(\"lines\", Some(\"1\"))".to_owned(),
            ])
        );
    }

    #[test]
    fn errors_are_getopts() {
        assert_eq!(
            parse(&SPEC, &["-x"]),
            Err("invalid option -- 'x'".to_owned())
        );
        assert_eq!(
            parse(&SPEC, &["-n"]),
            Err("option requires an argument -- 'n'".to_owned())
        );
        assert_eq!(
            parse(&SPEC, &["--lines"]),
            Err("option '--lines' requires an argument".to_owned())
        );
        assert_eq!(
            parse(&SPEC, &["--quiet=1"]),
            Err("option '--quiet' doesn't allow an argument".to_owned())
        );
        assert_eq!(
            parse(&SPEC, &["--foo=1"]),
            Err("unrecognized option '--foo=1'".to_owned())
        );
        assert_eq!(
            parse(&SPEC, &["--qui"]),
            Err("option '--qui' is ambiguous; possibilities: '--quiet' '--quit'".to_owned())
        );
    }

    #[test]
    fn prefixes_dash_and_double_dash() {
        assert_eq!(
            parse(&SPEC, &["--li", "4", "-", "--", "-q"]),
            Ok(vec![
                "Long(\"lines\", Some(\"4\"))".to_owned(),
                "Operand(\"-\")".to_owned(),
                "Operand(\"-q\")".to_owned(),
            ])
        );
    }

    #[test]
    fn negative_numbers_end_options() {
        let spec = Spec {
            negative_numbers: true,
            stop_at_operand: true,
            ..SPEC
        };
        assert_eq!(
            parse(&spec, &["-q", "-3", "-q"]),
            Ok(vec![
                "Short('q', None)".to_owned(),
                "Operand(\"-3\")".to_owned(),
                "Operand(\"-q\")".to_owned(),
            ])
        );
    }
}
