//! `df`: the sandbox's space as one filesystem, `sandtab` on `/`: its size is the
//! quota's byte limit, its inodes the entry limit, in GNU df's columns (`-h`, `-H`,
//! `-k`, `-P`, `-i`, `-T`).

use crate::options::{Keyed, Long, Parser, Spec, Value};
use crate::util::{Files, Output, strerror, usage_error};
use crate::{Context, Registry, Status};
use sandtab_vfs::SandboxFs;
use std::sync::Arc;

pub(crate) fn register(builder: Registry, fs: &Arc<SandboxFs>) -> Registry {
    builder.command("df", Df { fs: fs.clone() })
}

struct Df {
    fs: Arc<SandboxFs>,
}

/// What an unlimited quota shows as the size (1 PiB): df needs a number.
const UNLIMITED_SHOWN: u64 = 1 << 50;

#[derive(Debug, Default)]
struct Options {
    human: Option<u64>,
    posix: bool,
    inodes: bool,
    types: bool,
}

const SPEC: Spec<Long> = Spec {
    short: "hHkPiTla",
    long: &[
        ("human-readable", Value::No, 'h'),
        ("si", Value::No, 'H'),
        ("portability", Value::No, 'P'),
        ("inodes", Value::No, 'i'),
        ("print-type", Value::No, 'T'),
        ("local", Value::No, 'l'),
        ("all", Value::No, 'a'),
        // The grand total is the one file system's own line.
        ("total", Value::No, TOTAL),
    ],
    stop_at_operand: false,
    negative_numbers: false,
};
const TOTAL: char = 't';

fn parse_args(args: &[String]) -> Result<(Options, Vec<&str>), String> {
    let mut options = Options::default();
    let mut operands = Vec::new();
    let mut parser = Parser::new(&SPEC, args);
    while let Some(arg) = parser.next_keyed()? {
        match arg {
            Keyed::Operand(name) => operands.push(name),
            Keyed::Option('h', _) => options.human = Some(1024),
            Keyed::Option('H', _) => options.human = Some(1000),
            Keyed::Option('k', _) => options.human = None,
            Keyed::Option('P', _) => options.posix = true,
            Keyed::Option('i', _) => options.inodes = true,
            Keyed::Option('T', _) => options.types = true,
            Keyed::Option(..) => {}
        }
    }
    Ok((options, operands))
}

#[async_trait::async_trait]
impl crate::Command for Df {
    async fn execute(&self, ctx: Context<'_>) -> crate::Result<Status> {
        let (options, operands) = match parse_args(ctx.args) {
            Ok(parsed) => parsed,
            Err(message) => return usage_error(&ctx, &message, 1).await,
        };
        let files = Files::new(&self.fs, &ctx);
        let mut out = Output::new(&ctx);
        let mut status = 0;
        let mut rows = 0;
        for name in &operands {
            if let Err(err) = files.stat(name) {
                out.err(format!("df: {name}: {}\n", strerror(&err))).await?;
                status = 1;
            } else {
                rows += 1;
            }
        }
        // Every path is on the one filesystem, listed once (as GNU lists a mount once
        // per operand, but the sandbox has no second device to tell apart).
        if operands.is_empty() || rows > 0 {
            let table = self.table(&options, rows.max(1));
            out.out(table).await?;
        }
        out.finish(status).await
    }
}

impl Df {
    fn table(&self, options: &Options, rows: usize) -> String {
        let mem = self.fs.mem();
        let quota = mem.quota();
        let usage = mem.usage();
        let mut header: Vec<String> = vec!["Filesystem".into()];
        if options.types {
            header.push("Type".into());
        }
        let (total, used) = if options.inodes {
            header.extend(["Inodes", "IUsed", "IFree", "IUse%"].map(String::from));
            let total = quota.max_entries.min(UNLIMITED_SHOWN);
            (total, usage.files + usage.dirs)
        } else {
            let size_header = match (options.human, options.posix) {
                (Some(_), _) => "Size",
                (None, true) => "1024-blocks",
                (None, false) => "1K-blocks",
            };
            header.push(size_header.into());
            header.push("Used".into());
            header.push(
                if options.human.is_some() {
                    "Avail"
                } else {
                    "Available"
                }
                .into(),
            );
            header.push(if options.posix { "Capacity" } else { "Use%" }.into());
            (quota.max_bytes.min(UNLIMITED_SHOWN), usage.bytes)
        };
        header.push("Mounted on".into());
        let free = total.saturating_sub(used);
        let show = |value: u64| match (options.inodes, options.human) {
            (true, _) => value.to_string(),
            (false, Some(base)) => human(value, base),
            (false, None) => value.div_ceil(1024).to_string(),
        };
        let percent = if total == 0 {
            "-".to_owned()
        } else {
            // GNU rounds the share up.
            format!("{}%", (used * 100).div_ceil(total.max(1)))
        };
        let mut row = vec!["sandtab".to_owned()];
        if options.types {
            row.push("sandtab".into());
        }
        row.extend([show(total), show(used), show(free), percent, "/".into()]);
        let rows: Vec<Vec<String>> = std::iter::once(header)
            .chain(std::iter::repeat_n(row, rows))
            .collect();
        render(&rows)
    }
}

/// Columns as GNU df lays them out: the first and last left-aligned, the rest
/// right-aligned, each as wide as its widest cell (the first at least 14).
fn render(rows: &[Vec<String>]) -> String {
    let columns = rows.first().map_or(0, Vec::len);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            let widest = rows.iter().map(|r| r[c].len()).max().unwrap_or(0);
            if c == 0 { widest.max(14) } else { widest }
        })
        .collect();
    let mut text = String::new();
    for row in rows {
        let mut cells = Vec::new();
        for (c, cell) in row.iter().enumerate() {
            let width = widths[c];
            cells.push(if c == 0 {
                format!("{cell:<width$}")
            } else if c == columns - 1 {
                cell.clone()
            } else {
                format!("{cell:>width$}")
            });
        }
        text.push_str(&cells.join(" "));
        text.push('\n');
    }
    text
}

/// `252G`, `1.5M`: one decimal below 10, rounded up, as GNU's `-h`.
fn human(bytes: u64, base: u64) -> String {
    let units = ["", "K", "M", "G", "T", "P", "E"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= base as f64 && unit < units.len() - 1 {
        value /= base as f64;
        unit += 1;
    }
    if unit == 0 {
        return bytes.to_string();
    }
    // Powers of 1000 (`--si`) write kilo as `k`.
    let suffix = if base == 1000 && unit == 1 {
        "k"
    } else {
        units[unit]
    };
    if value < 10.0 {
        format!("{:.1}{suffix}", (value * 10.0).ceil() / 10.0)
    } else {
        format!("{}{suffix}", value.ceil() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_sizes_round_up_like_gnu() {
        assert_eq!(human(512, 1024), "512");
        assert_eq!(human(1536, 1024), "1.5K");
        assert_eq!(human(270_000_000_000, 1024), "252G");
        assert_eq!(human(1 << 50, 1024), "1.0P");
        assert_eq!(human(1500, 1000), "1.5k");
        assert_eq!(human(2_500_000, 1000), "2.5M");
    }

    #[test]
    fn columns_line_up() {
        let rows = vec![
            vec!["Filesystem".to_owned(), "Size".into(), "Mounted on".into()],
            vec!["sandtab".to_owned(), "12K".into(), "/".into()],
        ];
        assert_eq!(
            render(&rows),
            "Filesystem     Size Mounted on\nsandtab         12K /\n"
        );
    }
}
