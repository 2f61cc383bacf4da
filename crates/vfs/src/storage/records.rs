//! What a backend stores, and how. Every record is sealed with a checksum (XXH3-64, fast
//! enough in wasm to check 100 MiB in a few tens of milliseconds) so a corrupt or
//! truncated one is reported, never returned as data. The superblock carries the format
//! version in a fixed place, so data of an unknown version is refused before it is parsed.

use crate::error::{ErrorKind, VfsError, VfsResult};
use serde::{Deserialize, Serialize};

/// The stored format this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;

/// File contents are stored in chunks of this size (the last one shorter), so a large file
/// is never one huge record.
pub const CHUNK_SIZE: usize = 256 * 1024;

/// The sandbox-wide record: counters that must survive a reload.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Superblock {
    pub next_ino: u64,
    pub next_blob: u64,
}

/// One inode. Directories list only entries that are stored too (not mounts).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InodeRecord {
    pub kind: KindRecord,
    pub mode: u32,
    pub links: u32,
    pub modified: u64,
    pub accessed: u64,
    pub changed: u64,
    pub created: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum KindRecord {
    /// The contents are bytes `offset..offset + size` of blob `blob` (0 when empty). A
    /// small file shares a one-chunk "pack" blob with others written in the same flush.
    File {
        size: u64,
        blob: u64,
        offset: u64,
    },
    Directory {
        entries: Vec<(String, u64)>,
    },
    Symlink {
        target: String,
    },
}

/// A snapshot's entry in the index: enough to list it and to know which contents it keeps.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotInfo {
    pub id: u64,
    /// When it was taken (nanoseconds since the Unix epoch).
    pub created: u64,
    pub label: String,
    pub files: u64,
    pub bytes: u64,
    /// Contents it refers to: never deleted while it exists.
    pub blobs: Vec<u64>,
}

/// A snapshot's body: the whole inode table, as sealed inode records.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotBody {
    pub superblock: Superblock,
    pub inodes: Vec<(u64, Vec<u8>)>,
}

/// `payload` with its checksum in front.
pub fn seal(payload: &[u8]) -> Vec<u8> {
    let mut sealed = Vec::with_capacity(payload.len() + SEAL_LEN);
    sealed.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(payload).to_le_bytes());
    sealed.extend_from_slice(payload);
    sealed
}

/// The bytes a sealed record has before its payload: the payload's checksum.
pub const SEAL_LEN: usize = 8;

/// The payload of a sealed record, if its checksum holds. `what` names it in the error.
pub fn unseal<'a>(sealed: &'a [u8], what: &str) -> VfsResult<&'a [u8]> {
    let Some((seal, payload)) = sealed.split_first_chunk::<SEAL_LEN>() else {
        return Err(corrupt(what, "record is truncated"));
    };
    check_seal(*seal, payload, what)?;
    Ok(payload)
}

/// Checks a sealed record read in two parts, its seal and its payload.
pub fn check_seal(seal: [u8; SEAL_LEN], payload: &[u8], what: &str) -> VfsResult<()> {
    if u64::from_le_bytes(seal) != xxhash_rust::xxh3::xxh3_64(payload) {
        return Err(corrupt(what, "checksum mismatch"));
    }
    Ok(())
}

pub(crate) fn corrupt(what: &str, why: &str) -> VfsError {
    VfsError::new(ErrorKind::Corrupt, what.to_owned()).with_detail(why.to_owned())
}

fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    // Encoding into a Vec fails only on allocation failure, which aborts anyway.
    postcard::to_allocvec(value).unwrap_or_default()
}

fn decode<'a, T: Deserialize<'a>>(payload: &'a [u8], what: &str) -> VfsResult<T> {
    postcard::from_bytes(payload).map_err(|err| corrupt(what, &format!("undecodable: {err}")))
}

pub fn encode_superblock(superblock: &Superblock) -> Vec<u8> {
    let mut payload = FORMAT_VERSION.to_le_bytes().to_vec();
    payload.extend(encode(superblock));
    seal(&payload)
}

/// The superblock, or ENOTSUP for data written by a newer (or unknown) format.
pub fn decode_superblock(sealed: &[u8]) -> VfsResult<Superblock> {
    let payload = unseal(sealed, "superblock")?;
    let Some((version, rest)) = payload.split_first_chunk::<4>() else {
        return Err(corrupt("superblock", "record is truncated"));
    };
    let version = u32::from_le_bytes(*version);
    if version != FORMAT_VERSION {
        return Err(VfsError::new(ErrorKind::Unsupported, "/").with_detail(format!(
            "stored sandbox has format version {version}; this build reads version {FORMAT_VERSION}"
        )));
    }
    decode(rest, "superblock")
}

pub fn encode_inode(record: &InodeRecord) -> Vec<u8> {
    seal(&encode(record))
}

pub fn decode_inode(ino: u64, sealed: &[u8]) -> VfsResult<InodeRecord> {
    let what = format!("inode {ino}");
    decode(unseal(sealed, &what)?, &what)
}

pub fn encode_snapshot_index(index: &[SnapshotInfo]) -> Vec<u8> {
    seal(&encode(&index))
}

pub fn decode_snapshot_index(sealed: &[u8]) -> VfsResult<Vec<SnapshotInfo>> {
    decode(unseal(sealed, "snapshot index")?, "snapshot index")
}

pub fn encode_snapshot_body(body: &SnapshotBody) -> Vec<u8> {
    seal(&encode(body))
}

pub fn decode_snapshot_body(id: u64, sealed: &[u8]) -> VfsResult<SnapshotBody> {
    let what = format!("snapshot {id}");
    decode(unseal(sealed, &what)?, &what)
}

/// How many chunks a file of `size` bytes is stored in.
pub fn chunk_count(size: u64) -> u32 {
    u32::try_from(size.div_ceil(CHUNK_SIZE as u64)).unwrap_or(u32::MAX)
}

/// Files up to this size are packed together into one-chunk blobs, so a flush of many
/// small files writes few content records.
pub const PACK_MAX_FILE: usize = 64 * 1024;

/// How many chunks must be read for a file at `offset..offset + size` of its blob
/// (always from chunk 0: packs are one chunk, and other blobs start at offset 0).
pub fn chunks_to_read(offset: u64, size: u64) -> u32 {
    chunk_count(offset.saturating_add(size))
}

/// A content chunk on its way to storage: its seal and its payload, a range of a buffer
/// shared with the file it came from, so a flush copies no contents. Stores write the
/// seal, then the payload ([`ChunkRecord::parts`]); that is the sealed record.
#[derive(Debug, Clone)]
pub struct ChunkRecord {
    seal: [u8; SEAL_LEN],
    data: std::sync::Arc<Vec<u8>>,
    range: std::ops::Range<usize>,
}

impl ChunkRecord {
    /// Seals `data[range]`.
    pub fn new(data: std::sync::Arc<Vec<u8>>, range: std::ops::Range<usize>) -> Self {
        let seal = xxhash_rust::xxh3::xxh3_64(&data[range.clone()]).to_le_bytes();
        Self { seal, data, range }
    }

    /// A record as stored (seal, then payload), taken as it is, checked or not: for
    /// copying records from one store to another.
    pub fn from_sealed(record: Vec<u8>) -> Self {
        let mut seal = [0u8; SEAL_LEN];
        let split = record.len().min(SEAL_LEN);
        seal[..split].copy_from_slice(&record[..split]);
        let range = split..record.len();
        Self {
            seal,
            data: std::sync::Arc::new(record),
            range,
        }
    }

    /// The seal and the payload: the record is the one followed by the other.
    pub fn parts(&self) -> (&[u8; SEAL_LEN], &[u8]) {
        (&self.seal, &self.data[self.range.clone()])
    }

    /// Whether `next`'s payload follows this one's in the same buffer (as a file's
    /// chunks do), so a store can write the two in one call.
    pub fn is_followed_by(&self, next: &ChunkRecord) -> bool {
        std::sync::Arc::ptr_eq(&self.data, &next.data) && self.range.end == next.range.start
    }

    /// The payloads from this record's through `last`'s, one slice of their buffer, when
    /// `last` is this record or follows on from it there (see [`Self::is_followed_by`]).
    pub fn payloads_through(&self, last: &ChunkRecord) -> Option<&[u8]> {
        let same = std::sync::Arc::ptr_eq(&self.data, &last.data);
        (same && self.range.start <= last.range.end)
            .then(|| &self.data[self.range.start..last.range.end])
    }

    /// The record's length in storage.
    pub fn len(&self) -> usize {
        SEAL_LEN + self.range.len()
    }

    /// Never true: a record always has its seal.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The sealed record in one buffer.
    pub fn to_sealed(&self) -> Vec<u8> {
        let (seal, payload) = self.parts();
        let mut record = Vec::with_capacity(self.len());
        record.extend_from_slice(seal);
        record.extend_from_slice(payload);
        record
    }
}

/// A file's contents cut into chunk records that share its buffer.
pub fn encode_chunks(data: &std::sync::Arc<Vec<u8>>) -> Vec<ChunkRecord> {
    (0..data.len())
        .step_by(CHUNK_SIZE)
        .map(|start| ChunkRecord::new(data.clone(), start..(start + CHUNK_SIZE).min(data.len())))
        .collect()
}

/// A file's contents, bytes `offset..offset + size` of a blob, from the blob's sealed
/// chunks (in index order, from chunk 0). Every chunk's checksum is checked, and a blob
/// that does not hold the bytes the inode names is reported.
pub fn decode_chunks(
    blob: u64,
    offset: u64,
    size: u64,
    chunks: &[(u32, Vec<u8>)],
) -> VfsResult<Vec<u8>> {
    // Never reserve more than the chunks hold: a corrupt size must not exhaust memory.
    let stored: usize = chunks.iter().map(|(_, sealed)| sealed.len()).sum();
    let mut data = Vec::with_capacity(usize::try_from(size).unwrap_or(0).min(stored));
    let mut stream = ChunkStream::new(blob, offset, size);
    for (index, sealed) in chunks {
        stream.push(*index, sealed, &mut |piece| data.extend_from_slice(piece))?;
    }
    stream.finish()?;
    Ok(data)
}

/// Decodes a file's contents one sealed chunk at a time (what [`decode_chunks`] does
/// for a whole blob), so a large file can go straight to its reader without being
/// held twice.
#[derive(Debug)]
pub struct ChunkStream {
    blob: u64,
    offset: u64,
    size: u64,
    /// Blob bytes seen so far.
    position: u64,
    /// File bytes passed on so far.
    delivered: u64,
    next_index: u32,
}

impl ChunkStream {
    /// For the file at bytes `offset..offset + size` of `blob`.
    pub fn new(blob: u64, offset: u64, size: u64) -> Self {
        Self {
            blob,
            offset,
            size,
            position: 0,
            delivered: 0,
            next_index: 0,
        }
    }

    /// Checks the next chunk (chunks come in index order, from 0) and passes the file's
    /// bytes in it to `out`.
    pub fn push(&mut self, index: u32, sealed: &[u8], out: &mut dyn FnMut(&[u8])) -> VfsResult<()> {
        let what = || format!("contents {} chunk {index}", self.blob);
        if index != self.next_index {
            return Err(corrupt(&what(), "chunks missing before it"));
        }
        let payload = unseal(sealed, &what())?;
        let end = self.offset.saturating_add(self.size);
        let chunk_end = self.position + payload.len() as u64;
        if chunk_end > self.offset && self.position < end {
            let from = self.offset.saturating_sub(self.position) as usize;
            let to = (end.min(chunk_end) - self.position) as usize;
            out(&payload[from..to]);
            self.delivered += (to - from) as u64;
        }
        self.position = chunk_end;
        self.next_index += 1;
        Ok(())
    }

    /// Reports a blob that did not hold the bytes the inode names.
    pub fn finish(self) -> VfsResult<()> {
        let short = self.delivered != self.size;
        // A blob of its own must end where the file does: longer means a wrong record.
        let long =
            self.offset == 0 && self.size > PACK_MAX_FILE as u64 && self.position != self.size;
        if short || long {
            return Err(corrupt(
                &format!("contents {}", self.blob),
                &format!(
                    "holds {} bytes, its inode says {} at offset {}",
                    self.position, self.size, self.offset
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_files_chunks_follow_on_in_its_buffer_and_other_records_do_not() {
        let data = std::sync::Arc::new((0..(CHUNK_SIZE * 2 + 10)).map(|i| i as u8).collect());
        let chunks = encode_chunks(&data);
        assert_eq!(chunks.len(), 3);
        assert!(chunks[0].is_followed_by(&chunks[1]));
        assert!(chunks[1].is_followed_by(&chunks[2]));
        assert!(!chunks[0].is_followed_by(&chunks[2]), "a chunk in between");
        assert!(!chunks[1].is_followed_by(&chunks[0]));
        assert_eq!(chunks[0].payloads_through(&chunks[2]), Some(&data[..]));
        assert_eq!(
            chunks[1].payloads_through(&chunks[1]),
            Some(chunks[1].parts().1)
        );
        // The same bytes in another buffer are not the same buffer.
        let copy = ChunkRecord::from_sealed(chunks[1].to_sealed());
        assert!(!chunks[0].is_followed_by(&copy));
        assert_eq!(chunks[0].payloads_through(&copy), None);
        assert_eq!(chunks[2].payloads_through(&chunks[0]), None, "backwards");
    }
}
