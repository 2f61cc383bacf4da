//! How `diff` compares: lines split and keyed by the comparison options, the changes
//! between them, and the changes grouped into hunks.

use crate::text::diff::Compare;
use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;

/// The lines of `data`, each with its `\n` (the last may lack one).
pub(super) fn split_lines(data: &[u8]) -> Vec<&[u8]> {
    data.split_inclusive(|&b| b == b'\n').collect()
}

/// A line without its newline.
pub(super) fn content(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\n").unwrap_or(line)
}

pub(super) fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// What a line is compared by: the line as the comparison options see it.
pub(super) fn line_key<'l>(line: &'l [u8], compare: &Compare) -> Cow<'l, [u8]> {
    let mut key = Cow::Borrowed(line);
    if let Some(text) = key.strip_suffix(b"\r\n").filter(|_| compare.strip_cr) {
        key = Cow::Owned([text, b"\n"].concat());
    }
    // With the white-space options, a missing final newline is white space too.
    if compare.all_space {
        key = Cow::Owned(key.iter().copied().filter(|&b| !is_space(b)).collect());
    } else if compare.space_change {
        key = Cow::Owned(collapse_space(&key));
    } else if compare.trailing_space {
        let end = key.iter().rposition(|&b| !is_space(b)).map_or(0, |i| i + 1);
        key = Cow::Owned(key[..end].to_vec());
    }
    if compare.ignore_case {
        key = Cow::Owned(key.to_ascii_lowercase());
    }
    key
}

/// Runs of white space as one space, and none at the end.
pub(super) fn collapse_space(line: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(line.len());
    let mut in_space = false;
    for &b in line {
        if is_space(b) {
            in_space = true;
        } else {
            // Leading white space differs from none under -b (only its amount is
            // ignored), so it too stays as one space.
            if in_space {
                out.push(b' ');
            }
            in_space = false;
            out.push(b);
        }
    }
    out
}

/// A run of changed lines: `old[old]` became `new[new]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Change {
    pub(super) old: Range<usize>,
    pub(super) new: Range<usize>,
    /// Only lines the options say to ignore (`-B`, `-I`).
    pub(super) ignorable: bool,
}

/// The changes that turn `old` into `new` (see [`changed_lines`]), on the lines as the
/// comparison options see them. `horizon`: the lines of identical start and end kept in
/// the comparison (GNU keeps the context length).
pub(super) fn find_changes<'l>(
    old: &[&'l [u8]],
    new: &[&'l [u8]],
    compare: &Compare,
    horizon: usize,
) -> Vec<Change> {
    let mut ids: HashMap<Cow<'l, [u8]>, u32> = HashMap::new();
    let mut intern = |line: &'l [u8]| -> u32 {
        let next = u32::try_from(ids.len() + 1).unwrap_or(u32::MAX);
        *ids.entry(line_key(line, compare)).or_insert(next)
    };
    let (start, old_end, new_end) = buffered_lines(old, new, horizon);
    let old_ids: Vec<u32> = old[start..old_end]
        .iter()
        .map(|line| intern(line))
        .collect();
    let new_ids: Vec<u32> = new[start..new_end]
        .iter()
        .map(|line| intern(line))
        .collect();
    let (old_buffered, new_buffered) = changed_lines(&old_ids, &new_ids, compare.minimal);
    let spread = |buffered: Vec<bool>, len: usize| {
        let mut all = vec![false; start];
        all.extend(buffered);
        all.resize(len, false);
        all
    };
    let old_changed = spread(old_buffered, old.len());
    let new_changed = spread(new_buffered, new.len());
    let mut changes = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < old.len() || j < new.len() {
        let (start_i, start_j) = (i, j);
        while old_changed.get(i).copied().unwrap_or(false) {
            i += 1;
        }
        while new_changed.get(j).copied().unwrap_or(false) {
            j += 1;
        }
        if (i, j) == (start_i, start_j) {
            i += 1;
            j += 1;
            continue;
        }
        let mut change = Change {
            old: start_i..i,
            new: start_j..j,
            ignorable: false,
        };
        change.ignorable = is_ignorable(&change, old, new, compare);
        changes.push(change);
    }
    changes
}

/// The lines GNU compares (its `find_identical_ends`): the identical start and end of
/// the files (as bytes, whatever the options) are left out, but for `horizon` lines of
/// each. Returns the first line compared and the end of each file's part.
pub(super) fn buffered_lines(
    old: &[&[u8]],
    new: &[&[u8]],
    horizon: usize,
) -> (usize, usize, usize) {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let start = prefix.saturating_sub(horizon);
    let max_suffix = old.len().min(new.len()) - start;
    let suffix = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take(max_suffix)
        .take_while(|(a, b)| a == b)
        .count();
    let dropped = suffix - suffix.min(horizon);
    (start, old.len() - dropped, new.len() - dropped)
}

/// Which lines of each side are changed: a shortest edit script over the lines'
/// equivalence classes, by the `similar` crate (Myers' algorithm; Patience would find
/// longer scripts). Where several scripts are equally short, GNU's own heuristics may
/// pick another one, so a few outputs differ from GNU's while saying the same.
pub(super) fn changed_lines(old: &[u32], new: &[u32], minimal: bool) -> (Vec<bool>, Vec<bool>) {
    // Myers is exact either way; `-d` only asks GNU to skip its speed-ups.
    let _ = minimal;
    let mut old_changed = vec![false; old.len()];
    let mut new_changed = vec![false; new.len()];
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, old, new) {
        let (old_range, new_range) = (op.old_range(), op.new_range());
        if matches!(op, similar::DiffOp::Equal { .. }) {
            continue;
        }
        old_changed[old_range].fill(true);
        new_changed[new_range].fill(true);
    }
    (old_changed, new_changed)
}

pub(super) fn is_ignorable(
    change: &Change,
    old: &[&[u8]],
    new: &[&[u8]],
    compare: &Compare,
) -> bool {
    if !compare.blank_lines && compare.matching.is_empty() {
        return false;
    }
    let ignored = |line: &&[u8]| {
        let text = content(line);
        (compare.blank_lines && text.is_empty())
            || compare.matching.iter().any(|re| re.is_match(text))
    };
    old[change.old.clone()].iter().all(ignored) && new[change.new.clone()].iter().all(ignored)
}

/// The changes grouped into hunks as GNU groups them: changes closer than twice the
/// context share a hunk; hunks of ignorable changes only are dropped.
pub(super) fn group_hunks(changes: &[Change], context: usize) -> Vec<&[Change]> {
    let mut hunks = Vec::new();
    let mut start = 0;
    for i in 1..=changes.len() {
        let split = match changes.get(i) {
            None => true,
            Some(next) => {
                let threshold = if next.ignorable {
                    context
                } else {
                    context.saturating_mul(2).saturating_add(1)
                };
                next.old.start - changes[i - 1].old.end >= threshold
            }
        };
        if split {
            let hunk = &changes[start..i];
            if hunk.iter().any(|c| !c.ignorable) {
                hunks.push(hunk);
            }
            start = i;
        }
    }
    hunks
}
