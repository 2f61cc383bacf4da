//! Writing what `patch` made: the patched file, its backup, the output file, and
//! removing files (and then empty directories) a patch deletes.

use crate::text::patch::{FilePatch, Run};
use crate::util::strerror;

impl<'r, 'c, 'a> Run<'r, 'c, 'a> {
    /// Writes `data` to `name`, creating its directory; failures are reported.
    pub(super) async fn write_file(&mut self, name: &str, data: &[u8]) -> bool {
        let files = self.files();
        let Ok(path) = files.path(name) else {
            return false;
        };
        if let Some(parent) = path.parent() {
            let _ = self.fs.mem().create_dir_all(&parent);
        }
        match files.write(name, data).await {
            Ok(()) => true,
            Err(err) => {
                let message = format!(
                    "patch: **** Can't create file {name} : {}\n",
                    strerror(&err)
                );
                let _ = self.out.err(message).await;
                false
            }
        }
    }

    /// Puts the patched contents in place: the output file, a backup, a removed file
    /// for a deletion, a rename or a mode change from git's headers.
    pub(super) async fn store(
        &mut self,
        patch: &FilePatch,
        input_name: &str,
        output_name: &str,
        original: Option<&[u8]>,
        output: &[u8],
        backup: bool,
    ) -> crate::Result<()> {
        if let Some(target) = self.opts.output.clone() {
            return self.store_output(&target, output).await;
        }
        let input_mode = self.files().stat(input_name).ok().map(|meta| meta.mode);
        if let (true, Some(data)) = (backup, original) {
            self.back_up(input_name, data, input_mode).await;
        }
        let (_, deletes) = self.directed_null_sides(patch);
        if output.is_empty() && (deletes || self.opts.remove_empty) {
            self.remove(input_name);
            if output_name != input_name {
                self.remove(output_name);
            }
            return Ok(());
        }
        let renamed = patch.git.as_ref().is_some_and(|g| g.rename) && input_name != output_name;
        if !self.write_file(output_name, output).await {
            return Ok(());
        }
        if renamed {
            self.remove(input_name);
        }
        // Git's mode for the result; otherwise a renamed or copied file keeps its mode.
        let git_mode = patch.git.as_ref().and_then(|g| {
            if self.opts.reverse {
                g.old_mode
            } else {
                g.new_mode
            }
        });
        let mode = git_mode.or(input_mode.filter(|_| output_name != input_name));
        if let (Some(mode), Ok(path)) = (mode, self.files().path(output_name)) {
            let _ = self.fs.mem().set_mode(&path, mode & 0o7777);
        }
        Ok(())
    }

    /// `-o FILE` (`-` for stdout): the result goes there instead.
    pub(super) async fn store_output(&mut self, target: &str, output: &[u8]) -> crate::Result<()> {
        if target == "-" {
            return self.out.out(output).await;
        }
        let fresh = self.files().lstat(target).is_err();
        let written = self.write_file(target, output).await;
        // GNU makes a new output file private to its owner.
        if let (true, true, Ok(path)) = (written, fresh, self.files().path(target)) {
            let _ = self.fs.mem().set_mode(&path, 0o600);
        }
        Ok(())
    }

    /// Saves the original as `FILE.orig` (or as `-z` and `-B` say), with its mode.
    pub(super) async fn back_up(&mut self, input_name: &str, data: &[u8], mode: Option<u32>) {
        // A prefix alone replaces the suffix.
        let name = match (&self.opts.prefix, &self.opts.suffix) {
            (Some(prefix), suffix) => {
                format!("{prefix}{input_name}{}", suffix.as_deref().unwrap_or(""))
            }
            (None, suffix) => format!("{input_name}{}", suffix.as_deref().unwrap_or(".orig")),
        };
        let written = self.write_file(&name, data).await;
        if let (true, Some(mode), Ok(path)) = (written, mode, self.files().path(&name)) {
            let _ = self.fs.mem().set_mode(&path, mode);
        }
    }

    /// Removes a file and the directories it leaves empty (as GNU does for deletions).
    pub(super) fn remove(&self, name: &str) {
        let Ok(path) = self.files().path(name) else {
            return;
        };
        let mem = self.fs.mem();
        if mem.remove_file(&path).is_err() {
            return;
        }
        let mut dir = path.parent();
        while let Some(current) = dir {
            if current == self.base || !current.starts_with(&self.base) {
                break;
            }
            if !mem
                .read_dir(&current)
                .is_ok_and(|entries| entries.is_empty())
                || mem.remove_dir(&current).is_err()
            {
                break;
            }
            dir = current.parent();
        }
    }
}
