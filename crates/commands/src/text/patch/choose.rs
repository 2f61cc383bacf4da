//! Which file a patch is for, as GNU chooses it, and the questions it asks when it
//! cannot tell (answered with their defaults, as without a terminal).

use crate::text::patch::{
    FilePatch, Run, Verdict, best_name, is_dev_null, is_epoch, leading_text_block, plural,
    strip_name,
};
use sandtab_vfs::FileKind;

impl<'r, 'c, 'a> Run<'r, 'c, 'a> {
    pub(super) fn exists(&self, name: &str) -> bool {
        self.files()
            .stat(name)
            .is_ok_and(|m| m.kind == FileKind::File)
    }

    /// The file a patch is for, chosen as GNU chooses; `None` if there is none.
    pub(super) fn choose_file(&self, patch: &FilePatch) -> Option<(String, String)> {
        if let Some(target) = &self.opts.target {
            return Some((target.clone(), target.clone()));
        }
        let strip = |name: &Option<String>| {
            name.as_ref()
                .filter(|n| n.as_str() != "/dev/null")
                .and_then(|n| strip_name(n, self.opts.strip))
        };
        if let Some(git) = &patch.git {
            let old = strip(&Some(git.old.clone()));
            let new = strip(&Some(git.new.clone()));
            let (old, new) = match (old, new) {
                (Some(old), Some(new)) => (old, new),
                (Some(name), None) | (None, Some(name)) => (name.clone(), name),
                (None, None) => return None,
            };
            let (input, output) = if self.opts.reverse {
                (new, old)
            } else {
                (old, new)
            };
            let (creates, deletes) = self.directed_null_sides(patch);
            return (creates || deletes || self.exists(&input)).then_some((input, output));
        }
        let mut candidates: Vec<String> = [strip(&patch.old_name), strip(&patch.new_name)]
            .into_iter()
            .flatten()
            .collect();
        if candidates.is_empty() {
            candidates.extend(strip(&patch.index_name));
        }
        let existing: Vec<String> = candidates
            .iter()
            .filter(|n| self.exists(n))
            .cloned()
            .collect();
        if let Some(best) = best_name(&existing) {
            return Some((best.clone(), best.clone()));
        }
        // No such file: fine for a patch that creates one, and a deletion is told
        // that its file is gone.
        let (_, deletes) = self.directed_null_sides(patch);
        let name = if self.is_creation(patch) {
            strip(&patch.new_name).or_else(|| strip(&patch.old_name))?
        } else if deletes {
            strip(&patch.old_name)?
        } else {
            return None;
        };
        Some((name.clone(), name))
    }

    /// Whether the patch, in the current direction, creates and deletes its file.
    pub(super) fn directed_null_sides(&self, patch: &FilePatch) -> (bool, bool) {
        let (old_null, new_null) = self.null_sides(patch);
        if self.opts.reverse {
            (new_null, old_null)
        } else {
            (old_null, new_null)
        }
    }

    /// Whether the patch (in the current direction) makes a new file.
    pub(super) fn is_creation(&self, patch: &FilePatch) -> bool {
        let (old_null, new_null) = self.null_sides(patch);
        let old_empty = !patch.hunks.is_empty()
            && patch
                .hunks
                .iter()
                .all(|h| h.old_len == 0 && h.old_first <= 1);
        if self.opts.reverse {
            new_null
        } else {
            old_null || old_empty
        }
    }

    /// Whether the old and new sides are `/dev/null` (git: new or deleted file).
    pub(super) fn null_sides(&self, patch: &FilePatch) -> (bool, bool) {
        let git_new = patch.git.as_ref().is_some_and(|g| g.new_file);
        let git_deleted = patch.git.as_ref().is_some_and(|g| g.deleted);
        // `diff -N` dates an absent file at the epoch.
        (
            is_dev_null(&patch.old_name) || git_new || is_epoch(&patch.old_rest),
            is_dev_null(&patch.new_name) || git_deleted || is_epoch(&patch.new_rest),
        )
    }

    pub(super) async fn cant_find(&mut self, patch: &FilePatch) -> crate::Result<i32> {
        let hint = if self.opts.strip.is_some() {
            "used the wrong"
        } else {
            "should have used the"
        };
        let mut text = format!(
            "can't find file to patch at input line {}\nPerhaps you {hint} -p or --strip option?\n",
            patch.first_hunk_line
        );
        text.push_str(&leading_text_block(&patch.leading_text));
        if self.opts.force || self.opts.batch {
            text.push_str("No file to patch.  Skipping patch.\n");
        } else {
            text.push_str("File to patch: \nSkip this patch? [y] \nSkipping patch.\n");
        }
        let count = patch.hunks.len();
        text.push_str(&format!(
            "{count} out of {count} hunk{} ignored\n",
            plural(count)
        ));
        self.say(text).await?;
        Ok(1)
    }

    /// What to do with a patch that looks reversed.
    pub(super) async fn ask_reverse(&mut self, message: &str) -> crate::Result<Verdict> {
        let reverse = self.opts.reverse;
        let (verdict, tail) = if self.opts.forward {
            (Verdict::Skip, "  Skipping patch.\n")
        } else if self.opts.force {
            (Verdict::ApplyAnyway, "  Applying it anyway.\n")
        } else if self.opts.batch {
            (
                Verdict::Reverse,
                if reverse {
                    "  Ignoring -R.\n"
                } else {
                    "  Assuming -R.\n"
                },
            )
        } else if reverse {
            (
                Verdict::Skip,
                "  Ignore -R? [n] \nApply anyway? [n] \nSkipping patch.\n",
            )
        } else {
            (
                Verdict::Skip,
                "  Assume -R? [n] \nApply anyway? [n] \nSkipping patch.\n",
            )
        };
        self.say(format!("{message}{tail}")).await?;
        Ok(verdict)
    }
}
