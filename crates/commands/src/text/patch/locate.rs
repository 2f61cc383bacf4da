//! Where a hunk applies in a file: at the place its diff says or nearby, with fuzz.

use crate::text::patch::Hunk;

/// Whether a line of the file matches a line of a hunk.
pub(super) fn lines_match(file: &[u8], hunk: &[u8], loose: bool) -> bool {
    if !loose {
        return file == hunk;
    }
    let words = |line: &[u8]| -> Vec<Vec<u8>> {
        line.split(|b| b.is_ascii_whitespace())
            .filter(|w| !w.is_empty())
            .map(<[u8]>::to_vec)
            .collect()
    };
    words(file) == words(hunk)
}

/// Where hunks land in one file. Each hunk is looked for where its diff puts it,
/// moved by how far the hunks before it were found from theirs, then ever further
/// after and before that place, never before the end of the last hunk applied.
pub(super) struct Locator<'f> {
    pub(super) file: &'f [&'f [u8]],
    /// How far the hunks found so far were from where their diff put them.
    pub(super) in_offset: isize,
    /// The last line (1-based) that applied hunks used: later hunks go after it.
    pub(super) last_frozen: usize,
    pub(super) loose: bool,
}

/// Which of a hunk's lines must match, with `fuzz` context lines let go at each end.
/// Context a diff cut short marks an end of the file: a hunk with less context before
/// its changes than after them starts the file (and one with less after ends it),
/// unless the fuzz lets go of the difference.
#[derive(Debug, Clone, Copy)]
pub(super) struct Fit {
    pub(super) skip_before: usize,
    pub(super) skip_after: usize,
    pub(super) at_start: bool,
    pub(super) at_end: bool,
}

impl Fit {
    pub(super) fn new(before: usize, after: usize, fuzz: usize) -> Self {
        let full = before.max(after);
        Self {
            skip_before: (fuzz + before).saturating_sub(full),
            skip_after: (fuzz + after).saturating_sub(full),
            at_start: fuzz + before < full,
            at_end: fuzz + after < full,
        }
    }
}

impl Locator<'_> {
    /// Whether the hunk's `pattern`, but for the lines `fit` lets go, is at line `base`
    /// (1-based).
    pub(super) fn matches_at(&self, pattern: &[&[u8]], base: isize, fit: Fit) -> bool {
        let end = pattern.len().saturating_sub(fit.skip_after);
        (fit.skip_before..end).all(|i| {
            let Ok(at) = usize::try_from(base - 1 + i as isize) else {
                return false;
            };
            self.file
                .get(at)
                .is_some_and(|line| lines_match(line, pattern[i], self.loose))
        })
    }

    /// The line (1-based) where `hunk` applies with `fuzz`, remembering how far it was
    /// from where its diff said.
    pub(super) fn locate(&mut self, hunk: &Hunk, fuzz: usize) -> Option<usize> {
        let pattern = hunk.pattern();
        let expected = hunk.old_first as isize + self.in_offset;
        if pattern.is_empty() {
            return usize::try_from(expected.max(1)).ok();
        }
        let fit = Fit::new(hunk.prefix_context(), hunk.suffix_context(), fuzz);
        let lines = self.file.len() as isize;
        let needed = (pattern.len() - fit.skip_after) as isize;
        // The first line the hunk may start at: after what earlier hunks used, though
        // context let go of may reach back over it.
        let lowest = (self.last_frozen as isize + 1 - fit.skip_before as isize).max(1);
        let highest = lines - needed + 1;
        if fit.at_start {
            let fits =
                self.last_frozen == 0 && needed <= lines && self.matches_at(&pattern, 1, fit);
            return fits.then(|| self.found(expected, 1));
        }
        if fit.at_end {
            let fits = highest >= lowest && self.matches_at(&pattern, highest, fit);
            return fits.then(|| self.found(expected, highest));
        }
        let mut distance = 0;
        loop {
            let later = expected + distance;
            let earlier = expected - distance;
            let later_possible = later <= highest && later >= lowest;
            let earlier_possible = distance > 0 && earlier >= lowest && earlier <= highest;
            if later_possible && self.matches_at(&pattern, later, fit) {
                return Some(self.found(expected, later));
            }
            if earlier_possible && self.matches_at(&pattern, earlier, fit) {
                return Some(self.found(expected, earlier));
            }
            if later > highest && earlier < lowest {
                return None;
            }
            distance += 1;
        }
    }

    /// Records that the hunk expected at `expected` was found at `at`.
    pub(super) fn found(&mut self, expected: isize, at: isize) -> usize {
        self.in_offset += at - expected;
        usize::try_from(at).unwrap_or(1)
    }
}
