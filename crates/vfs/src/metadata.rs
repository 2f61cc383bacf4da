//! What the filesystem reports about its entries.

use crate::clock::Timestamp;

/// What an inode is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A regular file.
    File,
    /// A directory.
    Directory,
    /// A symbolic link.
    Symlink,
}

/// What `stat` reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Metadata {
    /// File, directory or symlink.
    pub kind: FileKind,
    /// Bytes in a file, bytes of the target in a symlink, 0 for a directory.
    pub size: u64,
    /// Permission bits (for example `0o644`).
    pub mode: u32,
    /// Inode number: stable for the life of the entry.
    pub ino: u64,
    /// How many names refer to this inode (1 unless hard-linked).
    pub links: u32,
    /// Last change of the contents (mtime).
    pub modified: Timestamp,
    /// Last read of the contents (atime).
    pub accessed: Timestamp,
    /// Last change of the contents or of the metadata (ctime).
    pub changed: Timestamp,
    /// Creation time.
    pub created: Timestamp,
}

/// One name in a directory listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    /// The name within its directory.
    pub name: String,
    /// The entry's metadata (not following a symlink).
    pub metadata: Metadata,
}

/// How much the tree holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usage {
    /// Bytes in regular files and symlink targets.
    pub bytes: u64,
    /// Regular files and symlinks.
    pub files: u64,
    /// Directories, the root included.
    pub dirs: u64,
}
