//! The shell's compatibility suite: every case of `tests/compat/*.yaml` runs in real bash
//! and in sandtab's shell, and both must give what the case records (stdout, stderr,
//! exit status and the files left in the working directory). What a case records is
//! what real bash did, written by `COMPAT_BLESS=1 cargo test -p sandtab-shell --test
//! compat`. A case that sandtab gets wrong says why in its `known_failure`; such a case
//! that starts passing fails the suite until that is taken off.
//!
//! `COMPAT_FILTER=text` runs the cases whose id (`topic/name`) contains `text`;
//! `COMPAT_BASH=0` skips the bash half (for a machine without GNU tools);
//! `COMPAT_VERBOSE=1` also lists the known failures with their reasons and differences;
//! `COMPAT_DIR=path` reads the cases from another directory.

mod bash;
mod case;
mod sandtab;

use case::{Case, Outcome};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The working directory (and `$HOME`) of every case.
pub const HOME: &str = "/home/agent";

/// The share of cases sandtab must pass.
const GOAL_PERCENT: f64 = 97.0;

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(err) => {
            eprintln!("compat: {err}");
            ExitCode::FAILURE
        }
    }
}

fn cases_dir() -> PathBuf {
    std::env::var_os("COMPAT_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/compat"),
        PathBuf::from,
    )
}

fn run() -> Result<bool, String> {
    // `cargo test` passes harness flags (`--nocapture`, a filter) that this runner
    // does not take; a listing request gets an empty list.
    if std::env::args().any(|a| a == "--list") {
        return Ok(true);
    }
    let dir = cases_dir();
    let mut files = case::load_all(&dir)?;
    let filter = std::env::var("COMPAT_FILTER").unwrap_or_default();
    let with_bash = std::env::var("COMPAT_BASH").map_or(true, |v| v != "0");
    let scratch = std::env::temp_dir().join(format!("sandtab-compat-{}", std::process::id()));

    let mut ids = BTreeSet::new();
    for file in &files {
        for case in &file.cases {
            let id = format!("{}/{}", file.topic, case.name);
            if !ids.insert(id.clone()) {
                return Err(format!("two cases are named {id:?}"));
            }
        }
    }

    if std::env::var("COMPAT_BLESS").is_ok_and(|v| v == "1") {
        let blessed = bless(&mut files, &filter, &scratch)?;
        let _ = std::fs::remove_dir_all(&scratch);
        println!("compat: recorded bash's outcome for {blessed} cases");
        return Ok(true);
    }

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let mut report = Report::default();
    for file in &files {
        for case in &file.cases {
            let id = format!("{}/{}", file.topic, case.name);
            if !id.contains(&filter) {
                continue;
            }
            report.total += 1;
            let Some(expected) = expected_outcome(case) else {
                report.fail(
                    &id,
                    "has no recorded outcome: run with COMPAT_BLESS=1".into(),
                );
                continue;
            };
            if with_bash {
                let real = bash::run(case, &scratch)?;
                if let Some(diff) = differences(&expected, &real) {
                    report.fail(
                        &id,
                        format!("real bash no longer gives the recorded outcome:\n{diff}"),
                    );
                    continue;
                }
            }
            let ours = runtime.block_on(sandtab::run(case))?;
            let diff = differences(&expected, &ours);
            match (&case.known_failure, diff) {
                (None, None) => report.passed += 1,
                (None, Some(diff)) => report.fail(&id, diff),
                (Some(reason), Some(diff)) => report.known.push((id, format!("{reason}\n{diff}"))),
                (Some(reason), None) => report.fail(
                    &id,
                    format!("passes now: take its known_failure off (it said: {reason})"),
                ),
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(report.print(with_bash))
}

/// Records real bash's outcome as the expectation of every case that `filter` picks.
fn bless(files: &mut [case::CaseFile], filter: &str, scratch: &Path) -> Result<usize, String> {
    let mut count = 0;
    for file in files.iter_mut() {
        let mut changed = false;
        for case in &mut file.cases {
            let id = format!("{}/{}", file.topic, case.name);
            if !id.contains(filter) {
                continue;
            }
            let mut outcome = bash::run(case, scratch)?;
            if outcome.files.as_ref() == Some(&case.files) {
                outcome.files = None;
            }
            case.expect = Some(outcome);
            changed = true;
            count += 1;
        }
        if changed {
            file.save()?;
        }
    }
    Ok(count)
}

/// The recorded outcome with the files spelled out.
fn expected_outcome(case: &Case) -> Option<Outcome> {
    let mut expected = case.expect.clone()?;
    if expected.files.is_none() {
        expected.files = Some(case.files.clone());
    }
    Some(expected)
}

/// What differs between two outcomes, for a person to read; `None` when nothing does.
fn differences(expected: &Outcome, actual: &Outcome) -> Option<String> {
    let mut out = String::new();
    let mut field = |name: &str, want: &str, got: &str| {
        if want != got {
            out.push_str(&format!(
                "  {name}: expected {}\n  {name}:      got {}\n",
                show(want),
                show(got)
            ));
        }
    };
    field("stdout", &expected.stdout, &actual.stdout);
    field("stderr", &expected.stderr, &actual.stderr);
    field("exit", &expected.exit.to_string(), &actual.exit.to_string());
    let empty = BTreeMap::new();
    let want = expected.files.as_ref().unwrap_or(&empty);
    let got = actual.files.as_ref().unwrap_or(&empty);
    for key in want.keys().chain(got.keys()).collect::<BTreeSet<_>>() {
        match (want.get(key), got.get(key)) {
            (Some(a), Some(b)) if a == b => {}
            (a, b) => out.push_str(&format!(
                "  file {key}: expected {}, got {}\n",
                a.map_or("nothing".into(), |v| show(v)),
                b.map_or("nothing".into(), |v| show(v)),
            )),
        }
    }
    (!out.is_empty()).then_some(out)
}

fn show(text: &str) -> String {
    const MAX: usize = 400;
    if text.len() <= MAX {
        format!("{text:?}")
    } else {
        let cut = (0..=MAX)
            .rev()
            .find(|&i| text.is_char_boundary(i))
            .unwrap_or(0);
        format!("{:?}... ({} bytes)", &text[..cut], text.len())
    }
}

#[derive(Default)]
struct Report {
    total: usize,
    passed: usize,
    known: Vec<(String, String)>,
    failures: Vec<(String, String)>,
}

impl Report {
    fn fail(&mut self, id: &str, why: String) {
        self.failures.push((id.to_owned(), why));
    }

    /// Prints the failures and the counts; whether the suite passed.
    fn print(&self, with_bash: bool) -> bool {
        if std::env::var("COMPAT_VERBOSE").is_ok_and(|v| v == "1") {
            for (id, why) in &self.known {
                println!("KNOWN {id}: {why}");
            }
        }
        for (id, why) in &self.failures {
            println!("FAIL {id}\n{why}");
        }
        let percent = if self.total == 0 {
            0.0
        } else {
            100.0 * self.passed as f64 / self.total as f64
        };
        println!(
            "compat: {} cases; sandtab gives real bash's outcome in {} ({percent:.1}%, goal {GOAL_PERCENT}%); \
             {} known failures (each with its reason){}",
            self.total,
            self.passed,
            self.known.len(),
            if with_bash {
                "; real bash checked against every case"
            } else {
                "; bash not run (COMPAT_BASH=0)"
            },
        );
        println!(
            "compat: {} passed, {} failed",
            self.passed,
            self.failures.len()
        );
        self.failures.is_empty()
    }
}
