//! A change to a file's contents, described before it is made.

use std::sync::Arc;

/// A change to a file's contents, known before it is made so quotas can be checked first.
#[derive(Debug)]
pub(super) enum WriteOp<'a> {
    Replace(&'a [u8]),
    /// Replace with a buffer the file takes over (no copy).
    ReplaceOwned(Vec<u8>),
    Append(&'a [u8]),
    At(u64, &'a [u8]),
    Truncate(u64),
}

impl WriteOp<'_> {
    /// Whether the old contents do not matter.
    pub(super) fn replaces(&self) -> bool {
        matches!(self, WriteOp::Replace(_) | WriteOp::ReplaceOwned(_))
    }

    /// The bytes it writes (a truncation writes none).
    pub(super) fn written(&self) -> u64 {
        match *self {
            WriteOp::Replace(data) | WriteOp::Append(data) | WriteOp::At(_, data) => {
                data.len() as u64
            }
            WriteOp::ReplaceOwned(ref data) => data.len() as u64,
            WriteOp::Truncate(_) => 0,
        }
    }

    pub(super) fn new_len(&self, old: u64) -> u64 {
        match *self {
            WriteOp::Replace(data) => data.len() as u64,
            WriteOp::ReplaceOwned(ref data) => data.len() as u64,
            WriteOp::Append(data) => old.saturating_add(data.len() as u64),
            WriteOp::At(offset, data) => old.max(offset.saturating_add(data.len() as u64)),
            WriteOp::Truncate(len) => len,
        }
    }

    /// Makes the change. Contents shared with a flush in progress are copied first,
    /// unless they are replaced.
    pub(super) fn apply(self, shared: &mut Arc<Vec<u8>>) {
        match self {
            WriteOp::Replace(data) => match Arc::get_mut(shared) {
                Some(contents) => {
                    contents.clear();
                    contents.extend_from_slice(data);
                }
                None => *shared = Arc::new(data.to_vec()),
            },
            WriteOp::ReplaceOwned(data) => *shared = Arc::new(data),
            WriteOp::Append(data) => Arc::make_mut(shared).extend_from_slice(data),
            WriteOp::At(offset, data) => {
                let contents = Arc::make_mut(shared);
                // `new_len` was checked against MAX_FILE_SIZE, so these fit in usize.
                let start = usize::try_from(offset).unwrap_or(usize::MAX);
                let end = start.saturating_add(data.len());
                if contents.len() < end {
                    contents.resize(end, 0);
                }
                contents[start..end].copy_from_slice(data);
            }
            WriteOp::Truncate(len) => {
                Arc::make_mut(shared).resize(usize::try_from(len).unwrap_or(usize::MAX), 0)
            }
        }
    }
}
