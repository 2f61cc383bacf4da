//! `file`: what a file holds, as file(1) 5.44 words it for the kinds agents meet:
//! empty files, directories, symlinks, text (ASCII, UTF-8, ISO-8859; CRLF, no line
//! terminators, very long lines), scripts by their `#!` line, JSON, HTML, XML, C, and
//! the magic numbers of gzip, zip, tar, PNG, PDF, ELF and WebAssembly; `data` otherwise.

use crate::files::ls::strftime;
use crate::options::{HELP, Long, Parser, Spec, Value};
use crate::util::{Output, read_stdin, usage_error};
use crate::{Context, Registry, Status};
use sandtab_vfs::{FileKind, SandboxFs, Timestamp, VfsPath};
use std::sync::Arc;

pub(crate) fn register(builder: Registry, fs: &Arc<SandboxFs>) -> Registry {
    builder.command("file", File { fs: fs.clone() })
}

struct File {
    fs: Arc<SandboxFs>,
}

/// How much of a file is looked at, as file(1) reads its first bytes.
const PEEK_BYTES: usize = 1 << 20;

/// A text line longer than this is "very long" (file's `MAXLINELEN`).
const LONG_LINE: usize = 300;

#[derive(Debug, Default)]
struct Options {
    brief: bool,
    dereference: bool,
    mime: Mime,
    /// `-F`: what goes between the name and the description.
    separator: Option<String>,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Mime {
    #[default]
    Off,
    /// `-i`: type and charset.
    Full,
    /// `--mime-type`.
    Type,
    /// `--mime-encoding`.
    Encoding,
}

const SPEC: Spec<Long> = Spec {
    short: "bLhiF:",
    long: &[
        ("brief", Value::No, 'b'),
        ("dereference", Value::No, 'L'),
        ("no-dereference", Value::No, 'h'),
        ("mime", Value::No, 'i'),
        ("mime-type", Value::No, MIME_TYPE),
        ("mime-encoding", Value::No, MIME_ENCODING),
        ("separator", Value::Required, 'F'),
        ("help", Value::No, HELP),
    ],
    stop_at_operand: false,
    negative_numbers: false,
};
/// Keys of file's long-only options.
const MIME_TYPE: char = 't';
const MIME_ENCODING: char = 'e';

fn parse_args(args: &[String]) -> Result<(Options, Vec<&str>), String> {
    let mut options = Options::default();
    let mut names = Vec::new();
    let mut parser = Parser::new(&SPEC, args);
    while let Some((key, value)) = parser.next_option(&mut names)? {
        match key {
            'b' => options.brief = true,
            'L' => options.dereference = true,
            'h' => options.dereference = false,
            'i' => options.mime = Mime::Full,
            MIME_TYPE => options.mime = Mime::Type,
            MIME_ENCODING => options.mime = Mime::Encoding,
            'F' => options.separator = value.map(str::to_owned),
            _ => return Err("help".into()),
        }
    }
    Ok((options, names))
}

const USAGE: &str = "Usage: file [-bchikLlNnprsSvzZ0] [--apple] [--extension] [--mime-encoding]\n            [--mime-type] [-e <testname>] [-F <separator>]  [-f <namefile>]\n            [-m <magicfiles>] [-P <parameter=value>] [--exclude-quiet]\n            <file> ...\n       file -C [-m <magicfiles>]\n       file [--help]\n";

#[async_trait::async_trait]
impl crate::Command for File {
    async fn execute(&self, ctx: Context<'_>) -> crate::Result<Status> {
        let (options, names) = match parse_args(ctx.args) {
            Ok(parsed) => parsed,
            Err(help) if help == "help" => {
                ctx.stdout.write_all(USAGE.as_bytes()).await?;
                return Ok(Status::with_code(0));
            }
            Err(message) => return usage_error(&ctx, &message, 1).await,
        };
        if names.is_empty() {
            ctx.stderr.write_all(USAGE.as_bytes()).await?;
            return Ok(Status::with_code(1));
        }
        let cwd = crate::util::Files::new(&self.fs, &ctx).cwd;
        let separator = options.separator.clone().unwrap_or_else(|| ":".into());
        // Names are padded to line the descriptions up, as file does.
        let width = names
            .iter()
            .map(|name| shown_name(name).chars().count() + separator.chars().count())
            .max()
            .unwrap_or(0);
        let mut out = Output::new(&ctx);
        for name in names {
            let description = self.describe(&ctx, &cwd, name, &options).await?;
            if options.brief {
                out.out(format!("{description}\n")).await?;
            } else {
                let label = format!("{}{separator}", shown_name(name));
                out.out(format!("{label:<width$} {description}\n")).await?;
            }
        }
        // file reports unreadable files in its output and still succeeds.
        out.finish(0).await
    }
}

/// `-` is standard input, which file names `/dev/stdin`.
fn shown_name(name: &str) -> &str {
    if name == "-" { "/dev/stdin" } else { name }
}

impl File {
    async fn describe(
        &self,
        ctx: &Context<'_>,
        cwd: &VfsPath,
        name: &str,
        options: &Options,
    ) -> crate::Result<String> {
        if name == "-" {
            let data = read_stdin(ctx).await?;
            return Ok(describe_contents(&data, options.mime));
        }
        let cannot_open = |why: &str| format!("cannot open `{name}' ({why})");
        let path = match if name.starts_with('/') {
            VfsPath::parse(name)
        } else {
            cwd.join(name)
        } {
            Ok(path) => path,
            Err(err) => return Ok(cannot_open(err.kind().description())),
        };
        let mem = self.fs.mem();
        let meta = match if options.dereference {
            mem.stat(&path)
        } else {
            mem.lstat(&path)
        } {
            Ok(meta) => meta,
            Err(err) => return Ok(cannot_open(err.kind().description())),
        };
        match meta.kind {
            FileKind::Directory => Ok(mime_or(
                options.mime,
                "inode/directory",
                "binary",
                "directory",
            )),
            FileKind::Symlink => {
                let target = mem.read_link(&path).unwrap_or_default();
                let broken = mem.stat(&path).is_err();
                let plain = if broken {
                    format!("broken symbolic link to {target}")
                } else {
                    format!("symbolic link to {target}")
                };
                Ok(mime_or(options.mime, "inode/symlink", "binary", &plain))
            }
            FileKind::File if meta.size == 0 => {
                Ok(mime_or(options.mime, "inode/x-empty", "binary", "empty"))
            }
            FileKind::File => {
                if let Err(err) = self.fs.load_for_read(&path).await {
                    return Ok(cannot_open(err.kind().description()));
                }
                let len = usize::try_from(meta.size)
                    .unwrap_or(usize::MAX)
                    .min(PEEK_BYTES);
                match mem.read_at(&path, 0, len) {
                    Ok(data) => Ok(describe_contents(&data, options.mime)),
                    Err(err) => Ok(cannot_open(err.kind().description())),
                }
            }
        }
    }
}

/// The plain description, or the MIME answer the options ask for.
fn mime_or(mime: Mime, kind: &str, charset: &str, plain: &str) -> String {
    match mime {
        Mime::Off => plain.to_owned(),
        Mime::Type => kind.to_owned(),
        Mime::Encoding => charset.to_owned(),
        Mime::Full => format!("{kind}; charset={charset}"),
    }
}

/// What bytes `data` (a file's first bytes) hold.
fn describe_contents(data: &[u8], mime: Mime) -> String {
    if data.is_empty() {
        return mime_or(mime, "application/x-empty", "binary", "empty");
    }
    if let Some((kind, plain)) = binary_kind(data) {
        return mime_or(mime, kind, "binary", &plain);
    }
    let Some(text) = TextInfo::of(data) else {
        return mime_or(mime, "application/octet-stream", "binary", "data");
    };
    let (kind, language) = text_kind(data);
    let mut plain = match &language {
        Some(Language::Script {
            name,
            executable_first,
        }) if *executable_first => {
            format!("{name} executable, {}", text.encoding_name())
        }
        Some(Language::Script { name, .. }) => {
            format!("{name}, {} executable", text.encoding_name())
        }
        Some(Language::Document(name)) => format!("{name}, {}", text.encoding_name()),
        Some(Language::Data(name)) => (*name).to_owned(),
        None => text.encoding_name().to_owned(),
    };
    if !matches!(language, Some(Language::Data(_))) {
        plain.push_str(&text.remarks());
    }
    mime_or(mime, kind, text.charset(), &plain)
}

/// Formats known by their first bytes: the MIME type and file's description.
fn binary_kind(data: &[u8]) -> Option<(&'static str, String)> {
    if data.starts_with(&[0x1f, 0x8b]) {
        return Some(("application/gzip", gzip_description(data)));
    }
    if data.starts_with(b"\0asm") && data.len() >= 8 {
        let version = u32::from_le_bytes([data[4], data[5], data[6], data[7]]);
        let mvp = if version == 1 { " (MVP)" } else { "" };
        return Some((
            "application/wasm",
            format!("WebAssembly (wasm) binary module version {version:#x}{mvp}"),
        ));
    }
    if data.starts_with(b"\x89PNG\r\n\x1a\n") {
        return Some(("image/png", png_description(data)));
    }
    if let Some(rest) = data.strip_prefix(b"%PDF-") {
        let version: String = rest
            .iter()
            .take_while(|b| b.is_ascii_digit() || **b == b'.')
            .map(|b| char::from(*b))
            .collect();
        return Some((
            "application/pdf",
            format!("PDF document, version {version}"),
        ));
    }
    if data.starts_with(b"PK\x03\x04") && data.len() >= 10 {
        let needed = u16::from_le_bytes([data[4], data[5]]);
        let method = match u16::from_le_bytes([data[8], data[9]]) {
            0 => "store".to_owned(),
            8 => "deflate".to_owned(),
            other => other.to_string(),
        };
        return Some((
            "application/zip",
            format!(
                "Zip archive data, at least v{}.{} to extract, compression method={method}",
                needed / 10,
                needed % 10
            ),
        ));
    }
    if data.starts_with(b"\x7fELF") && data.len() >= 6 {
        let class = if data[4] == 2 { "64-bit" } else { "32-bit" };
        let order = if data[5] == 2 { "MSB" } else { "LSB" };
        return Some(("application/x-executable", format!("ELF {class} {order}")));
    }
    if data.len() >= 263 + 8 && &data[257..263] == b"ustar\0" {
        return Some(("application/x-tar", "POSIX tar archive".into()));
    }
    if data.len() >= 263 + 8 && &data[257..265] == b"ustar  \0" {
        return Some(("application/x-tar", "POSIX tar archive (GNU)".into()));
    }
    None
}

/// gzip's header: the stored name, time and system, and the size in the trailer.
fn gzip_description(data: &[u8]) -> String {
    let mut text = String::from("gzip compressed data");
    if data.len() < 10 {
        return text;
    }
    let flags = data[3];
    if flags & 0x08 != 0 {
        // FEXTRA comes before the name; skip it when present.
        let mut at = 10;
        if flags & 0x04 != 0 && data.len() >= 12 {
            at += 2 + usize::from(u16::from_le_bytes([data[10], data[11]]));
        }
        if let Some(rest) = data.get(at..) {
            let end = rest.iter().position(|b| *b == 0).unwrap_or(rest.len());
            text.push_str(&format!(
                ", was \"{}\"",
                String::from_utf8_lossy(&rest[..end])
            ));
        }
    }
    let mtime = u32::from_le_bytes([data[4], data[5], data[6], data[7]]);
    if mtime != 0 {
        let when = Timestamp(u64::from(mtime) * 1_000_000_000);
        text.push_str(&format!(
            ", last modified: {}",
            strftime("%a %b %e %H:%M:%S %Y", when)
        ));
    }
    let system = match data[9] {
        0 => Some("FAT filesystem (MS-DOS, OS/2, NT)"),
        3 => Some("Unix"),
        7 => Some("Macintosh"),
        11 => Some("NTFS filesystem (NT)"),
        _ => None,
    };
    if let Some(system) = system {
        text.push_str(&format!(", from {system}"));
    }
    if let Some(trailer) = data.len().checked_sub(4).and_then(|at| data.get(at..)) {
        let size = u32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]);
        text.push_str(&format!(", original size modulo 2^32 {size}"));
    }
    text
}

/// PNG's IHDR: size, depth, colour type, interlacing.
fn png_description(data: &[u8]) -> String {
    let Some(header) = data.get(16..29) else {
        return "PNG image data".into();
    };
    let width = u32::from_be_bytes([header[0], header[1], header[2], header[3]]);
    let height = u32::from_be_bytes([header[4], header[5], header[6], header[7]]);
    let depth = header[8];
    let colour = match header[9] {
        0 => "grayscale",
        2 => "RGB",
        3 => "colormap",
        4 => "gray+alpha",
        _ => "RGBA",
    };
    let colour = if header[9] == 3 || header[9] == 0 {
        format!("{depth}-bit {colour}")
    } else {
        format!("{depth}-bit/color {colour}")
    };
    let interlace = if header[12] == 1 {
        "interlaced"
    } else {
        "non-interlaced"
    };
    format!("PNG image data, {width} x {height}, {colour}, {interlace}")
}

/// What a text file's bytes are like.
#[derive(Debug)]
struct TextInfo {
    encoding: Encoding,
    crlf: bool,
    lone_lf: bool,
    lone_cr: bool,
    terminated: bool,
    longest_line: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Encoding {
    Ascii,
    Utf8,
    Latin1,
}

impl TextInfo {
    /// `None` when `data` is not text (control bytes other than the usual whitespace).
    fn of(data: &[u8]) -> Option<Self> {
        let printable =
            |b: u8| b >= 0x20 || matches!(b, b'\n' | b'\r' | b'\t' | 0x0c | 0x08 | 0x1b | 0x07);
        if data.iter().any(|b| !printable(*b) || *b == 0x7f) {
            return None;
        }
        let encoding = if data.is_ascii() {
            Encoding::Ascii
        } else if std::str::from_utf8(data).is_ok() {
            Encoding::Utf8
        } else if data.iter().all(|b| *b < 0x80 || *b >= 0xa0) {
            Encoding::Latin1
        } else {
            return None;
        };
        let mut info = Self {
            encoding,
            crlf: false,
            lone_lf: false,
            lone_cr: false,
            terminated: false,
            longest_line: 0,
        };
        let mut line = 0usize;
        for (i, byte) in data.iter().enumerate() {
            match byte {
                b'\n' => {
                    if i > 0 && data[i - 1] == b'\r' {
                        info.crlf = true;
                    } else {
                        info.lone_lf = true;
                    }
                    info.terminated = true;
                    line = 0;
                }
                b'\r' if data.get(i + 1) != Some(&b'\n') => {
                    info.lone_cr = true;
                    info.terminated = true;
                    line = 0;
                }
                b'\r' => {}
                _ => {
                    line += 1;
                    info.longest_line = info.longest_line.max(line);
                }
            }
        }
        Some(info)
    }

    fn encoding_name(&self) -> &'static str {
        match self.encoding {
            Encoding::Ascii => "ASCII text",
            Encoding::Utf8 => "Unicode text, UTF-8 text",
            Encoding::Latin1 => "ISO-8859 text",
        }
    }

    fn charset(&self) -> &'static str {
        match self.encoding {
            Encoding::Ascii => "us-ascii",
            Encoding::Utf8 => "utf-8",
            Encoding::Latin1 => "iso-8859-1",
        }
    }

    /// file's remarks after the encoding, in its order.
    fn remarks(&self) -> String {
        let mut text = String::new();
        if self.longest_line > LONG_LINE {
            text.push_str(&format!(", with very long lines ({})", self.longest_line));
        }
        let terminators = match (self.crlf, self.lone_lf, self.lone_cr) {
            (true, false, false) => Some("CRLF"),
            (true, true, false) => Some("CRLF, LF"),
            (false, false, true) => Some("CR"),
            (true, _, true) | (false, true, true) => Some("CRLF, CR, LF"),
            _ => None,
        };
        if let Some(terminators) = terminators {
            text.push_str(&format!(", with {terminators} line terminators"));
        }
        if !self.terminated {
            text.push_str(", with no line terminators");
        }
        text
    }
}

/// What kind of text a file holds, beyond its encoding.
#[derive(Debug)]
enum Language {
    /// A `#!` script (`executable_first`: file words Node.js scripts that way round).
    Script {
        name: String,
        executable_first: bool,
    },
    /// A document type followed by the encoding (`HTML document, ASCII text`).
    Document(&'static str),
    /// A data format named on its own (`JSON text data`).
    Data(&'static str),
}

/// The MIME type and language of text `data`.
fn text_kind(data: &[u8]) -> (&'static str, Option<Language>) {
    if let Some(line) = data.strip_prefix(b"#!") {
        let line = &line[..line.iter().position(|b| *b == b'\n').unwrap_or(line.len())];
        let line = String::from_utf8_lossy(line);
        let mut words = line.split_whitespace();
        let program = words.next().unwrap_or_default();
        let mut name = program.rsplit('/').next().unwrap_or(program).to_owned();
        if name == "env" {
            name = words
                .find(|w| !w.starts_with('-'))
                .unwrap_or_default()
                .to_owned();
        }
        let base = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
        let (mime, label, executable_first) = match base {
            "sh" | "dash" => ("text/x-shellscript", "POSIX shell script".to_owned(), false),
            "bash" => (
                "text/x-shellscript",
                "Bourne-Again shell script".to_owned(),
                false,
            ),
            "zsh" => (
                "text/x-shellscript",
                "Paul Falstad's zsh script".to_owned(),
                false,
            ),
            "python" => ("text/x-script.python", "Python script".to_owned(), false),
            "node" | "nodejs" => ("application/javascript", "Node.js script".to_owned(), true),
            "perl" => ("text/x-perl", "Perl script text".to_owned(), false),
            "ruby" => ("text/x-ruby", "Ruby script".to_owned(), false),
            _ => ("text/plain", format!("a {} script", line.trim()), false),
        };
        return (
            mime,
            Some(Language::Script {
                name: label,
                executable_first,
            }),
        );
    }
    let text = String::from_utf8_lossy(data);
    let start = text.trim_start();
    let lower: String = start
        .chars()
        .take(64)
        .collect::<String>()
        .to_ascii_lowercase();
    if (start.starts_with('{') || start.starts_with('['))
        && serde_json::from_str::<serde_json::Value>(&text).is_ok()
    {
        return ("application/json", Some(Language::Data("JSON text data")));
    }
    if lower.starts_with("<?xml") {
        return ("text/xml", Some(Language::Document("XML 1.0 document")));
    }
    if ["<!doctype html", "<html", "<head", "<body"]
        .iter()
        .any(|tag| lower.starts_with(tag))
    {
        return ("text/html", Some(Language::Document("HTML document")));
    }
    if text
        .lines()
        .any(|line| line.starts_with("#include <") || line.starts_with("#include \""))
    {
        return ("text/x-c", Some(Language::Document("C source")));
    }
    if text.lines().next().is_some_and(|line| {
        line.starts_with("def ")
            || line.starts_with("import ")
            || (line.starts_with("from ") && line.contains(" import "))
    }) {
        return (
            "text/x-script.python",
            Some(Language::Script {
                name: "Python script".into(),
                executable_first: false,
            }),
        );
    }
    ("text/plain", None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_remarks_follow_file() {
        assert_eq!(describe_contents(b"plain\n", Mime::Off), "ASCII text");
        assert_eq!(
            describe_contents("h\u{e9}\n".as_bytes(), Mime::Off),
            "Unicode text, UTF-8 text"
        );
        assert_eq!(
            describe_contents(b"\xe9t\xe9\n", Mime::Off),
            "ISO-8859 text"
        );
        assert_eq!(
            describe_contents(b"a\r\nb\r\n", Mime::Off),
            "ASCII text, with CRLF line terminators"
        );
        assert_eq!(
            describe_contents(b"noeol", Mime::Off),
            "ASCII text, with no line terminators"
        );
        let long = vec![b'a'; 3000];
        assert_eq!(
            describe_contents(&long, Mime::Off),
            "ASCII text, with very long lines (3000), with no line terminators"
        );
        assert_eq!(describe_contents(b"\x00\xff\x10", Mime::Off), "data");
        assert_eq!(
            describe_contents(b"plain\n", Mime::Full),
            "text/plain; charset=us-ascii"
        );
    }

    #[test]
    fn scripts_and_formats_are_named() {
        assert_eq!(
            describe_contents(b"#!/bin/sh\necho\n", Mime::Off),
            "POSIX shell script, ASCII text executable"
        );
        assert_eq!(
            describe_contents(b"#!/usr/bin/env python3\nprint(1)\n", Mime::Off),
            "Python script, ASCII text executable"
        );
        assert_eq!(
            describe_contents(b"#!/usr/bin/env node\n1\n", Mime::Off),
            "Node.js script executable, ASCII text"
        );
        assert_eq!(
            describe_contents(b"{\"a\": 1}\n", Mime::Off),
            "JSON text data"
        );
        assert_eq!(
            describe_contents(b"<html><body>x</body></html>\n", Mime::Off),
            "HTML document, ASCII text"
        );
        assert_eq!(
            describe_contents(b"\0asm\x01\0\0\0", Mime::Off),
            "WebAssembly (wasm) binary module version 0x1 (MVP)"
        );
        assert_eq!(
            describe_contents(b"%PDF-1.4\n", Mime::Off),
            "PDF document, version 1.4"
        );
    }
}
