//! The patch file: its hunks, file headers (git's too) and names, read from unified,
//! context and normal diffs.

use crate::text::patch::{
    git_extended_line, normal_command, parse_context_range, parse_git_line, parse_unified_header,
    split_header_name,
};

/// One line of a hunk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum HunkLine {
    Context(Vec<u8>),
    Delete(Vec<u8>),
    Insert(Vec<u8>),
}

impl HunkLine {
    pub(super) fn text(&self) -> &[u8] {
        match self {
            HunkLine::Context(t) | HunkLine::Delete(t) | HunkLine::Insert(t) => t,
        }
    }

    pub(super) fn text_mut(&mut self) -> &mut Vec<u8> {
        match self {
            HunkLine::Context(t) | HunkLine::Delete(t) | HunkLine::Insert(t) => t,
        }
    }

    pub(super) fn in_old(&self) -> bool {
        !matches!(self, HunkLine::Insert(_))
    }

    pub(super) fn in_new(&self) -> bool {
        !matches!(self, HunkLine::Delete(_))
    }

    pub(super) fn swapped(&self) -> HunkLine {
        match self {
            HunkLine::Context(t) => HunkLine::Context(t.clone()),
            HunkLine::Delete(t) => HunkLine::Insert(t.clone()),
            HunkLine::Insert(t) => HunkLine::Delete(t.clone()),
        }
    }
}

/// A hunk. `old_first` is GNU's first line: for an empty range, the line after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Hunk {
    pub(super) old_first: usize,
    pub(super) old_len: usize,
    pub(super) new_first: usize,
    pub(super) new_len: usize,
    /// What followed the `@@ ... @@` (a function name).
    pub(super) suffix: String,
    pub(super) lines: Vec<HunkLine>,
}

impl Hunk {
    /// The hunk undoing this one. In each run of changes the deletions come first, as
    /// GNU keeps them.
    pub(super) fn swapped(&self) -> Hunk {
        let mut lines = Vec::with_capacity(self.lines.len());
        let mut inserts = Vec::new();
        for line in self.lines.iter().map(HunkLine::swapped) {
            match line {
                HunkLine::Insert(_) => inserts.push(line),
                HunkLine::Delete(_) => lines.push(line),
                HunkLine::Context(_) => {
                    lines.append(&mut inserts);
                    lines.push(line);
                }
            }
        }
        lines.append(&mut inserts);
        Hunk {
            old_first: self.new_first,
            old_len: self.new_len,
            new_first: self.old_first,
            new_len: self.old_len,
            suffix: self.suffix.clone(),
            lines,
        }
    }

    /// The lines the file must have: context and deleted lines.
    pub(super) fn pattern(&self) -> Vec<&[u8]> {
        self.lines
            .iter()
            .filter(|l| l.in_old())
            .map(HunkLine::text)
            .collect()
    }

    pub(super) fn prefix_context(&self) -> usize {
        self.lines
            .iter()
            .take_while(|l| matches!(l, HunkLine::Context(_)))
            .count()
    }

    pub(super) fn suffix_context(&self) -> usize {
        self.lines
            .iter()
            .rev()
            .take_while(|l| matches!(l, HunkLine::Context(_)))
            .count()
    }
}

/// Git's extended header lines.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct GitHeader {
    pub(super) old: String,
    pub(super) new: String,
    pub(super) new_file: bool,
    pub(super) deleted: bool,
    pub(super) rename: bool,
    pub(super) copy: bool,
    pub(super) old_mode: Option<u32>,
    pub(super) new_mode: Option<u32>,
    pub(super) binary: bool,
}

/// The part of a patch for one file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct FilePatch {
    /// Names from the `---`/`+++` (or `***`/`---`) lines, times cut off.
    pub(super) old_name: Option<String>,
    pub(super) new_name: Option<String>,
    /// What followed each name on its header line (a tab and a time), for the `.rej`.
    pub(super) old_rest: String,
    pub(super) new_rest: String,
    pub(super) index_name: Option<String>,
    pub(super) git: Option<GitHeader>,
    pub(super) hunks: Vec<Hunk>,
    /// The patch's lines before the first hunk, for "can't find file" messages.
    pub(super) leading_text: Vec<String>,
    /// The patch's line number (1-based) of the first hunk.
    pub(super) first_hunk_line: usize,
    /// A malformed hunk: GNU stops with this message once it reaches it.
    pub(super) error: Option<String>,
    /// How GNU names the format (`--verbose`).
    pub(super) kind: &'static str,
}

/// Splits `data` into lines, each with its `\n`.
pub(super) fn lines_of(data: &[u8]) -> Vec<&[u8]> {
    data.split_inclusive(|&b| b == b'\n').collect()
}

pub(super) fn text(line: &[u8]) -> String {
    String::from_utf8_lossy(line.strip_suffix(b"\n").unwrap_or(line)).into_owned()
}

/// Reads a patch into its per-file parts.
pub(super) struct Parser<'p> {
    pub(super) lines: Vec<&'p [u8]>,
    pub(super) at: usize,
}

impl<'p> Parser<'p> {
    pub(super) fn new(data: &'p [u8]) -> Self {
        Self {
            lines: lines_of(data),
            at: 0,
        }
    }

    pub(super) fn line(&self, at: usize) -> Option<&'p [u8]> {
        self.lines.get(at).copied()
    }

    pub(super) fn starts(&self, at: usize, prefix: &[u8]) -> bool {
        self.line(at).is_some_and(|l| l.starts_with(prefix))
    }

    pub(super) fn parse(mut self) -> Vec<FilePatch> {
        let mut files = Vec::new();
        let mut section_start = 0;
        let mut git: Option<GitHeader> = None;
        let mut index_name = None;
        while let Some(line) = self.line(self.at) {
            if let Some(header) = line.strip_prefix(b"diff --git ") {
                if let Some(done) = git.take() {
                    files.push(self.git_only(done, section_start, self.at));
                    section_start = self.at;
                }
                git = Some(parse_git_line(&text(header)));
                self.at += 1;
                continue;
            }
            if git
                .as_mut()
                .is_some_and(|header| git_extended_line(header, &text(line)))
            {
                self.at += 1;
                continue;
            }
            if let Some(name) = line.strip_prefix(b"Index: ") {
                index_name = Some(text(name).trim().to_owned());
            }
            let unified = line.starts_with(b"--- ")
                && self.starts(self.at + 1, b"+++ ")
                && self.starts(self.at + 2, b"@@ -");
            let context = line.starts_with(b"*** ")
                && self.starts(self.at + 1, b"--- ")
                && self.starts(self.at + 2, b"***************");
            if unified || context {
                let mut file = self.headers(section_start, git.take(), index_name.take());
                self.at += 2;
                file.first_hunk_line = self.at + 1;
                if unified {
                    file.kind = "unified";
                    self.unified_hunks(&mut file);
                } else {
                    file.kind = "new-style context";
                    self.context_hunks(&mut file);
                }
                files.push(file);
                section_start = self.at;
                continue;
            }
            if git.is_none() && normal_command(line).is_some() && self.normal_body_follows() {
                let mut file = FilePatch {
                    leading_text: self.leading(section_start, self.at),
                    first_hunk_line: self.at + 1,
                    kind: "normal",
                    ..FilePatch::default()
                };
                self.normal_hunks(&mut file);
                files.push(file);
                section_start = self.at;
                continue;
            }
            self.at += 1;
        }
        if let Some(done) = git.take() {
            files.push(self.git_only(done, section_start, self.at));
        }
        files
    }

    pub(super) fn leading(&self, from: usize, to: usize) -> Vec<String> {
        self.lines[from..to.min(self.lines.len())]
            .iter()
            .map(|l| text(l))
            .collect()
    }

    /// A git patch with no hunks (a mode change, a rename, an empty new file).
    pub(super) fn git_only(&self, git: GitHeader, from: usize, to: usize) -> FilePatch {
        FilePatch {
            leading_text: self.leading(from, to),
            first_hunk_line: to + 1,
            git: Some(git),
            kind: "unified",
            ..FilePatch::default()
        }
    }

    /// The file names on the two header lines at `self.at`.
    pub(super) fn headers(
        &self,
        from: usize,
        git: Option<GitHeader>,
        index_name: Option<String>,
    ) -> FilePatch {
        let header = |at: usize| {
            let line = self.line(at).unwrap_or_default();
            split_header_name(&text(line.get(4..).unwrap_or_default()))
        };
        let (old_name, old_rest) = header(self.at);
        let (new_name, new_rest) = header(self.at + 1);
        FilePatch {
            old_name: Some(old_name),
            new_name: Some(new_name),
            old_rest,
            new_rest,
            index_name,
            git,
            leading_text: self.leading(from, self.at + 2),
            ..FilePatch::default()
        }
    }

    pub(super) fn unified_hunks(&mut self, file: &mut FilePatch) {
        while let Some(line) = self.line(self.at) {
            let Some((old, new, suffix)) = parse_unified_header(&text(line)) else {
                break;
            };
            self.at += 1;
            match self.unified_body(old, new, suffix) {
                Ok(hunk) => file.hunks.push(hunk),
                Err(error) => {
                    file.error = Some(error);
                    return;
                }
            }
        }
    }

    /// GNU's message for the line it choked on, which keeps that line's newline.
    pub(super) fn malformed(&self) -> String {
        match self.line(self.at) {
            Some(line) => {
                let line = String::from_utf8_lossy(line);
                format!("malformed patch at line {}: {line}", self.at + 1)
            }
            None => {
                // At the end GNU counts the complete lines and shows an empty one.
                let complete = self.lines.iter().filter(|l| l.ends_with(b"\n")).count();
                format!("malformed patch at line {complete}:  \n")
            }
        }
    }

    pub(super) fn unified_body(
        &mut self,
        (old_first, old_len): (usize, usize),
        (new_first, new_len): (usize, usize),
        suffix: String,
    ) -> Result<Hunk, String> {
        let mut hunk = Hunk {
            old_first: if old_len == 0 {
                old_first + 1
            } else {
                old_first
            },
            old_len,
            new_first: if new_len == 0 {
                new_first + 1
            } else {
                new_first
            },
            new_len,
            suffix,
            lines: Vec::new(),
        };
        let (mut old_left, mut new_left) = (old_len, new_len);
        // Whether the input ran out (then GNU makes up blank context lines).
        let mut ran_out = false;
        while old_left > 0 || new_left > 0 {
            let line = match self.line(self.at) {
                Some(line) => line,
                // A few missing lines were blank ones an editor chopped off, GNU assumes.
                None if new_left <= 3 => {
                    ran_out = true;
                    b" \n"
                }
                None => return Err("unexpected end of file in patch".into()),
            };
            let body = line.get(1..).unwrap_or_default().to_vec();
            let entry = match line.first() {
                Some(b' ') if old_left > 0 && new_left > 0 => HunkLine::Context(body),
                // A line starting with a newline or a tab lost its space.
                Some(b'\n' | b'\t') if old_left > 0 && new_left > 0 => {
                    HunkLine::Context(line.to_vec())
                }
                Some(b'-') if old_left > 0 => HunkLine::Delete(body),
                Some(b'+') if new_left > 0 => HunkLine::Insert(body),
                Some(b'\\') if !ran_out => {
                    strip_last_newline(&mut hunk.lines);
                    self.at += 1;
                    continue;
                }
                _ => return Err(self.malformed()),
            };
            if entry.in_old() {
                old_left -= 1;
            }
            if entry.in_new() {
                new_left -= 1;
            }
            hunk.lines.push(entry);
            if !ran_out {
                self.at += 1;
            }
        }
        if self.starts(self.at, b"\\") {
            strip_last_newline(&mut hunk.lines);
            self.at += 1;
        }
        if hunk.lines.iter().all(|l| matches!(l, HunkLine::Context(_))) {
            // A hunk that changes nothing is malformed; GNU names the last line read.
            self.at = if ran_out {
                self.lines.len()
            } else {
                self.at - 1
            };
            return Err(self.malformed());
        }
        Ok(hunk)
    }

    pub(super) fn context_hunks(&mut self, file: &mut FilePatch) {
        while let Some(line) = self.line(self.at) {
            if !line.starts_with(b"***************") {
                break;
            }
            let suffix = text(&line[15..]);
            self.at += 1;
            match self.context_body(suffix) {
                Ok(hunk) => file.hunks.push(hunk),
                Err(error) => {
                    file.error = Some(error);
                    return;
                }
            }
        }
    }

    /// One side of a context hunk: its lines with their two-character marks.
    pub(super) fn context_side(&mut self, stop: &dyn Fn(&[u8]) -> bool) -> Vec<(u8, Vec<u8>)> {
        let mut side: Vec<(u8, Vec<u8>)> = Vec::new();
        while let Some(line) = self.line(self.at) {
            if stop(line) {
                break;
            }
            if line.starts_with(b"\\") {
                if let Some((_, last)) = side.last_mut() {
                    strip_newline(last);
                }
            } else if line.len() >= 2 && b" !+-".contains(&line[0]) && line[1] == b' ' {
                side.push((line[0], line[2..].to_vec()));
            } else if line == b"\n" {
                side.push((b' ', b"\n".to_vec()));
            } else {
                break;
            }
            self.at += 1;
        }
        side
    }

    pub(super) fn context_body(&mut self, suffix: String) -> Result<Hunk, String> {
        let old_range = self
            .line(self.at)
            .and_then(|l| parse_context_range(&text(l), "*** ", " ****"))
            .ok_or_else(|| self.malformed())?;
        self.at += 1;
        let old = self.context_side(&|l| l.starts_with(b"--- "));
        let new_range = self
            .line(self.at)
            .and_then(|l| parse_context_range(&text(l), "--- ", " ----"))
            .ok_or_else(|| self.malformed())?;
        self.at += 1;
        let new =
            self.context_side(&|l| l.starts_with(b"***************") || l.starts_with(b"*** "));
        let lines = merge_context_sides(old, new);
        let hunk = Hunk {
            old_first: old_range.0,
            old_len: old_range.1,
            new_first: new_range.0,
            new_len: new_range.1,
            suffix,
            lines,
        };
        let counts = (
            hunk.lines.iter().filter(|l| l.in_old()).count(),
            hunk.lines.iter().filter(|l| l.in_new()).count(),
        );
        if counts != (hunk.old_len, hunk.new_len) {
            return Err(self.malformed());
        }
        Ok(hunk)
    }

    /// Whether the line after a normal diff's command is one of its `<`/`>` lines.
    pub(super) fn normal_body_follows(&self) -> bool {
        self.starts(self.at + 1, b"< ") || self.starts(self.at + 1, b"> ")
    }

    pub(super) fn normal_hunks(&mut self, file: &mut FilePatch) {
        while let Some(command) = self.line(self.at).and_then(normal_command) {
            self.at += 1;
            let mut hunk = command;
            let mut deleted = 0;
            while deleted < hunk.old_len && self.starts(self.at, b"< ") {
                let line = self.line(self.at).unwrap_or_default();
                hunk.lines.push(HunkLine::Delete(line[2..].to_vec()));
                deleted += 1;
                self.at += 1;
                self.no_newline_marker(&mut hunk.lines);
            }
            if hunk.old_len > 0 && hunk.new_len > 0 {
                if !self.starts(self.at, b"---") {
                    file.error = Some(self.malformed());
                    return;
                }
                self.at += 1;
            }
            let mut inserted = 0;
            while inserted < hunk.new_len && self.starts(self.at, b"> ") {
                let line = self.line(self.at).unwrap_or_default();
                hunk.lines.push(HunkLine::Insert(line[2..].to_vec()));
                inserted += 1;
                self.at += 1;
                self.no_newline_marker(&mut hunk.lines);
            }
            if (deleted, inserted) != (hunk.old_len, hunk.new_len) {
                file.error = Some(self.malformed());
                return;
            }
            file.hunks.push(hunk);
        }
    }

    pub(super) fn no_newline_marker(&mut self, lines: &mut [HunkLine]) {
        if self.starts(self.at, b"\\") {
            strip_last_newline(lines);
            self.at += 1;
        }
    }
}

pub(super) fn strip_newline(line: &mut Vec<u8>) {
    if line.last() == Some(&b'\n') {
        line.pop();
    }
}

pub(super) fn strip_last_newline(lines: &mut [HunkLine]) {
    if let Some(last) = lines.last_mut() {
        strip_newline(last.text_mut());
    }
}

/// A context hunk's two sides as one list of lines. A side given without lines (only
/// insertions or only deletions) has the other side's context.
pub(super) fn merge_context_sides(
    old: Vec<(u8, Vec<u8>)>,
    new: Vec<(u8, Vec<u8>)>,
) -> Vec<HunkLine> {
    let context_of = |side: &[(u8, Vec<u8>)]| -> Vec<(u8, Vec<u8>)> {
        side.iter()
            .filter(|(mark, _)| *mark == b' ')
            .cloned()
            .collect()
    };
    let (old, new) = match (old.is_empty(), new.is_empty()) {
        (true, false) => (context_of(&new), new),
        (false, true) => {
            let context = context_of(&old);
            (old, context)
        }
        _ => (old, new),
    };
    let (mut i, mut j) = (0, 0);
    let mut lines = Vec::new();
    while i < old.len() || j < new.len() {
        match (old.get(i), new.get(j)) {
            (Some((b'-' | b'!', t)), _) => {
                lines.push(HunkLine::Delete(t.clone()));
                i += 1;
            }
            (_, Some((b'+' | b'!', t))) => {
                lines.push(HunkLine::Insert(t.clone()));
                j += 1;
            }
            (Some((_, t)), _) => {
                lines.push(HunkLine::Context(t.clone()));
                i += 1;
                j += 1;
            }
            (None, Some((_, t))) => {
                lines.push(HunkLine::Context(t.clone()));
                j += 1;
            }
            (None, None) => break,
        }
    }
    lines
}
