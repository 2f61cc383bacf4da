//! The one command-line parser of sandtab's commands: getopt_long's rules with glibc's
//! messages. Short options cluster (`-qn5`), take values attached or separate (`-n5`,
//! `-n 5`) or, with `::`, attached only (`-Iseconds`); long options take `=value` or a
//! separate value, and an unambiguous prefix names one (`--li`); `--` ends the options,
//! and operands may come anywhere, unless the command stops at the first (getopt's
//! leading `+`) or reads `-3` as a number (seq).

use std::fmt;

/// Whether an option takes a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Value {
    No,
    Required,
    /// Only attached: `-xVALUE`, `--opt=VALUE`.
    Optional,
}

/// A long option as a command declares it: a name and whether it takes a value, and
/// optionally the key it stands for (the short letter it is another name of).
pub(crate) trait LongOption: Sync + 'static {
    fn name(&self) -> &'static str;
    fn value(&self) -> Value;
    /// Two names for one option: a prefix of both is not ambiguous.
    fn same_option(&self, _other: &Self) -> bool {
        false
    }
}

impl LongOption for (&'static str, Value) {
    fn name(&self) -> &'static str {
        self.0
    }
    fn value(&self) -> Value {
        self.1
    }
}

impl LongOption for (&'static str, Value, char) {
    fn name(&self) -> &'static str {
        self.0
    }
    fn value(&self) -> Value {
        self.1
    }
    fn same_option(&self, other: &Self) -> bool {
        self.1 == other.1 && self.2 == other.2
    }
}

/// A long option that reports as a key letter (see [`Parser::next_keyed`]).
pub(crate) type Long = (&'static str, Value, char);

/// The keys of `--help` and `--version`, which have no short letter (private-use
/// characters, so no letter a command takes can collide with them).
pub(crate) const HELP: char = '\u{e000}';
pub(crate) const VERSION: char = '\u{e001}';

/// The options a command accepts.
#[derive(Debug)]
pub(crate) struct Spec<L: 'static = (&'static str, Value)> {
    /// getopt's string: each letter, `:` after it for a required value, `::` for an
    /// optional (attached) one.
    pub short: &'static str,
    pub long: &'static [L],
    /// Options end at the first operand (getopt's leading `+`).
    pub stop_at_operand: bool,
    /// An argument such as `-3` or `-.5` is an operand, and ends the options (seq).
    pub negative_numbers: bool,
}

impl<L> Spec<L> {
    /// Whether the short option `letter` exists, and what value it takes.
    fn short_value(&self, letter: char) -> Option<Value> {
        if letter == ':' {
            return None;
        }
        let at = self.short.find(letter)?;
        let rest = &self.short[at + letter.len_utf8()..];
        Some(if rest.starts_with("::") {
            Value::Optional
        } else if rest.starts_with(':') {
            Value::Required
        } else {
            Value::No
        })
    }
}

/// One parsed argument.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Arg<'a> {
    Short(char, Option<&'a str>),
    /// The long option's full name, and its value.
    Long(&'static str, Option<&'a str>),
    Operand(&'a str),
}

/// A command line that getopt would refuse; displayed in glibc's words (the command
/// puts its name before them), or worded by a command that mimics another tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum UsageError {
    /// `-x` that the command does not take.
    InvalidShort(char),
    /// `--name` (the word as given) that names no option.
    Unrecognized(String),
    /// `--na` that begins several options' names.
    Ambiguous {
        given: String,
        candidates: Vec<&'static str>,
    },
    /// A short option that needs a value, at the end of the line.
    ShortNeedsValue(char),
    /// A long option that needs a value, at the end of the line.
    LongNeedsValue(&'static str),
    /// `--name=value` for an option that takes none.
    LongTakesNoValue(&'static str),
}

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidShort(c) => write!(f, "invalid option -- '{c}'"),
            Self::Unrecognized(word) => write!(f, "unrecognized option '{word}'"),
            Self::Ambiguous { given, candidates } => {
                write!(f, "option '{given}' is ambiguous; possibilities:")?;
                for name in candidates {
                    write!(f, " '--{name}'")?;
                }
                Ok(())
            }
            Self::ShortNeedsValue(c) => write!(f, "option requires an argument -- '{c}'"),
            Self::LongNeedsValue(name) => write!(f, "option '--{name}' requires an argument"),
            Self::LongTakesNoValue(name) => {
                write!(f, "option '--{name}' doesn't allow an argument")
            }
        }
    }
}

impl From<UsageError> for String {
    fn from(err: UsageError) -> Self {
        err.to_string()
    }
}

/// Walks a command line, one option or operand at a time.
#[derive(Debug)]
pub(crate) struct Parser<'a, L: 'static = (&'static str, Value)> {
    spec: &'a Spec<L>,
    args: &'a [String],
    next: usize,
    /// The rest of a cluster of short options being read.
    cluster: &'a str,
    only_operands: bool,
}

impl<'a, L: LongOption> Parser<'a, L> {
    pub fn new(spec: &'a Spec<L>, args: &'a [String]) -> Self {
        Self {
            spec,
            args,
            next: 0,
            cluster: "",
            only_operands: false,
        }
    }

    /// How many words have been read (a cluster counts once begun): the words an
    /// option came from are those read while it was parsed.
    pub fn consumed(&self) -> usize {
        self.next
    }

    /// The next argument, or why the command line is refused.
    pub fn next_arg(&mut self) -> Result<Option<Arg<'a>>, UsageError> {
        if !self.cluster.is_empty() {
            return self.short().map(Some);
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
                self.short().map(Some)
            }
        }
    }

    /// Everything, options and operands, until the first error.
    pub fn collect(mut self) -> Result<Vec<Arg<'a>>, UsageError> {
        let mut all = Vec::new();
        while let Some(arg) = self.next_arg()? {
            all.push(arg);
        }
        Ok(all)
    }

    fn short(&mut self) -> Result<Arg<'a>, UsageError> {
        let mut chars = self.cluster.chars();
        let c = chars.next().unwrap_or('-');
        self.cluster = chars.as_str();
        let Some(takes) = self.spec.short_value(c) else {
            self.cluster = "";
            return Err(UsageError::InvalidShort(c));
        };
        let value = match takes {
            Value::No => None,
            Value::Optional => {
                (!self.cluster.is_empty()).then(|| std::mem::take(&mut self.cluster))
            }
            Value::Required if !self.cluster.is_empty() => Some(std::mem::take(&mut self.cluster)),
            Value::Required => {
                let value = self
                    .args
                    .get(self.next)
                    .ok_or(UsageError::ShortNeedsValue(c))?;
                self.next += 1;
                Some(value.as_str())
            }
        };
        Ok(Arg::Short(c, value))
    }

    fn long(&mut self, whole: &'a str, long: &'a str) -> Result<Arg<'a>, UsageError> {
        let (name, attached) = match long.split_once('=') {
            Some((name, value)) => (name, Some(value)),
            None => (long, None),
        };
        let option = self.resolve(whole, name)?;
        let full = option.name();
        let value = match (option.value(), attached) {
            (Value::No, Some(_)) => {
                return Err(UsageError::LongTakesNoValue(full));
            }
            (Value::Required, None) => {
                let value = self
                    .args
                    .get(self.next)
                    .ok_or(UsageError::LongNeedsValue(full))?;
                self.next += 1;
                Some(value.as_str())
            }
            (_, attached) => attached,
        };
        Ok(Arg::Long(full, value))
    }

    /// The long option `name` stands for: itself, or the only one it begins.
    fn resolve(&self, whole: &str, name: &str) -> Result<&'static L, UsageError> {
        let long = self.spec.long;
        if let Some(exact) = long.iter().find(|option| option.name() == name) {
            return Ok(exact);
        }
        let candidates: Vec<&'static L> = long
            .iter()
            .filter(|option| !name.is_empty() && option.name().starts_with(name))
            .collect();
        match candidates.as_slice() {
            [] => Err(UsageError::Unrecognized(whole.to_owned())),
            [first, rest @ ..] if rest.iter().all(|other| first.same_option(other)) => Ok(first),
            _ => Err(UsageError::Ambiguous {
                given: whole.split('=').next().unwrap_or(whole).to_owned(),
                candidates: candidates.iter().map(|option| option.name()).collect(),
            }),
        }
    }
}

/// An option by the letter it stands for, or an operand (see [`Parser::next_keyed`]).
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Keyed<'a> {
    Option(char, Option<&'a str>),
    Operand(&'a str),
}

impl<'a> Parser<'a, Long> {
    /// The next option by its key letter and value; operands read on the way are put in
    /// `operands`.
    pub fn next_option<T: From<&'a str>>(
        &mut self,
        operands: &mut Vec<T>,
    ) -> Result<Option<(char, Option<&'a str>)>, UsageError> {
        while let Some(arg) = self.next_keyed()? {
            match arg {
                Keyed::Option(key, value) => return Ok(Some((key, value))),
                Keyed::Operand(operand) => operands.push(T::from(operand)),
            }
        }
        Ok(None)
    }

    /// The next argument with a long option reported by its key letter, so that `-n 5`
    /// and `--lines=5` are one case for the command.
    pub fn next_keyed(&mut self) -> Result<Option<Keyed<'a>>, UsageError> {
        Ok(self.next_arg()?.map(|arg| match arg {
            Arg::Short(letter, value) => Keyed::Option(letter, value),
            Arg::Long(name, value) => {
                let key = self.spec.long.iter().find(|long| long.0 == name);
                Keyed::Option(key.map_or('?', |long| long.2), value)
            }
            Arg::Operand(operand) => Keyed::Operand(operand),
        }))
    }
}

/// `-5`, `-.5`: a negative number where seq expects its operands.
fn looks_negative(arg: &str) -> bool {
    arg.as_bytes()
        .get(1)
        .is_some_and(|&b| b == b'.' || b.is_ascii_digit())
}

/// A non-negative count as GNU tools read one, or `None` if it is not a number; a
/// huge count means "everything" and saturates.
pub(crate) fn count(text: &str) -> Option<usize> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(text.parse().unwrap_or(usize::MAX))
}

/// What a command line asks of a command: to run, or to print a text and exit 0
/// (`--help`, `--version`).
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Invocation<T> {
    Run(T),
    Print(String),
}

/// GNU's help for options that every command here takes.
pub(crate) const HELP_VERSION: &str = "      --help        display this help and exit
      --version     output version information and exit
";

/// The `--version` text.
pub(crate) fn version(name: &str) -> String {
    format!("{name} (GNU coreutils) 9.1\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: Spec = Spec {
        short: "qvn:I::",
        long: &[
            ("lines", Value::Required),
            ("quiet", Value::No),
            ("quit", Value::No),
            ("color", Value::Optional),
        ],
        stop_at_operand: false,
        negative_numbers: false,
    };

    fn parse<L: LongOption + std::fmt::Debug>(
        spec: &Spec<L>,
        args: &[&str],
    ) -> Result<Vec<String>, String> {
        let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        let parsed = Parser::new(spec, &args).collect()?;
        Ok(parsed.iter().map(|a| format!("{a:?}")).collect())
    }

    #[test]
    fn clusters_and_values() {
        assert_eq!(
            parse(
                &SPEC,
                &[
                    "-qn5",
                    "f",
                    "-n",
                    "3",
                    "--lines=2",
                    "--lines",
                    "1",
                    "-Ix",
                    "-I",
                    "--color"
                ]
            ),
            Ok(vec![
                "Short('q', None)".to_owned(),
                "Short('n', Some(\"5\"))".to_owned(),
                "Operand(\"f\")".to_owned(),
                "Short('n', Some(\"3\"))".to_owned(),
                "Long(\"lines\", Some(\"2\"))".to_owned(),
                "Long(\"lines\", Some(\"1\"))".to_owned(),
                "Short('I', Some(\"x\"))".to_owned(),
                "Short('I', None)".to_owned(),
                "Long(\"color\", None)".to_owned(),
            ])
        );
    }

    #[test]
    fn errors_are_glibcs() {
        for (args, want) in [
            (&["-x"][..], "invalid option -- 'x'"),
            (&["-:"], "invalid option -- ':'"),
            (&["-n"], "option requires an argument -- 'n'"),
            (&["--lines"], "option '--lines' requires an argument"),
            (&["--quiet=1"], "option '--quiet' doesn't allow an argument"),
            (&["--foo=1"], "unrecognized option '--foo=1'"),
            (
                &["--qui"],
                "option '--qui' is ambiguous; possibilities: '--quiet' '--quit'",
            ),
        ] {
            assert_eq!(parse(&SPEC, args), Err(want.to_owned()), "{args:?}");
        }
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
    fn negative_numbers_and_stopping_at_operands() {
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

    #[test]
    fn two_names_for_one_option_are_not_ambiguous() {
        const KEYED: Spec<(&str, Value, char)> = Spec {
            short: "L",
            long: &[
                ("dereference", Value::No, 'L'),
                ("dereference-all", Value::No, 'L'),
                ("debug", Value::No, 'D'),
            ],
            stop_at_operand: false,
            negative_numbers: false,
        };
        assert_eq!(
            parse(&KEYED, &["--der"]),
            Ok(vec!["Long(\"dereference\", None)".to_owned()])
        );
        assert!(parse(&KEYED, &["--de"]).is_err());
    }

    #[test]
    fn consumed_words_follow_each_option() {
        let args: Vec<String> = ["-qn", "5", "x"].iter().map(|a| (*a).to_owned()).collect();
        let mut parser = Parser::new(&SPEC, &args);
        let mut spans = Vec::new();
        loop {
            let before = parser.consumed();
            let Ok(Some(_)) = parser.next_arg() else {
                break;
            };
            spans.push((before, parser.consumed()));
        }
        assert_eq!(spans, vec![(0, 1), (1, 2), (2, 3)]);
    }
}
