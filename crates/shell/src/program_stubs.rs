//! Installed programs as files on `PATH`. `python3` is a command registered by name,
//! not a file, so `which`, `type`, `command -v` and `hash` (which look along `PATH`)
//! would not find it. The shell's view of the filesystem answers `/usr/bin/NAME` and
//! `/bin/NAME` of an installed program with a small read-only script that runs it, as
//! long as no real file of that name is there. Nothing is written to the sandbox's
//! files, so storage, snapshots and tree digests do not change.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::{Arc, RwLock};

/// The directories that show installed programs.
const BIN_DIRS: [&str; 2] = ["/usr/bin", "/bin"];

/// The names of the installed programs, shared by the guests (which add them) and the
/// shell's filesystem view (which shows them).
#[derive(Debug, Clone, Default)]
pub(crate) struct InstalledNames(Arc<RwLock<BTreeSet<String>>>);

impl InstalledNames {
    pub(crate) fn add(&self, name: &str) {
        self.0
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(name.to_owned());
    }

    pub(crate) fn contains(&self, name: &str) -> bool {
        self.0
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .contains(name)
    }

    /// The installed program `path` stands for, when it is `/usr/bin/NAME` or
    /// `/bin/NAME` of one (the caller checks that no real file is there).
    pub(crate) fn program_at(&self, path: &Path) -> Option<String> {
        let dir = path.parent()?.to_str()?;
        let name = path.file_name()?.to_str()?;
        (BIN_DIRS.contains(&dir) && self.contains(name)).then(|| name.to_owned())
    }
}

/// The script shown as `/usr/bin/NAME`: running it runs the program.
pub(crate) fn stub_script(name: &str) -> Vec<u8> {
    format!(
        "#!/bin/sh\n# {name}: a WebAssembly program installed in this sandbox\nexec {name} \"$@\"\n"
    )
    .into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_bin_directories_show_installed_names() {
        let names = InstalledNames::default();
        names.add("python3");
        assert_eq!(
            names.program_at(Path::new("/usr/bin/python3")).as_deref(),
            Some("python3")
        );
        assert_eq!(
            names.program_at(Path::new("/bin/python3")).as_deref(),
            Some("python3")
        );
        assert_eq!(names.program_at(Path::new("/usr/local/bin/python3")), None);
        assert_eq!(names.program_at(Path::new("/usr/bin/qjs")), None);
        assert_eq!(names.program_at(Path::new("/usr/bin")), None);
    }
}
