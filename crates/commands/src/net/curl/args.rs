//! curl's command line: short options clustered (`-fsSL`, `-ofile`), long options with
//! unique abbreviations (`--silen`), `--no-` in front of a switch to turn it off, URLs
//! anywhere among the options, and curl's own messages for mistakes. `--opt=value` is
//! also taken (curl itself rejects it, so nothing that works in curl changes meaning).

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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Opt {
    // Switches (`--no-NAME` turns them off).
    Silent,
    ShowError,
    Location,
    Include,
    Head,
    Fail,
    FailWithBody,
    Verbose,
    Get,
    CreateDirs,
    RemoteName,
    RemoteNameAll,
    /// Accepted and meaningless here (`-k`, `--compressed`, `-g`, ...).
    NoOp,
    Help,
    Version,
    // Options with a value.
    Request,
    Header,
    Data,
    DataBinary,
    DataRaw,
    DataUrlEncode,
    Json,
    Output,
    OutputDir,
    WriteOut,
    UserAgent,
    Referer,
    User,
    MaxRedirs,
    /// A number curl would check and that cannot change anything here (`-m`).
    Seconds,
    DumpHeader,
    Url,
}

impl Opt {
    fn takes_value(self) -> bool {
        matches!(
            self,
            Opt::Request
                | Opt::Header
                | Opt::Data
                | Opt::DataBinary
                | Opt::DataRaw
                | Opt::DataUrlEncode
                | Opt::Json
                | Opt::Output
                | Opt::OutputDir
                | Opt::WriteOut
                | Opt::UserAgent
                | Opt::Referer
                | Opt::User
                | Opt::MaxRedirs
                | Opt::Seconds
                | Opt::DumpHeader
                | Opt::Url
        )
    }
}

const SHORT: &[(char, Opt)] = &[
    ('s', Opt::Silent),
    ('S', Opt::ShowError),
    ('L', Opt::Location),
    ('i', Opt::Include),
    ('I', Opt::Head),
    ('f', Opt::Fail),
    ('v', Opt::Verbose),
    ('G', Opt::Get),
    ('O', Opt::RemoteName),
    ('k', Opt::NoOp),
    ('g', Opt::NoOp),
    ('N', Opt::NoOp),
    ('#', Opt::NoOp),
    ('4', Opt::NoOp),
    ('6', Opt::NoOp),
    ('q', Opt::NoOp),
    ('h', Opt::Help),
    ('V', Opt::Version),
    ('X', Opt::Request),
    ('H', Opt::Header),
    ('d', Opt::Data),
    ('o', Opt::Output),
    ('w', Opt::WriteOut),
    ('A', Opt::UserAgent),
    ('e', Opt::Referer),
    ('u', Opt::User),
    ('m', Opt::Seconds),
    ('D', Opt::DumpHeader),
];

const LONG: &[(&str, Opt)] = &[
    ("silent", Opt::Silent),
    ("show-error", Opt::ShowError),
    ("location", Opt::Location),
    ("location-trusted", Opt::Location),
    ("include", Opt::Include),
    ("head", Opt::Head),
    ("fail", Opt::Fail),
    ("fail-with-body", Opt::FailWithBody),
    ("verbose", Opt::Verbose),
    ("get", Opt::Get),
    ("create-dirs", Opt::CreateDirs),
    ("remote-name", Opt::RemoteName),
    ("remote-name-all", Opt::RemoteNameAll),
    ("insecure", Opt::NoOp),
    ("compressed", Opt::NoOp),
    ("globoff", Opt::NoOp),
    ("no-buffer", Opt::NoOp),
    ("progress-bar", Opt::NoOp),
    ("no-progress-meter", Opt::NoOp),
    ("http1.1", Opt::NoOp),
    ("http2", Opt::NoOp),
    ("ipv4", Opt::NoOp),
    ("ipv6", Opt::NoOp),
    ("disable", Opt::NoOp),
    ("help", Opt::Help),
    ("version", Opt::Version),
    ("request", Opt::Request),
    ("header", Opt::Header),
    ("data", Opt::Data),
    ("data-ascii", Opt::Data),
    ("data-binary", Opt::DataBinary),
    ("data-raw", Opt::DataRaw),
    ("data-urlencode", Opt::DataUrlEncode),
    ("json", Opt::Json),
    ("output", Opt::Output),
    ("output-dir", Opt::OutputDir),
    ("write-out", Opt::WriteOut),
    ("user-agent", Opt::UserAgent),
    ("referer", Opt::Referer),
    ("user", Opt::User),
    ("max-redirs", Opt::MaxRedirs),
    ("max-time", Opt::Seconds),
    ("connect-timeout", Opt::Seconds),
    ("dump-header", Opt::DumpHeader),
    ("url", Opt::Url),
];

/// Parses curl's arguments (without the command name).
pub(crate) fn parse(args: &[String]) -> Result<CurlArgs, ArgError> {
    let mut parsed = CurlArgs::default();
    let mut index = 0;
    let mut options_done = false;
    while index < args.len() {
        let arg = &args[index];
        index += 1;
        if options_done || arg == "-" || !arg.starts_with('-') {
            parsed.urls.push(arg.clone());
        } else if arg == "--" {
            options_done = true;
        } else if let Some(long) = arg.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (long, None),
            };
            let (opt, on) = find_long(name).ok_or_else(|| unknown(arg))?;
            let value = match (opt.takes_value(), inline) {
                (true, Some(value)) => Some(value.to_owned()),
                (true, None) => Some(next_value(args, &mut index, arg)?),
                (false, Some(_)) => return Err(unknown(arg)),
                (false, None) => None,
            };
            apply(&mut parsed, opt, on, value, &format!("--{name}"))?;
        } else {
            // A cluster: switches until one that takes a value, which takes the rest.
            let flags = &arg[1..];
            for (at, letter) in flags.char_indices() {
                let shown = format!("-{letter}");
                let opt = SHORT
                    .iter()
                    .find(|(c, _)| *c == letter)
                    .map(|(_, o)| *o)
                    .ok_or_else(|| unknown(&shown))?;
                if opt.takes_value() {
                    let rest = &flags[at + letter.len_utf8()..];
                    let value = match rest.is_empty() {
                        true => next_value(args, &mut index, &shown)?,
                        false => rest.to_owned(),
                    };
                    apply(&mut parsed, opt, true, Some(value), &shown)?;
                    break;
                }
                apply(&mut parsed, opt, true, None, &shown)?;
            }
        }
    }
    Ok(parsed)
}

fn unknown(shown: &str) -> ArgError {
    ArgError(format!("option {shown}: is unknown"))
}

fn next_value(args: &[String], index: &mut usize, shown: &str) -> Result<String, ArgError> {
    let value = args
        .get(*index)
        .cloned()
        .ok_or_else(|| ArgError(format!("option {shown}: requires parameter")))?;
    *index += 1;
    Ok(value)
}

/// The option a long name stands for (exact, a unique abbreviation, or `no-` and a
/// switch), and whether it is turned on.
fn find_long(name: &str) -> Option<(Opt, bool)> {
    if let Some(&(_, opt)) = LONG.iter().find(|(n, _)| *n == name) {
        return Some((opt, true));
    }
    if let Some(rest) = name.strip_prefix("no-")
        && let Some((opt, _)) = find_long(rest)
        && !opt.takes_value()
    {
        return Some((opt, false));
    }
    let mut matches = LONG
        .iter()
        .filter(|(n, _)| !name.is_empty() && n.starts_with(name));
    let first = matches.next()?;
    // Several names for the same option are not ambiguous.
    match matches.all(|(_, opt)| *opt == first.1) {
        true => Some((first.1, true)),
        false => None,
    }
}

fn apply(
    parsed: &mut CurlArgs,
    opt: Opt,
    on: bool,
    value: Option<String>,
    shown: &str,
) -> Result<(), ArgError> {
    let value = value.unwrap_or_default();
    match opt {
        Opt::Silent => parsed.silent = on,
        Opt::ShowError => parsed.show_error = on,
        Opt::Location => parsed.location = on,
        Opt::Include => parsed.include = on,
        Opt::Head => parsed.head = on,
        Opt::Fail => parsed.fail = on,
        Opt::FailWithBody => parsed.fail_with_body = on,
        Opt::Verbose => parsed.verbose = on,
        Opt::Get => parsed.get = on,
        Opt::CreateDirs => parsed.create_dirs = on,
        Opt::RemoteName => parsed.targets.push(Target::Remote),
        Opt::RemoteNameAll => parsed.remote_name_all = on,
        Opt::NoOp => {}
        Opt::Help => parsed.help = true,
        Opt::Version => parsed.version = true,
        Opt::Request => parsed.method = Some(value),
        Opt::Header => parsed.headers.push(value),
        Opt::Data => parsed.data.push(Data::Ascii(value)),
        Opt::DataBinary => parsed.data.push(Data::Binary(value)),
        Opt::DataRaw => parsed.data.push(Data::Raw(value)),
        Opt::DataUrlEncode => parsed.data.push(Data::UrlEncode(value)),
        Opt::Json => parsed.data.push(Data::Json(value)),
        Opt::Output => parsed.targets.push(Target::File(value)),
        Opt::OutputDir => parsed.output_dir = Some(value),
        Opt::WriteOut => parsed.write_out = Some(value),
        Opt::UserAgent => parsed.user_agent = Some(value),
        Opt::Referer => parsed.referer = Some(value),
        Opt::User => parsed.user = Some(value),
        Opt::MaxRedirs => {
            let n: i64 = value.trim().parse().map_err(|_| not_numeric(shown))?;
            if n < -1 {
                return Err(not_numeric(shown));
            }
            parsed.max_redirs = Some(n);
        }
        Opt::Seconds => {
            let ok = value
                .trim()
                .parse::<f64>()
                .is_ok_and(|s| s.is_finite() && s >= 0.0);
            if !ok {
                return Err(not_numeric(shown));
            }
        }
        Opt::DumpHeader => parsed.dump_header = Some(value),
        Opt::Url => parsed.urls.push(value),
    }
    Ok(())
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
            Some("option --dat: is unknown")
        );
        assert_eq!(
            err(&["--silent=1"]).as_deref(),
            Some("option --silent=1: is unknown")
        );
    }
}
