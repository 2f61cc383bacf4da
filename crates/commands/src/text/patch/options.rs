//! patch's command line: GNU's options, the help and version texts, and the settings
//! they make.

use crate::options::{Arg, Value};

pub(super) const VERSION: &str = "GNU patch 2.7.6\n";

pub(super) const HELP: &str = "\
Usage: patch [OPTION]... [ORIGFILE [PATCHFILE]]

  -p NUM  --strip=NUM  Strip NUM leading components from file names.
  -F LINES  --fuzz LINES  Set the fuzz factor to LINES for inexact matching.
  -l  --ignore-whitespace  Ignore white space changes between patch and input.
  -R  --reverse  Assume patches were created with old and new files swapped.
  -N  --forward  Ignore patches that appear to be reversed or already applied.
  -i PATCHFILE  --input=PATCHFILE  Read patch from PATCHFILE instead of stdin.
  -o FILE  --output=FILE  Output patched files to FILE.
  -r FILE  --reject-file=FILE  Output rejects to FILE.
  -d DIR  --directory=DIR  Change the working directory to DIR first.
  -E  --remove-empty-files  Remove output files that are empty after patching.
  -b  --backup  Back up the original contents of each file.
  --backup-if-mismatch  Back up if the patch does not match exactly (default).
  --no-backup-if-mismatch  Back up mismatches only if otherwise requested.
  -z SUFFIX  --suffix=SUFFIX  Append SUFFIX to backup file names (default .orig).
  -t  --batch  Ask no questions; skip bad-Prereq patches; assume reversed.
  -f  --force  Like -t, but ignore bad-Prereq patches, and assume unreversed.
  -s  --quiet  --silent  Work silently unless an error occurs.
  --dry-run  Do not actually change any files; just print what would happen.
  -v  --version  Output version info.
  --help  Output this help.
";

pub(super) const LONG_OPTIONS: &[(&str, Value)] = &[
    ("strip", Value::Required),
    ("input", Value::Required),
    ("output", Value::Required),
    ("directory", Value::Required),
    ("reject-file", Value::Required),
    ("fuzz", Value::Required),
    ("suffix", Value::Required),
    ("prefix", Value::Required),
    ("basename-prefix", Value::Required),
    ("version-control", Value::Required),
    ("ifdef", Value::Required),
    ("get", Value::Required),
    ("debug", Value::Required),
    ("reject-format", Value::Required),
    ("read-only", Value::Required),
    ("quoting-style", Value::Required),
    ("merge", Value::Optional),
    ("backup", Value::No),
    ("context", Value::No),
    ("ed", Value::No),
    ("remove-empty-files", Value::No),
    ("force", Value::No),
    ("ignore-whitespace", Value::No),
    ("normal", Value::No),
    ("forward", Value::No),
    ("reverse", Value::No),
    ("silent", Value::No),
    ("quiet", Value::No),
    ("batch", Value::No),
    ("set-time", Value::No),
    ("set-utc", Value::No),
    ("unified", Value::No),
    ("version", Value::No),
    ("dry-run", Value::No),
    ("verbose", Value::No),
    ("posix", Value::No),
    ("binary", Value::No),
    ("no-backup-if-mismatch", Value::No),
    ("backup-if-mismatch", Value::No),
    ("follow-symlinks", Value::No),
    ("help", Value::No),
];

pub(super) const SPEC: crate::options::Spec = crate::options::Spec {
    short: "bceEflnNRstTuvZp:i:o:O:d:r:F:z:B:V:D:g:x:Y:",
    long: LONG_OPTIONS,
    stop_at_operand: false,
    negative_numbers: false,
};

#[derive(Debug, Clone)]
pub(super) struct Options {
    pub(super) strip: Option<usize>,
    pub(super) input: Option<String>,
    pub(super) output: Option<String>,
    pub(super) directory: Option<String>,
    pub(super) reject_file: Option<String>,
    pub(super) fuzz: usize,
    /// `-z`: the backup suffix given (`.orig` without one).
    pub(super) suffix: Option<String>,
    /// `-B`: a prefix for backup names.
    pub(super) prefix: Option<String>,
    pub(super) reverse: bool,
    pub(super) forward: bool,
    pub(super) dry_run: bool,
    pub(super) silent: bool,
    pub(super) force: bool,
    pub(super) batch: bool,
    pub(super) backup: bool,
    pub(super) backup_if_mismatch: bool,
    pub(super) remove_empty: bool,
    pub(super) ignore_whitespace: bool,
    pub(super) verbose: bool,
    /// `--binary`: CRs at the ends of the patch's lines stay.
    pub(super) binary: bool,
    /// The file named on the command line, patched whatever the diff names.
    pub(super) target: Option<String>,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            strip: None,
            input: None,
            output: None,
            directory: None,
            reject_file: None,
            fuzz: 2,
            suffix: None,
            prefix: None,
            reverse: false,
            forward: false,
            dry_run: false,
            silent: false,
            force: false,
            batch: false,
            backup: false,
            backup_if_mismatch: true,
            remove_empty: false,
            ignore_whitespace: false,
            verbose: false,
            binary: false,
            target: None,
        }
    }
}

pub(super) enum Parsed {
    Run(Box<Options>),
    Help,
    Version,
}

pub(super) enum ArgError {
    /// A usage error (followed by GNU's `Try 'patch --help'` line).
    Usage(String),
    /// A fatal error (`patch: **** ...`).
    Fatal(String),
}

pub(super) fn parse_args(args: &[String]) -> Result<Parsed, ArgError> {
    let mut opts = Options::default();
    let mut operands = Vec::new();
    let parsed = crate::options::Parser::new(&SPEC, args)
        .collect()
        .map_err(|err| ArgError::Usage(err.into()))?;
    for arg in parsed {
        let (short, value) = match arg {
            Arg::Operand(operand) => {
                operands.push(operand.to_owned());
                continue;
            }
            Arg::Short(c, value) => (c, value),
            Arg::Long(name, value) => match long_to_short(name) {
                Some(c) => (c, value),
                None => match name {
                    "help" => return Ok(Parsed::Help),
                    _ => {
                        long_only(&mut opts, name);
                        continue;
                    }
                },
            },
        };
        if short == 'v' {
            return Ok(Parsed::Version);
        }
        short_option(&mut opts, short, value.unwrap_or_default().to_owned())?;
    }
    let mut operands = operands.into_iter();
    opts.target = operands.next();
    if let Some(patch_file) = operands.next() {
        opts.input = Some(patch_file);
    }
    if let Some(extra) = operands.next() {
        return Err(ArgError::Usage(format!("{extra}: extra operand")));
    }
    Ok(Parsed::Run(Box::new(opts)))
}

pub(super) fn long_to_short(name: &str) -> Option<char> {
    Some(match name {
        "strip" => 'p',
        "input" => 'i',
        "output" => 'o',
        "directory" => 'd',
        "reject-file" => 'r',
        "fuzz" => 'F',
        "suffix" => 'z',
        "prefix" => 'B',
        "basename-prefix" => 'Y',
        "version-control" => 'V',
        "ifdef" => 'D',
        "get" => 'g',
        "debug" => 'x',
        "backup" => 'b',
        "context" => 'c',
        "ed" => 'e',
        "remove-empty-files" => 'E',
        "force" => 'f',
        "ignore-whitespace" => 'l',
        "normal" => 'n',
        "forward" => 'N',
        "reverse" => 'R',
        "silent" | "quiet" => 's',
        "batch" => 't',
        "set-time" => 'T',
        "set-utc" => 'Z',
        "unified" => 'u',
        "version" => 'v',
        _ => return None,
    })
}

pub(super) fn long_only(opts: &mut Options, name: &str) {
    match name {
        "dry-run" => opts.dry_run = true,
        "verbose" => opts.verbose = true,
        "binary" => opts.binary = true,
        "no-backup-if-mismatch" => opts.backup_if_mismatch = false,
        "backup-if-mismatch" => opts.backup_if_mismatch = true,
        "posix" => opts.backup_if_mismatch = false,
        // Accepted without effect here.
        _ => {}
    }
}

pub(super) fn short_option(opts: &mut Options, c: char, value: String) -> Result<(), ArgError> {
    match c {
        'p' => {
            let count = crate::options::count(&value)
                .ok_or_else(|| ArgError::Fatal(format!("strip count {value} is not a number")))?;
            opts.strip = Some(count);
        }
        'F' => {
            opts.fuzz = crate::options::count(&value)
                .ok_or_else(|| ArgError::Fatal(format!("fuzz factor {value} is not a number")))?;
        }
        'i' => opts.input = Some(value),
        'o' => opts.output = Some(value),
        'd' => opts.directory = Some(value),
        'r' => opts.reject_file = Some(value),
        'z' => opts.suffix = Some(value),
        'B' => opts.prefix = Some(value),
        'b' => opts.backup = true,
        'E' => opts.remove_empty = true,
        'f' => opts.force = true,
        'l' => opts.ignore_whitespace = true,
        'N' => opts.forward = true,
        'R' => opts.reverse = true,
        's' => opts.silent = true,
        't' => opts.batch = true,
        'D' => return Err(ArgError::Fatal("--ifdef is not supported".into())),
        // Input format hints, version control, times, debugging: nothing to do.
        _ => {}
    }
    Ok(())
}
