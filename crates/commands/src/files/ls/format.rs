//! How `ls` prints: modes, sizes, times, quoted names and columns.

use crate::calendar;
use crate::files::ls::{Entry, Format, Listing, Quoting, TimeStyle, indicator_for};
use crate::files::stat::{
    OWNER, OWNER_ID, apparent_size, blocks_512, epoch_secs, full_time, link_count, mode_string,
};
use sandtab_vfs::{FileKind, Timestamp};
use std::fmt::Write;

/// Sizes like `4.0K`, `16K`, `1.5M`: rounded up as GNU's are.
pub(super) fn human_size(bytes: u64, base: u64) -> String {
    const UNITS: [char; 8] = ['K', 'M', 'G', 'T', 'P', 'E', 'Z', 'Y'];
    let (bytes, base) = (u128::from(bytes), u128::from(base));
    if bytes < base {
        return bytes.to_string();
    }
    let mut power = base;
    let mut unit = 0;
    while bytes >= power * base && unit + 1 < UNITS.len() {
        power *= base;
        unit += 1;
    }
    let letter = |unit: usize| {
        let letter = UNITS[unit];
        if base == 1000 && letter == 'K' {
            'k'
        } else {
            letter
        }
    };
    let tenths = (bytes * 10).div_ceil(power);
    if tenths < 100 {
        return format!("{}.{}{}", tenths / 10, tenths % 10, letter(unit));
    }
    let whole = bytes.div_ceil(power);
    if whole >= base && unit + 1 < UNITS.len() {
        return format!("1.0{}", letter(unit + 1));
    }
    format!("{whole}{}", letter(unit))
}

/// A name as printed, in the quoting style asked for.
pub(super) fn quoted(name: &str, quoting: Quoting) -> String {
    match quoting {
        Quoting::Literal => name.to_owned(),
        Quoting::C => format!("\"{}\"", c_escape(name, true)),
        Quoting::Escape => c_escape(name, false),
    }
}

pub(super) fn c_escape(name: &str, in_quotes: bool) -> String {
    let mut text = String::new();
    for c in name.chars() {
        match c {
            '\\' => text.push_str("\\\\"),
            '"' if in_quotes => text.push_str("\\\""),
            ' ' if !in_quotes => text.push_str("\\ "),
            '\n' => text.push_str("\\n"),
            '\t' => text.push_str("\\t"),
            '\r' => text.push_str("\\r"),
            '\x07' => text.push_str("\\a"),
            '\x08' => text.push_str("\\b"),
            '\x0b' => text.push_str("\\v"),
            '\x0c' => text.push_str("\\f"),
            c if (c as u32) < 0x20 || c == '\x7f' => {
                let _ = write!(text, "\\{:03o}", c as u32);
            }
            c => text.push(c),
        }
    }
    text
}

/// Formats a time with a strftime format, GNU's directives.
pub(crate) fn strftime(format: &str, time: Timestamp) -> String {
    calendar::format(format, time.into())
}

/// Half a Gregorian year: older (or future) times show the year instead of the time.
pub(super) const SIX_MONTHS_SECS: i64 = 31_556_952 / 2;

pub(super) fn format_time(style: &TimeStyle, time: Timestamp, now: Timestamp) -> String {
    let secs = epoch_secs(time);
    let now = epoch_secs(now);
    let recent = now - SIX_MONTHS_SECS < secs && secs <= now;
    match style {
        TimeStyle::FullIso => full_time(time),
        TimeStyle::LongIso => strftime("%Y-%m-%d %H:%M", time),
        TimeStyle::Iso if recent => strftime("%m-%d %H:%M", time),
        TimeStyle::Iso => strftime("%Y-%m-%d ", time),
        TimeStyle::Custom { recent: format, .. } if recent => strftime(format, time),
        TimeStyle::Custom { old, .. } => strftime(old, time),
        TimeStyle::Locale if recent => strftime("%b %e %H:%M", time),
        TimeStyle::Locale => strftime("%b %e  %Y", time),
    }
}

/// The columns of one listing, computed over all its entries.
pub(super) struct Row {
    pub(super) inode: String,
    pub(super) blocks: String,
    /// The long format's fields before the name (mode, links, owner, group, size, date).
    pub(super) long: Vec<String>,
    pub(super) name: String,
    /// ` -> target` and the target's indicator, in the long format.
    pub(super) link: String,
    pub(super) indicator: Option<char>,
}

impl Listing<'_> {
    pub(super) fn blocks_text(&self, blocks_512: u64) -> String {
        match self.options.human {
            Some(base) => human_size(blocks_512 * 512, base),
            None => (blocks_512 / 2).to_string(),
        }
    }

    pub(super) fn row(&self, entry: &Entry) -> Row {
        let options = self.options;
        let long = options.format == Format::Long;
        let mut row = Row {
            inode: if options.inode {
                entry.meta.ino.to_string()
            } else {
                String::new()
            },
            blocks: if options.blocks {
                self.blocks_text(blocks_512(&entry.meta))
            } else {
                String::new()
            },
            long: Vec::new(),
            name: quoted(&entry.name, options.quoting),
            link: String::new(),
            indicator: None,
        };
        if long {
            row.long = self.long_fields(entry);
            if let Some(target) = &entry.target {
                row.link = format!(" -> {}", quoted(target, options.quoting));
                if let Some(mark) = entry
                    .target_meta
                    .as_ref()
                    .and_then(|meta| indicator_for(options.indicator, meta))
                {
                    row.link.push(mark);
                }
            }
        }
        row.indicator = match (long, entry.meta.kind) {
            (true, FileKind::Symlink) => None,
            _ => indicator_for(options.indicator, &entry.meta),
        };
        row
    }

    pub(super) fn long_fields(&self, entry: &Entry) -> Vec<String> {
        let options = self.options;
        let meta = &entry.meta;
        let mut fields = vec![
            mode_string(meta),
            link_count(self.fs, &entry.path, meta).to_string(),
        ];
        let owner = if options.numeric_ids {
            OWNER_ID.to_string()
        } else {
            OWNER.to_owned()
        };
        if options.show_owner {
            fields.push(owner.clone());
        }
        if options.show_group {
            fields.push(owner);
        }
        let size = apparent_size(meta);
        fields.push(match options.human {
            Some(base) => human_size(size, base),
            None => size.to_string(),
        });
        let style = options.time_style.clone().unwrap_or(TimeStyle::Locale);
        fields.push(format_time(&style, self.time_of(meta), self.fs.now()));
        fields
    }

    /// Prints entries in the format asked for.
    pub(super) fn print(&mut self, entries: &[Entry]) {
        if entries.is_empty() {
            return;
        }
        let rows: Vec<Row> = entries.iter().map(|entry| self.row(entry)).collect();
        let inode_width = rows.iter().map(|r| r.inode.len()).max().unwrap_or(0);
        let blocks_width = rows.iter().map(|r| r.blocks.len()).max().unwrap_or(0);
        match self.options.format {
            Format::Long => self.print_long(&rows, inode_width, blocks_width),
            Format::OnePerLine => {
                let end = if self.options.zero { '\0' } else { '\n' };
                for row in &rows {
                    let cell = self.cell(row, inode_width, blocks_width);
                    self.out.push_str(&cell);
                    self.out.push(end);
                }
            }
            Format::Commas => self.print_commas(&rows),
            Format::Columns | Format::Across => {
                let cells: Vec<String> = rows
                    .iter()
                    .map(|row| self.cell(row, inode_width, blocks_width))
                    .collect();
                self.print_columns(&cells, self.options.format == Format::Columns);
            }
        }
    }

    /// A name with its inode, blocks and indicator, as the short formats print it.
    pub(super) fn cell(&self, row: &Row, inode_width: usize, blocks_width: usize) -> String {
        let mut cell = String::new();
        if self.options.inode {
            let _ = write!(cell, "{:>inode_width$} ", row.inode);
        }
        if self.options.blocks {
            let _ = write!(cell, "{:>blocks_width$} ", row.blocks);
        }
        cell.push_str(&row.name);
        if let Some(mark) = row.indicator {
            cell.push(mark);
        }
        cell
    }

    pub(super) fn print_long(&mut self, rows: &[Row], inode_width: usize, blocks_width: usize) {
        let columns = rows.first().map_or(0, |row| row.long.len());
        let widths: Vec<usize> = (0..columns)
            .map(|i| {
                rows.iter()
                    .map(|row| row.long.get(i).map_or(0, |f| f.chars().count()))
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        // Owner and group are left-aligned; the mode, counts and sizes right-aligned.
        let owner_columns =
            usize::from(self.options.show_owner) + usize::from(self.options.show_group);
        let end = if self.options.zero { '\0' } else { '\n' };
        for row in rows {
            let mut line = String::new();
            if self.options.inode {
                let _ = write!(line, "{:>inode_width$} ", row.inode);
            }
            if self.options.blocks {
                let _ = write!(line, "{:>blocks_width$} ", row.blocks);
            }
            for (i, field) in row.long.iter().enumerate() {
                let width = widths[i];
                let left = i >= 2 && i < 2 + owner_columns;
                let last = i + 1 == row.long.len();
                if left || last {
                    let _ = write!(line, "{field:<width$} ");
                } else {
                    let _ = write!(line, "{field:>width$} ");
                }
            }
            line.push_str(&row.name);
            if let Some(mark) = row.indicator {
                line.push(mark);
            }
            line.push_str(&row.link);
            self.out.push_str(&line);
            self.out.push(end);
        }
    }

    pub(super) fn line_width(&self) -> usize {
        self.options.width.unwrap_or(80)
    }

    pub(super) fn print_commas(&mut self, rows: &[Row]) {
        let width = self.line_width();
        let mut position = 0;
        let cells: Vec<String> = rows.iter().map(|row| self.cell(row, 0, 0)).collect();
        for (i, cell) in cells.iter().enumerate() {
            let length = cell.chars().count();
            if i > 0 {
                if width == 0 || position + length + 2 < width {
                    self.out.push_str(", ");
                    position += 2;
                } else {
                    self.out.push_str(",\n");
                    position = 0;
                }
            }
            self.out.push_str(cell);
            position += length;
        }
        self.out.push('\n');
    }

    /// `-C` (down the columns) and `-x` (across): GNU's column fitting.
    pub(super) fn print_columns(&mut self, cells: &[String], by_columns: bool) {
        let lengths: Vec<usize> = cells.iter().map(|c| c.chars().count()).collect();
        let widths = fit_columns(&lengths, self.line_width(), by_columns);
        let columns = widths.len().max(1);
        let count = cells.len();
        let rows = count.div_ceil(columns);
        let mut lines: Vec<String> = Vec::new();
        for row in 0..rows {
            let mut line = String::new();
            let mut position = 0;
            for column in 0..columns {
                let index = if by_columns {
                    column * rows + row
                } else {
                    row * columns + column
                };
                let Some(cell) = cells.get(index) else {
                    break;
                };
                line.push_str(cell);
                let next = if by_columns { index + rows } else { index + 1 };
                if column + 1 == columns || next >= count {
                    break;
                }
                let width = widths.get(column).copied().unwrap_or(0);
                self.indent(&mut line, position + lengths[index], position + width);
                position += width;
            }
            lines.push(line);
        }
        for line in lines {
            self.out.push_str(&line);
            self.out.push('\n');
        }
    }

    /// Pads from column `from` to `to`, with tabs where they fit (as GNU does).
    pub(super) fn indent(&self, line: &mut String, mut from: usize, to: usize) {
        let tab = self.options.tab_size;
        while from < to {
            if tab != 0 && to / tab > (from + 1) / tab {
                line.push('\t');
                from += tab - from % tab;
            } else {
                line.push(' ');
                from += 1;
            }
        }
    }
}

/// The widths of the most columns that fit in `line_width`, as GNU's
/// `calculate_columns` finds them: every column is at least 3 wide, and all but the
/// last have 2 spaces after their longest name.
pub(super) fn fit_columns(lengths: &[usize], line_width: usize, by_columns: bool) -> Vec<usize> {
    const MIN_COLUMN_WIDTH: usize = 3;
    let count = lengths.len();
    let max_columns = if line_width == 0 {
        count
    } else {
        (line_width / MIN_COLUMN_WIDTH).max(1).min(count)
    };
    for columns in (2..=max_columns).rev() {
        let mut widths = vec![MIN_COLUMN_WIDTH; columns];
        let rows = count.div_ceil(columns);
        for (i, length) in lengths.iter().enumerate() {
            let column = if by_columns { i / rows } else { i % columns };
            let Some(width) = widths.get_mut(column) else {
                continue;
            };
            let padded = length + if column + 1 == columns { 0 } else { 2 };
            *width = (*width).max(padded);
        }
        if line_width == 0 || widths.iter().sum::<usize>() < line_width {
            return widths;
        }
    }
    vec![lengths.iter().copied().max().unwrap_or(0)]
}
