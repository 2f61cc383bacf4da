//! What sandtab adds to CPython: `sitecustomize` (the packages `pip` installed, on
//! the path), `_sandtab_net` (HTTP through the gate, see `http_device`) and `ssl`
//! (HTTPS the same way: the browser makes the TLS connection). They
//! are mounted in memory at [`DIR`] at every open, writable so that CPython keeps
//! its compiled caches beside them (the first import of a source file costs about
//! 80 ms in the sandbox, a cached one 4 ms), and never stored.

use sandtab_vfs::{Mount, MountSource, VfsPath};

/// Where the support modules are mounted (outside `/usr`, which CPython's own
/// embedded files hide).
pub const DIR: &str = "/opt/sandtab/python";

/// Where `pip` installs packages, and `sitecustomize` finds them.
pub use sandtab_commands::SITE_PACKAGES;

// `sitecustomize` last: a sandbox whose quota leaves some out gets no start-up hook
// rather than one whose modules are missing.
const FILES: [(&str, &str); 4] = [
    ("_sandtab_net.py", include_str!("../python/_sandtab_net.py")),
    // Ctrl-C in the terminal as KeyboardInterrupt.
    (
        "_sandtab_terminal.py",
        include_str!("../python/_sandtab_terminal.py"),
    ),
    // CPython was built without OpenSSL: HTTPS is the browser's, through the gate.
    ("ssl.py", include_str!("../python/ssl.py")),
    (
        "sitecustomize.py",
        include_str!("../python/sitecustomize.py"),
    ),
];

/// The mount that gives every sandbox the support modules.
pub fn mount() -> Mount {
    Mount {
        path: VfsPath::parse(DIR).unwrap_or_else(|_| VfsPath::root()),
        source: MountSource::Scratch(
            FILES
                .iter()
                .map(|(name, text)| ((*name).to_owned(), text.as_bytes().to_vec()))
                .collect(),
        ),
    }
}

/// Whether the command `name` (`python3`, `/usr/bin/python3.12`) runs CPython.
pub(crate) fn is_python(name: &str) -> bool {
    let base = name.rsplit('/').next().unwrap_or(name);
    base == "python" || base.starts_with("python3")
}

/// `PYTHONPATH` for a CPython run: the caller's entries, then [`DIR`] (so a
/// `sitecustomize` of the user's own wins).
pub(crate) fn python_path(given: Option<&str>) -> String {
    match given {
        Some(given) if !given.is_empty() => format!("{given}:{DIR}"),
        _ => DIR.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_commands_are_recognised_by_their_base_name() {
        for name in ["python", "python3", "python3.12", "/usr/bin/python3"] {
            assert!(is_python(name), "{name}");
        }
        for name in ["qjs", "pythonista", "py", "/opt/python/x"] {
            assert!(!is_python(name), "{name}");
        }
        assert_eq!(python_path(None), DIR);
        assert_eq!(python_path(Some("/w")), format!("/w:{DIR}"));
    }
}
