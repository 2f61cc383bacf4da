use crate::text::diff::{
    Change, Compare, Format, Options, Parsed, Printer, Texts, c_quote, find_changes, format_ctime,
    format_time, glob_match, group_hunks, line_key, parse_args, span, split_lines, unified_span,
};
use crate::util::shell_quote;
use sandtab_vfs::Timestamp;
use std::ops::Range;

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

fn run_options(list: &[&str]) -> (Options, Vec<String>) {
    match parse_args(&args(list)) {
        Ok(Parsed::Run(opts, operands)) => (*opts, operands),
        Ok(_) => panic!("not a run"),
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn parses_clusters_values_and_permuted_operands() {
    let (opts, operands) = run_options(&["a", "-ru", "--label=x", "-L", "y", "b"]);
    assert_eq!(operands, ["a", "b"]);
    assert!(opts.recursive);
    assert_eq!(opts.format, Format::Unified);
    assert_eq!(opts.labels, ["x", "y"]);
    assert_eq!(opts.switches, " -ru '--label=x' -L y");
    let (opts, _) = run_options(&["-U0", "a", "b"]);
    assert_eq!(opts.context, 0);
    let (opts, _) = run_options(&["--unif=5", "a", "b"]);
    assert_eq!((opts.format, opts.context), (Format::Unified, 5));
    let (opts, _) = run_options(&["-5u", "a", "b"]);
    assert_eq!(opts.context, 5);
}

#[test]
fn reports_bad_arguments_like_gnu() {
    let err = |list: &[&str]| parse_args(&args(list)).err().unwrap_or_default();
    assert_eq!(err(&["--bogus", "a", "b"]), "unrecognized option '--bogus'");
    assert_eq!(err(&["-U", "x", "a", "b"]), "invalid context length 'x'");
    assert_eq!(err(&["a"]), "missing operand after 'a'");
    assert_eq!(err(&["a", "b", "c"]), "extra operand 'c'");
    assert_eq!(err(&["-L"]), "option requires an argument -- 'L'");
    assert!(err(&["--ignore", "a", "b"]).contains("ambiguous"));
}

fn diff_normal(old: &str, new: &str) -> String {
    let opts = Options::default();
    let (old, new) = (split_lines(old.as_bytes()), split_lines(new.as_bytes()));
    let changes = find_changes(&old, &new, &opts.compare, 0);
    let hunks = group_hunks(&changes, 0);
    let mut out = Vec::new();
    let printer = Printer {
        opts: &opts,
        texts: Texts {
            old: &old,
            new: &new,
        },
    };
    printer.normal(&hunks, &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

#[test]
fn normal_format() {
    assert_eq!(
        diff_normal("one\ntwo\nthree\n", "one\n2\nthree\nfour\n"),
        "2c2\n< two\n---\n> 2\n3a4\n> four\n"
    );
    assert_eq!(diff_normal("1\n2\n3\n", "1\n3\n"), "2d1\n< 2\n");
    assert_eq!(
        diff_normal("x", "x\n"),
        "1c1\n< x\n\\ No newline at end of file\n---\n> x\n"
    );
}

#[test]
fn hunks_merge_when_context_overlaps() {
    let change = |at: usize| Change {
        old: at..at + 1,
        new: at..at + 1,
        ignorable: false,
    };
    let changes = [change(0), change(7), change(15)];
    let hunks = group_hunks(&changes, 3);
    assert_eq!(hunks.len(), 2);
    assert_eq!(hunks[0].len(), 2);
}

#[test]
fn ranges() {
    assert_eq!(unified_span(&(2..3)), "3");
    assert_eq!(unified_span(&(0..0)), "0,0");
    assert_eq!(unified_span(&(0..4)), "1,4");
    assert_eq!(span(&(3..3)), "3");
    assert_eq!(span(&(1..3)), "2,3");
}

#[test]
fn white_space_keys() {
    let compare = Compare {
        space_change: true,
        ..Compare::default()
    };
    assert_eq!(line_key(b"a  b \t\n", &compare).as_ref(), b"a b");
    let compare = Compare {
        all_space: true,
        ..Compare::default()
    };
    assert_eq!(line_key(b" a b\n", &compare).as_ref(), b"ab");
}

#[test]
fn times_format_like_gnu() {
    assert_eq!(
        format_time(Timestamp(0)),
        "1970-01-01 00:00:00.000000000 +0000"
    );
    let t = Timestamp(1_704_067_200 * 1_000_000_000 + 5);
    assert_eq!(format_time(t), "2024-01-01 00:00:00.000000005 +0000");
}

#[test]
fn globs() {
    assert!(glob_match("*.o", "a.o"));
    assert!(!glob_match("*.o", "a.c"));
    assert!(glob_match(".git", ".git"));
    assert!(glob_match("[ab]?", "bx"));
    assert!(!glob_match("[!ab]?", "bx"));
}

#[test]
fn quoting_like_gnu() {
    assert_eq!(c_quote("d1/f", false), "d1/f");
    assert_eq!(c_quote("a b", false), "\"a b\"");
    assert_eq!(c_quote("t\tq\"\\", false), "\"t\\tq\\\"\\\\\"");
    assert_eq!(c_quote("\u{fc}", false), "\"\\303\\274\"");
    assert_eq!(c_quote("\u{fc}", true), "\u{fc}");
    assert_eq!(shell_quote("-r"), "-r");
    assert_eq!(shell_quote("*.log"), "'*.log'");
    assert_eq!(shell_quote("--exclude=x"), "'--exclude=x'");
}

#[test]
fn context_format_dates() {
    let t = Timestamp(1_796_151_571 * 1_000_000_000);
    assert_eq!(format_ctime(t), "Tue Dec  1 18:59:31 2026");
}

/// What GNU diff prints for `old` and `new`, normal format.
fn gnu_changes(old: &str, new: &str, horizon: usize) -> Vec<(Range<usize>, Range<usize>)> {
    let (old, new) = (split_lines(old.as_bytes()), split_lines(new.as_bytes()));
    find_changes(&old, &new, &Compare::default(), horizon)
        .into_iter()
        .map(|c| (c.old, c.new))
        .collect()
}

#[test]
fn changes_are_chosen_as_gnu_chooses() {
    // A replaced line is one change, not a deletion and an insertion elsewhere.
    assert_eq!(
        gnu_changes("e\nf\na\nf\ne\n", "e\nf\nf\nf\ne\n", 0),
        [(2..3, 2..3)]
    );
    // Runs slide down as far as they go, within the lines compared.
    assert_eq!(gnu_changes("x\nx\n", "x\nx\nx\n", 0), [(2..2, 2..3)]);
    assert_eq!(
        gnu_changes("a\nend\nend\nz\n", "a\nend\nz\n", 0),
        [(2..3, 2..2)]
    );
    assert_eq!(
        gnu_changes("a\nend\nend\nz\n", "a\nend\nz\n", 3),
        [(2..3, 2..2)]
    );
}
