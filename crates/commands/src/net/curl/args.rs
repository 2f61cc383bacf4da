//! curl's command line, read by the commands' one parser: short options clustered
//! (`-fsSL`, `-ofile`), long options with unique abbreviations (`--silen`), `--no-` in
//! front of a switch to turn it off, URLs anywhere among the options, and curl's own
//! messages for mistakes. `--opt=value` is also taken (curl itself rejects it, so
//! nothing that works in curl changes meaning).

use crate::options::{Keyed, Long, Parser, Spec, UsageError, Value};

/// How a `-d`-like option's value becomes body bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Data {
    /// `-d`/`--data`: `@file` read with line breaks removed.
    Ascii(String),
    /// `--data-binary`: `@file` read exactly.
    Binary(String),
    /// `--data-raw`: no `@` handling.
    Raw(String),
    /// `--data-urlencode`: `content`, `=content`, `name=content`, `@file`, `name@file`.
    UrlEncode(String),
    /// `--json`: like `--data-binary`, concatenated without `&`.
    Json(String),
}

/// Where one URL's output goes, in the order `-o`/`-O` were given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    File(String),
    Remote,
}

/// Everything the command line asked for.
#[derive(Debug, Default)]
pub(crate) struct CurlArgs {
    pub urls: Vec<String>,
    pub method: Option<String>,
    /// `-H` values as given (`@file` expanded later).
    pub headers: Vec<String>,
    pub data: Vec<Data>,
    pub get: bool,
    pub targets: Vec<Target>,
    pub remote_name_all: bool,
    pub output_dir: Option<String>,
    pub create_dirs: bool,
    pub silent: bool,
    pub show_error: bool,
    pub location: bool,
    pub include: bool,
    pub head: bool,
    pub fail: bool,
    pub fail_with_body: bool,
    pub verbose: bool,
    pub write_out: Option<String>,
    pub user_agent: Option<String>,
    pub referer: Option<String>,
    pub user: Option<String>,
    /// `--max-redirs`; -1 is curl's "no limit" (the policy's limit still holds).
    pub max_redirs: Option<i64>,
    pub dump_header: Option<String>,
    pub help: bool,
    pub version: bool,
}

/// A command-line mistake, worded as curl words it (without the `curl: ` prefix).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ArgError(pub String);

// The keys of options without a short letter (private-use characters).
const FAIL_WITH_BODY: char = '\u{e100}';
const CREATE_DIRS: char = '\u{e101}';
const REMOTE_NAME_ALL: char = '\u{e102}';
const DATA_BINARY: char = '\u{e103}';
const DATA_RAW: char = '\u{e104}';
const DATA_URLENCODE: char = '\u{e105}';
const JSON: char = '\u{e106}';
const OUTPUT_DIR: char = '\u{e107}';
const MAX_REDIRS: char = '\u{e108}';
const URL: char = '\u{e109}';
/// Accepted and meaningless here (`-k`, `--compressed`, `-g`, ...).
const NO_OP: char = '\u{e10a}';
/// A number curl would check and that cannot change anything here (`-m`).
const SECONDS: char = 'm';

/// The key of `--no-NAME`, which turns the switch keyed `key` off.
const fn off(key: char) -> char {
    match char::from_u32(key as u32 + OFF) {
        Some(c) => c,
        None => key,
    }
}
/// Where the keys of `--no-NAME` start (the supplementary private-use plane).
const OFF: u32 = 0xF0000;

/// The switch a `--no-NAME` key turns off.
fn turned_off(key: char) -> Option<char> {
    (key as u32).checked_sub(OFF).and_then(char::from_u32)
}

/// curl's options: short letters cluster (`-fsSL`) and a value may be attached
/// (`-XPUT`); a long name may be abbreviated while it is unique.
const SPEC: Spec<Long> = Spec {
    short: "sSLiIfvGOkgN#46qhVX:H:d:o:w:A:e:u:m:D:",
    long: &[
        ("silent", Value::No, 's'),
        ("show-error", Value::No, 'S'),
        ("location", Value::No, 'L'),
        ("location-trusted", Value::No, 'L'),
        ("include", Value::No, 'i'),
        ("head", Value::No, 'I'),
        ("fail", Value::No, 'f'),
        ("fail-with-body", Value::No, FAIL_WITH_BODY),
        ("verbose", Value::No, 'v'),
        ("get", Value::No, 'G'),
        ("create-dirs", Value::No, CREATE_DIRS),
        ("remote-name", Value::No, 'O'),
        ("remote-name-all", Value::No, REMOTE_NAME_ALL),
        ("insecure", Value::No, NO_OP),
        ("compressed", Value::No, NO_OP),
        ("globoff", Value::No, NO_OP),
        ("no-buffer", Value::No, NO_OP),
        ("progress-bar", Value::No, NO_OP),
        ("no-progress-meter", Value::No, NO_OP),
        ("http1.1", Value::No, NO_OP),
        ("http2", Value::No, NO_OP),
        ("ipv4", Value::No, NO_OP),
        ("ipv6", Value::No, NO_OP),
        ("disable", Value::No, NO_OP),
        ("help", Value::No, 'h'),
        ("version", Value::No, 'V'),
        ("request", Value::Required, 'X'),
        ("header", Value::Required, 'H'),
        ("data", Value::Required, 'd'),
        ("data-ascii", Value::Required, 'd'),
        ("data-binary", Value::Required, DATA_BINARY),
        ("data-raw", Value::Required, DATA_RAW),
        ("data-urlencode", Value::Required, DATA_URLENCODE),
        ("json", Value::Required, JSON),
        ("output", Value::Required, 'o'),
        ("output-dir", Value::Required, OUTPUT_DIR),
        ("write-out", Value::Required, 'w'),
        ("user-agent", Value::Required, 'A'),
        ("referer", Value::Required, 'e'),
        ("user", Value::Required, 'u'),
        ("max-redirs", Value::Required, MAX_REDIRS),
        ("max-time", Value::Required, SECONDS),
        ("connect-timeout", Value::Required, SECONDS),
        ("dump-header", Value::Required, 'D'),
        ("url", Value::Required, URL),
        // `--no-` before a switch turns it off.
        ("no-silent", Value::No, off('s')),
        ("no-show-error", Value::No, off('S')),
        ("no-location", Value::No, off('L')),
        ("no-location-trusted", Value::No, off('L')),
        ("no-include", Value::No, off('i')),
        ("no-head", Value::No, off('I')),
        ("no-fail", Value::No, off('f')),
        ("no-fail-with-body", Value::No, off(FAIL_WITH_BODY)),
        ("no-verbose", Value::No, off('v')),
        ("no-get", Value::No, off('G')),
        ("no-create-dirs", Value::No, off(CREATE_DIRS)),
        // Named whole, or its prefix would be `--no-remote-name-all`'s. It cancels a
        // pending `-O`, which nothing here keeps open: taken and ignored.
        ("no-remote-name", Value::No, off('O')),
        ("no-remote-name-all", Value::No, off(REMOTE_NAME_ALL)),
        ("no-insecure", Value::No, NO_OP),
        ("no-compressed", Value::No, NO_OP),
        ("no-globoff", Value::No, NO_OP),
        ("no-progress-bar", Value::No, NO_OP),
    ],
    stop_at_operand: false,
    negative_numbers: false,
};

/// Parses curl's arguments (without the command name).
pub(crate) fn parse(args: &[String]) -> Result<CurlArgs, ArgError> {
    let mut parsed = CurlArgs::default();
    let mut parser = Parser::new(&SPEC, args);
    loop {
        let before = parser.consumed();
        let arg = parser
            .next_keyed()
            .map_err(|err| curl_words(&err, args, before))?;
        match arg {
            None => return Ok(parsed),
            Some(Keyed::Operand(url)) => parsed.urls.push(url.to_owned()),
            Some(Keyed::Option(key, value)) => {
                let given = option_as_given(args, before, parser.consumed(), key);
                apply(&mut parsed, key, value.unwrap_or_default(), &given)?;
            }
        }
    }
}

/// A refused command line in curl's words (it names the option as it was given).
fn curl_words(err: &UsageError, args: &[String], before: usize) -> ArgError {
    let word = args.get(before).map_or("", String::as_str);
    let long_word = || word.split('=').next().unwrap_or(word).to_owned();
    ArgError(match err {
        UsageError::InvalidShort(letter) => format!("option -{letter}: is unknown"),
        UsageError::ShortNeedsValue(letter) => format!("option -{letter}: requires parameter"),
        UsageError::LongNeedsValue(_) => format!("option {}: requires parameter", long_word()),
        UsageError::Ambiguous { .. } => format!("option {}: is ambiguous", long_word()),
        UsageError::Unrecognized(_) | UsageError::LongTakesNoValue(_) => {
            format!("option {word}: is unknown")
        }
    })
}

/// How the option just parsed was written, for messages: `-m`, or `--max-time`.
fn option_as_given(args: &[String], before: usize, after: usize, key: char) -> String {
    match args.get(before..after).and_then(<[String]>::first) {
        Some(word) if word.starts_with("--") => word.split('=').next().unwrap_or(word).to_owned(),
        _ => format!("-{key}"),
    }
}

fn apply(parsed: &mut CurlArgs, key: char, value: &str, given: &str) -> Result<(), ArgError> {
    if let Some(switch) = turned_off(key) {
        set_switch(parsed, switch, false);
        return Ok(());
    }
    let value = value.to_owned();
    match key {
        'h' => parsed.help = true,
        'V' => parsed.version = true,
        'O' => parsed.targets.push(Target::Remote),
        'X' => parsed.method = Some(value),
        'H' => parsed.headers.push(value),
        'd' => parsed.data.push(Data::Ascii(value)),
        DATA_BINARY => parsed.data.push(Data::Binary(value)),
        DATA_RAW => parsed.data.push(Data::Raw(value)),
        DATA_URLENCODE => parsed.data.push(Data::UrlEncode(value)),
        JSON => parsed.data.push(Data::Json(value)),
        'o' => parsed.targets.push(Target::File(value)),
        OUTPUT_DIR => parsed.output_dir = Some(value),
        'w' => parsed.write_out = Some(value),
        'A' => parsed.user_agent = Some(value),
        'e' => parsed.referer = Some(value),
        'u' => parsed.user = Some(value),
        'D' => parsed.dump_header = Some(value),
        URL => parsed.urls.push(value),
        MAX_REDIRS => {
            let n: i64 = value.trim().parse().map_err(|_| not_numeric(given))?;
            if n < -1 {
                return Err(not_numeric(given));
            }
            parsed.max_redirs = Some(n);
        }
        SECONDS => {
            let ok = value
                .trim()
                .parse::<f64>()
                .is_ok_and(|s| s.is_finite() && s >= 0.0);
            if !ok {
                return Err(not_numeric(given));
            }
        }
        switch => set_switch(parsed, switch, true),
    }
    Ok(())
}

/// Turns the switch keyed `key` on or off (a key of no switch does nothing: `-k`).
fn set_switch(parsed: &mut CurlArgs, key: char, on: bool) {
    let switch = match key {
        's' => &mut parsed.silent,
        'S' => &mut parsed.show_error,
        'L' => &mut parsed.location,
        'i' => &mut parsed.include,
        'I' => &mut parsed.head,
        'f' => &mut parsed.fail,
        FAIL_WITH_BODY => &mut parsed.fail_with_body,
        'v' => &mut parsed.verbose,
        'G' => &mut parsed.get,
        CREATE_DIRS => &mut parsed.create_dirs,
        REMOTE_NAME_ALL => &mut parsed.remote_name_all,
        _ => return,
    };
    *switch = on;
}

fn not_numeric(shown: &str) -> ArgError {
    ArgError(format!(
        "option {shown}: expected a proper numerical parameter"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Result<CurlArgs, ArgError> {
        parse(&words.iter().map(|w| (*w).to_owned()).collect::<Vec<_>>())
    }

    #[test]
    fn clusters_values_and_urls_anywhere() {
        let a = args(&[
            "-fsSLohi",
            "x.org",
            "-XPUT",
            "-H",
            "A: b",
            "--silen",
            "--data=a=b",
        ])
        .unwrap_or_default();
        assert!(a.fail && a.silent && a.show_error && a.location);
        assert_eq!(a.targets, [Target::File("hi".into())]);
        assert_eq!(a.urls, ["x.org"]);
        assert_eq!(a.method.as_deref(), Some("PUT"));
        assert_eq!(a.data, [Data::Ascii("a=b".into())]);
        let a = args(&["--remote-name-all", "--no-remote-name", "x"]).unwrap_or_default();
        assert!(a.remote_name_all);
        let a = args(&["-s", "--no-silent", "--", "-v"]).unwrap_or_default();
        assert!(!a.silent);
        assert_eq!(a.urls, ["-v"]);
    }

    #[test]
    fn mistakes_are_curls_messages() {
        let err = |w: &[&str]| args(w).err().map(|e| e.0);
        assert_eq!(err(&["--foo"]).as_deref(), Some("option --foo: is unknown"));
        assert_eq!(err(&["-sZ"]).as_deref(), Some("option -Z: is unknown"));
        assert_eq!(
            err(&["-o"]).as_deref(),
            Some("option -o: requires parameter")
        );
        assert_eq!(
            err(&["-m", "x"]).as_deref(),
            Some("option -m: expected a proper numerical parameter")
        );
        assert_eq!(
            err(&["--max-redirs", "-5"]).as_deref(),
            Some("option --max-redirs: expected a proper numerical parameter")
        );
        // `--data` and `--data-binary` both start with `--dat`.
        assert_eq!(
            err(&["--dat", "x"]).as_deref(),
            Some("option --dat: is ambiguous")
        );
        assert_eq!(
            err(&["--head=x"]).as_deref(),
            Some("option --head=x: is unknown")
        );
        assert_eq!(
            err(&["--max-time"]).as_deref(),
            Some("option --max-time: requires parameter")
        );
        assert_eq!(
            err(&["--silent=1"]).as_deref(),
            Some("option --silent=1: is unknown")
        );
    }
}
