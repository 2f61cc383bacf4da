//! Path normalisation. Every path the filesystem sees is made absolute and lexically
//! normalised first: `.` is dropped and `..` pops a component but never climbs above `/`,
//! so no spelling of a path can name anything outside the sandbox.

use crate::error::{ErrorKind, VfsError, VfsResult};
use std::fmt;

/// Longest single name, as on Linux (NAME_MAX).
pub const MAX_NAME_LEN: usize = 255;
/// Longest whole path, as on Linux (PATH_MAX).
pub const MAX_PATH_LEN: usize = 4096;

/// An absolute, normalised path: a list of names below `/`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct VfsPath {
    components: Vec<String>,
}

impl VfsPath {
    /// The root directory.
    pub fn root() -> Self {
        Self::default()
    }

    /// Parses `path`, resolving a relative one against `/`.
    pub fn parse(path: &str) -> VfsResult<Self> {
        Self::root().join(path)
    }

    /// Resolves `path` against `self` (as a shell resolves against its working directory).
    /// An absolute `path` ignores `self`.
    pub fn join(&self, path: &str) -> VfsResult<Self> {
        if path.contains('\0') {
            return Err(VfsError::new(
                ErrorKind::InvalidInput,
                path.replace('\0', "\\0"),
            ));
        }
        if path.len() > MAX_PATH_LEN {
            return Err(VfsError::new(
                ErrorKind::NameTooLong,
                truncate_for_message(path),
            ));
        }
        let mut components = if path.starts_with('/') {
            Vec::new()
        } else {
            self.components.clone()
        };
        for part in path.split('/') {
            match part {
                "" | "." => {}
                ".." => {
                    components.pop();
                }
                name if name.len() > MAX_NAME_LEN => {
                    return Err(VfsError::new(
                        ErrorKind::NameTooLong,
                        truncate_for_message(path),
                    ));
                }
                name => components.push(name.to_owned()),
            }
        }
        Ok(Self { components })
    }

    /// Whether this is `/`.
    pub fn is_root(&self) -> bool {
        self.components.is_empty()
    }

    /// The names below `/`, outermost first.
    pub fn components(&self) -> &[String] {
        &self.components
    }

    /// The last name, or `None` for `/`.
    pub fn file_name(&self) -> Option<&str> {
        self.components.last().map(String::as_str)
    }

    /// The containing directory, or `None` for `/`.
    pub fn parent(&self) -> Option<Self> {
        let (_, rest) = self.components.split_last()?;
        Some(Self {
            components: rest.to_vec(),
        })
    }

    /// Whether `self` is `other` or lies below it.
    pub fn starts_with(&self, other: &VfsPath) -> bool {
        self.components.starts_with(&other.components)
    }

    /// `self` with one more name appended (the name is taken as is: no `/`, `.` or `..`).
    pub(crate) fn child(&self, name: &str) -> Self {
        let mut components = self.components.clone();
        components.push(name.to_owned());
        Self { components }
    }
}

impl fmt::Display for VfsPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.components.is_empty() {
            return f.write_str("/");
        }
        for name in &self.components {
            write!(f, "/{name}")?;
        }
        Ok(())
    }
}

fn truncate_for_message(path: &str) -> String {
    match path.char_indices().nth(64) {
        Some((cut, _)) => format!("{}...", &path[..cut]),
        None => path.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(path: &str) -> String {
        VfsPath::parse(path).unwrap().to_string()
    }

    #[test]
    fn dot_dot_never_leaves_root() {
        assert_eq!(norm("/../../etc/passwd"), "/etc/passwd");
        assert_eq!(norm("a/../../.."), "/");
        assert_eq!(norm("/a/b/../../../c"), "/c");
    }

    #[test]
    fn redundant_separators_and_dots_are_dropped() {
        assert_eq!(norm("//a///b/./c/"), "/a/b/c");
        assert_eq!(norm("."), "/");
        assert_eq!(norm(""), "/");
    }

    #[test]
    fn relative_paths_resolve_against_the_base() {
        let cwd = VfsPath::parse("/home/agent").unwrap();
        assert_eq!(
            cwd.join("src/../README").unwrap().to_string(),
            "/home/agent/README"
        );
        assert_eq!(cwd.join("/tmp").unwrap().to_string(), "/tmp");
        assert_eq!(cwd.join("../..").unwrap().to_string(), "/");
    }

    #[test]
    fn nul_bytes_and_overlong_names_are_rejected() {
        assert_eq!(
            VfsPath::parse("/a\0b").unwrap_err().kind(),
            ErrorKind::InvalidInput
        );
        let long_name = "x".repeat(MAX_NAME_LEN + 1);
        assert_eq!(
            VfsPath::parse(&long_name).unwrap_err().kind(),
            ErrorKind::NameTooLong
        );
        let long_path = "/ab".repeat(MAX_PATH_LEN);
        assert_eq!(
            VfsPath::parse(&long_path).unwrap_err().kind(),
            ErrorKind::NameTooLong
        );
    }

    #[test]
    fn parent_and_file_name() {
        let p = VfsPath::parse("/a/b").unwrap();
        assert_eq!(p.file_name(), Some("b"));
        assert_eq!(p.parent().unwrap().to_string(), "/a");
        assert_eq!(VfsPath::root().parent(), None);
        assert!(p.starts_with(&VfsPath::parse("/a").unwrap()));
        assert!(
            !VfsPath::parse("/ab")
                .unwrap()
                .starts_with(&VfsPath::parse("/a").unwrap())
        );
    }
}
