//! `touch`: creates missing files (unless `-c`) and sets times: now, `-d DATE`,
//! `-t STAMP` or `-r FILE`'s; `-a`/`-m` for one of the two.

use super::args::{self, Spec, Value};
use super::date::{self, Instant};
use super::{HELP, Run, VERSION, quote_always};
use crate::{Context, Status};
use sandtab_vfs::{SandboxFs, Timestamp, VfsPath};
use std::sync::Arc;

const TIME: char = '\u{e040}';

const SPEC: Spec = Spec {
    short: "acd:fhmr:t:",
    long: &[
        ("no-create", Value::No, 'c'),
        ("date", Value::Required, 'd'),
        ("no-dereference", Value::No, 'h'),
        ("reference", Value::Required, 'r'),
        ("time", Value::Required, TIME),
        ("help", Value::No, HELP),
        ("version", Value::No, VERSION),
    ],
    stop_at_operand: false,
    negative_numbers: false,
};

/// Where the new times come from.
enum Source {
    Now,
    Date(String),
    Stamp(String),
    Reference(String),
}

struct Options {
    access: bool,
    modify: bool,
    no_create: bool,
    no_dereference: bool,
    source: Source,
}

pub(super) async fn run(fs: &Arc<SandboxFs>, ctx: &Context<'_>) -> crate::Result<Status> {
    let mut run = Run::new(fs, ctx);
    let parsed = match args::parse(ctx.args, &SPEC) {
        Ok(parsed) => parsed,
        Err(message) => return run.usage(&message).await,
    };
    let mut options = Options {
        access: false,
        modify: false,
        no_create: false,
        no_dereference: false,
        source: Source::Now,
    };
    for (key, value) in parsed.options {
        let value = value.unwrap_or_default();
        match key {
            'a' => options.access = true,
            'm' => options.modify = true,
            'c' => options.no_create = true,
            'h' => options.no_dereference = true,
            'd' => options.source = Source::Date(value),
            't' => options.source = Source::Stamp(value),
            'r' => options.source = Source::Reference(value),
            TIME => match value.as_str() {
                "access" | "atime" | "use" => options.access = true,
                "modify" | "mtime" => options.modify = true,
                _ => {
                    let message = format!(
                        "invalid argument {} for '--time'\nValid arguments are:\n  - 'atime', 'access', 'use'\n  - 'mtime', 'modify'",
                        quote_always(&value)
                    );
                    return run.usage(&message).await;
                }
            },
            HELP => return super::help(ctx, "[OPTION]... FILE...").await,
            VERSION => return super::version(ctx).await,
            _ => {}
        }
    }
    if !options.access && !options.modify {
        options.access = true;
        options.modify = true;
    }
    if parsed.operands.is_empty() {
        return run.usage("missing file operand").await;
    }
    let Some(times) = given_times(&mut run, &options.source).await? else {
        return run.finish().await;
    };
    for operand in &parsed.operands {
        touch_one(&mut run, &options, times, operand).await?;
    }
    run.finish().await
}

/// The access and modification times that `-d`, `-t` or `-r` give (`Some(None)` for
/// now); `None` after reporting an unusable date or reference.
async fn given_times(
    run: &mut Run<'_, '_>,
    source: &Source,
) -> crate::Result<Option<Option<(Timestamp, Timestamp)>>> {
    let now = Instant::from_nanos(run.fs().mem().now().0);
    let (parsed, text) = match source {
        Source::Now => return Ok(Some(None)),
        Source::Date(text) => (date::parse_date(text, now), text),
        Source::Stamp(text) => (date::parse_stamp(text, now), text),
        Source::Reference(file) => {
            return match run.stat(file) {
                Ok(meta) => Ok(Some(Some((meta.accessed, meta.modified)))),
                Err(err) => {
                    run.fail_at("failed to get attributes of", file, &err)
                        .await?;
                    Ok(None)
                }
            };
        }
    };
    match parsed.and_then(Instant::to_nanos) {
        Some(nanos) => Ok(Some(Some((Timestamp(nanos), Timestamp(nanos))))),
        None => {
            run.fail(format!("invalid date format {}", quote_always(text)))
                .await?;
            Ok(None)
        }
    }
}

async fn touch_one(
    run: &mut Run<'_, '_>,
    options: &Options,
    times: Option<(Timestamp, Timestamp)>,
    arg: &str,
) -> crate::Result<()> {
    let path = match run.path(arg) {
        Ok(path) => path,
        Err(err) => return run.fail_at("cannot touch", arg, &err).await,
    };
    let mem = run.fs().mem();
    let exists = if options.no_dereference {
        mem.lstat(&path).is_ok()
    } else {
        mem.stat(&path).is_ok()
    };
    if !exists {
        if options.no_create || options.no_dereference {
            return Ok(());
        }
        if let Err(err) = mem.write(&path, &[]) {
            return run.fail_at("cannot touch", arg, &err).await;
        }
    }
    let (accessed, modified) = times.unwrap_or_else(|| {
        let now = now_at(run, &path);
        (now, now)
    });
    let accessed = options.access.then_some(accessed);
    let modified = options.modify.then_some(modified);
    if let Err(err) = mem.set_times(&path, accessed, modified) {
        run.fail_at("setting times of", arg, &err).await?;
    }
    Ok(())
}

/// The filesystem clock's time now, read as the change time an empty times update
/// gives `path` (so it is the clock the files' times come from).
fn now_at(run: &Run<'_, '_>, path: &VfsPath) -> Timestamp {
    let mem = run.fs().mem();
    mem.set_times(path, None, None)
        .and_then(|()| mem.stat(path))
        .map_or_else(|_| mem.now(), |meta| meta.changed)
}
