//! The OPFS log's format: batches of entries with a data section, the index replayed
//! from them, and the reads and writes of the log files.

use crate::idb_store::error_from_browser;
use js_sys::Reflect;
use sandtab_vfs::storage::Batch;
use sandtab_vfs::storage::records::{self, ChunkRecord};
use sandtab_vfs::{ErrorKind, VfsError, VfsResult};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use wasm_bindgen::JsValue;
use web_sys::{FileSystemReadWriteOptions, FileSystemSyncAccessHandle};

pub(super) const FILE_MAGIC: &[u8; 8] = b"SANDTABL";
pub(super) const FILE_HEADER: u64 = 16;
const BATCH_MAGIC: u32 = 0x5342_4154; // "TABS"
const COMMIT_MAGIC: u32 = 0x434f_4d54; // "TMOC"
const BATCH_HEADER: u64 = 16;
pub(super) const COMMIT_LEN: u64 = 8;
/// Payloads of chunk records at least [`ALIGN_MIN`] long start on a multiple of this in
/// the log file: the browser copies page-aligned file data much faster (a 100 MiB read
/// from unaligned offsets took a fifth longer). Zero padding before such a record, and
/// after the batch metadata (which decodes with trailing zeros), puts them there.
const ALIGN: u64 = 4096;
const ALIGN_MIN: usize = 64 * 1024;
static ZEROS: [u8; ALIGN as usize] = [0; ALIGN as usize];

/// Bytes of padding that bring `offset` up to a multiple of [`ALIGN`].
fn padding_to_align(offset: u64) -> u64 {
    (ALIGN - offset % ALIGN) % ALIGN
}

/// Compact when the log is this much larger than its live records (and at least 64 MiB).
pub(super) const COMPACT_FACTOR: u64 = 2;
pub(super) const COMPACT_MIN: u64 = 64 << 20;

/// One change in a batch's metadata. Contents and snapshot bodies are referred to by
/// their place in the batch's data section.
#[derive(Debug, Serialize, Deserialize)]
pub(super) enum Entry {
    Superblock(Vec<u8>),
    SnapshotIndex(Vec<u8>),
    ClearInodes,
    PutInode(u64, Vec<u8>),
    DeleteInode(u64),
    PutChunk {
        blob: u64,
        index: u32,
        at: u64,
        len: u32,
    },
    DeleteBlob(u64),
    PutSnapshot {
        id: u64,
        at: u64,
        len: u32,
    },
    DeleteSnapshot(u64),
    /// A chunk whose seal is kept here and whose payload alone is in the data section:
    /// the payloads of a file's large chunks lie back to back in the log, so they are
    /// written and read in long runs. (Added after `PutChunk`, which older logs hold.)
    PutChunkPayload {
        blob: u64,
        index: u32,
        seal: [u8; records::SEAL_LEN],
        at: u64,
        len: u32,
    },
}

/// Where a record's bytes are in the active log file.
#[derive(Debug, Clone, Copy)]
pub(super) struct Extent {
    pub(super) at: u64,
    pub(super) len: u32,
    /// A chunk's seal when the metadata keeps it; then `at` and `len` are the payload's.
    /// Otherwise the record at `at` is the seal followed by the payload.
    pub(super) seal: Option<[u8; records::SEAL_LEN]>,
}

impl Extent {
    fn whole(at: u64, len: u32) -> Self {
        Self {
            at,
            len,
            seal: None,
        }
    }

    /// Where the payload is in the log and its length (a sealed record too short to
    /// hold a seal has none).
    pub(super) fn payload(&self) -> (u64, u32) {
        match self.seal {
            Some(_) => (self.at, self.len),
            None => {
                let seal = records::SEAL_LEN as u32;
                (self.at + u64::from(seal), self.len.saturating_sub(seal))
            }
        }
    }

    /// The record's length as sealed: seal and payload.
    pub(super) fn sealed_len(&self) -> usize {
        match self.seal {
            Some(_) => (self.len as usize).saturating_add(records::SEAL_LEN),
            None => self.len as usize,
        }
    }
}

/// The live records, as replayed from the log.
#[derive(Debug, Default)]
pub(super) struct Index {
    pub(super) superblock: Option<Vec<u8>>,
    pub(super) snapshot_index: Option<Vec<u8>>,
    pub(super) inodes: BTreeMap<u64, Vec<u8>>,
    pub(super) chunks: BTreeMap<(u64, u32), Extent>,
    pub(super) snapshots: BTreeMap<u64, Extent>,
}

impl Index {
    pub(super) fn live_bytes(&self) -> u64 {
        let extents = self.chunks.values().chain(self.snapshots.values());
        extents.map(|e| u64::from(e.len)).sum::<u64>()
            + self.inodes.values().map(|r| r.len() as u64).sum::<u64>()
    }

    pub(super) fn apply(&mut self, entry: Entry, data_start: u64) {
        match entry {
            Entry::Superblock(record) => self.superblock = Some(record),
            Entry::SnapshotIndex(record) => self.snapshot_index = Some(record),
            Entry::ClearInodes => self.inodes.clear(),
            Entry::PutInode(ino, record) => {
                self.inodes.insert(ino, record);
            }
            Entry::DeleteInode(ino) => {
                self.inodes.remove(&ino);
            }
            Entry::PutChunk {
                blob,
                index,
                at,
                len,
            } => {
                self.chunks
                    .insert((blob, index), Extent::whole(data_start + at, len));
            }
            Entry::PutChunkPayload {
                blob,
                index,
                seal,
                at,
                len,
            } => {
                let extent = Extent {
                    at: data_start + at,
                    len,
                    seal: Some(seal),
                };
                self.chunks.insert((blob, index), extent);
            }
            Entry::DeleteBlob(blob) => {
                let doomed: Vec<_> = self
                    .chunks
                    .range((blob, 0)..=(blob, u32::MAX))
                    .map(|(key, _)| *key)
                    .collect();
                for key in doomed {
                    self.chunks.remove(&key);
                }
            }
            Entry::PutSnapshot { id, at, len } => {
                self.snapshots
                    .insert(id, Extent::whole(data_start + at, len));
            }
            Entry::DeleteSnapshot(id) => {
                self.snapshots.remove(&id);
            }
        }
    }
}

/// One of the two log files.
#[derive(Debug)]
pub(super) struct LogFile {
    pub(super) handle: FileSystemSyncAccessHandle,
    pub(super) generation: u64,
    /// End of the last committed batch.
    pub(super) end: u64,
}

pub(super) fn opfs_error(what: &str, err: JsValue) -> VfsError {
    let name = Reflect::get(&err, &"name".into())
        .ok()
        .and_then(|v| v.as_string())
        .unwrap_or_default();
    let message = Reflect::get(&err, &"message".into())
        .ok()
        .and_then(|v| v.as_string())
        .unwrap_or_else(|| format!("{err:?}"));
    if name == "NoModificationAllowedError" || name == "InvalidStateError" {
        return VfsError::new(ErrorKind::Busy, "/").with_detail(format!(
            "the sandbox's OPFS files are open elsewhere (another tab or worker): {message}"
        ));
    }
    error_from_browser(&format!("OPFS {what}"), format!("{name}: {message}"))
}

pub(super) fn at(offset: u64) -> FileSystemReadWriteOptions {
    let options = FileSystemReadWriteOptions::new();
    options.set_at(offset as f64);
    options
}

pub(super) fn read_exact(
    handle: &FileSystemSyncAccessHandle,
    offset: u64,
    len: usize,
) -> VfsResult<Vec<u8>> {
    let mut buffer = vec![0u8; len];
    read_into(handle, offset, &mut buffer)?;
    Ok(buffer)
}

/// Fills `into` from the log at `offset`. The bindings hand the browser a view of it in
/// wasm memory: one copy.
pub(super) fn read_into(
    handle: &FileSystemSyncAccessHandle,
    offset: u64,
    into: &mut [u8],
) -> VfsResult<()> {
    let read = handle
        .read_with_u8_array_and_options(into, &at(offset))
        .map_err(|e| opfs_error("read", e))?;
    if (read as usize) < into.len() {
        return Err(VfsError::new(ErrorKind::Corrupt, "/")
            .with_detail(format!("OPFS log ends inside a record at byte {offset}")));
    }
    Ok(())
}

/// A record as sealed (seal, then payload), wherever its seal is kept.
pub(super) fn read_sealed(
    handle: &FileSystemSyncAccessHandle,
    extent: &Extent,
) -> VfsResult<Vec<u8>> {
    let mut record = vec![0u8; extent.sealed_len()];
    read_sealed_into(handle, extent, &mut record)?;
    Ok(record)
}

/// Fills `into`, exactly [`Extent::sealed_len`] long, with the record as sealed.
pub(super) fn read_sealed_into(
    handle: &FileSystemSyncAccessHandle,
    extent: &Extent,
    into: &mut [u8],
) -> VfsResult<()> {
    match extent.seal {
        None => read_into(handle, extent.at, into),
        Some(seal) => {
            let (front, payload) = into.split_at_mut(records::SEAL_LEN);
            front.copy_from_slice(&seal);
            read_into(handle, extent.at, payload)
        }
    }
}

pub(super) fn write_all(
    handle: &FileSystemSyncAccessHandle,
    offset: u64,
    data: &[u8],
) -> VfsResult<()> {
    let written = handle
        .write_with_u8_array_and_options(data, &at(offset))
        .map_err(|e| opfs_error("write", e))?;
    if (written as usize) < data.len() {
        return Err(VfsError::new(ErrorKind::QuotaExceeded, "/")
            .with_detail("the browser's storage quota is full (OPFS write was cut short)"));
    }
    Ok(())
}

pub(super) fn size(handle: &FileSystemSyncAccessHandle) -> VfsResult<u64> {
    Ok(handle.get_size().map_err(|e| opfs_error("size", e))? as u64)
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    let mut word = [0u8; 4];
    word.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(word)
}

/// Replays one file: its generation, the end of its last whole batch, and the index.
/// A file without a valid header or committed batch has generation 0.
pub(super) fn replay(handle: &FileSystemSyncAccessHandle) -> VfsResult<(u64, u64, Index)> {
    let mut index = Index::default();
    let file_size = size(handle)?;
    if file_size < FILE_HEADER {
        return Ok((0, 0, index));
    }
    let header = read_exact(handle, 0, FILE_HEADER as usize)?;
    if &header[..8] != FILE_MAGIC {
        return Ok((0, 0, index));
    }
    let mut generation = [0u8; 8];
    generation.copy_from_slice(&header[8..16]);
    let generation = u64::from_le_bytes(generation);
    let mut position = FILE_HEADER;
    let mut committed = 0;
    while position + BATCH_HEADER <= file_size {
        let header = read_exact(handle, position, BATCH_HEADER as usize)?;
        if u32_at(&header, 0) != BATCH_MAGIC {
            break;
        }
        let meta_len = u64::from(u32_at(&header, 4));
        let mut data_len = [0u8; 8];
        data_len.copy_from_slice(&header[8..16]);
        let data_len = u64::from_le_bytes(data_len);
        let meta_at = position + BATCH_HEADER;
        let commit_at = meta_at.saturating_add(meta_len).saturating_add(data_len);
        if commit_at.saturating_add(COMMIT_LEN) > file_size {
            break;
        }
        let meta = read_exact(handle, meta_at, meta_len as usize)?;
        let commit = read_exact(handle, commit_at, COMMIT_LEN as usize)?;
        if u32_at(&commit, 0) != COMMIT_MAGIC || u32_at(&commit, 4) != crc32fast::hash(&meta) {
            break;
        }
        // The commit's CRC holds, so this is the batch as written: entries this build
        // cannot decode come from a newer build, and the log is left as it is.
        let entries = postcard::from_bytes::<Vec<Entry>>(&meta).map_err(|err| {
            VfsError::new(ErrorKind::Unsupported, "/").with_detail(format!(
                "the OPFS log holds a batch this build cannot read at byte {position} \
                 (written by a newer sandtab?): {err}; nothing was changed"
            ))
        })?;
        // Every extent must lie inside this batch's data section.
        let inside = |at: u64, len: u32| {
            at.checked_add(u64::from(len))
                .is_some_and(|end| end <= data_len)
        };
        let sound = entries.iter().all(|entry| match entry {
            Entry::PutChunk { at, len, .. }
            | Entry::PutChunkPayload { at, len, .. }
            | Entry::PutSnapshot { at, len, .. } => inside(*at, *len),
            _ => true,
        });
        if !sound {
            break;
        }
        for entry in entries {
            index.apply(entry, meta_at + meta_len);
        }
        position = commit_at + COMMIT_LEN;
        committed += 1;
    }
    if committed == 0 {
        return Ok((0, 0, Index::default()));
    }
    Ok((generation, position, index))
}

/// Appends one batch (entries plus data) at `file.end`, flushing before the commit
/// marker and after it. On failure the file is cut back to where it was.
/// With `align`, the data section starts on a multiple of [`ALIGN`] in the file.
pub(super) fn append(
    file: &mut LogFile,
    entries: &[Entry],
    data: &[&[u8]],
    align: bool,
) -> VfsResult<()> {
    let data_len: u64 = data.iter().map(|part| part.len() as u64).sum();
    let mut meta = postcard::to_allocvec(entries).map_err(|err| {
        VfsError::new(ErrorKind::Io, "/").with_detail(format!("encoding a batch: {err}"))
    })?;
    if align {
        let pad = padding_to_align(file.end + BATCH_HEADER + meta.len() as u64);
        meta.resize(meta.len() + pad as usize, 0);
    }
    let meta_len = u32::try_from(meta.len()).map_err(|_| {
        VfsError::new(ErrorKind::InvalidInput, "/").with_detail("batch metadata over 4 GiB")
    })?;
    let mut head = Vec::with_capacity(BATCH_HEADER as usize + meta.len());
    head.extend_from_slice(&BATCH_MAGIC.to_le_bytes());
    head.extend_from_slice(&meta_len.to_le_bytes());
    head.extend_from_slice(&data_len.to_le_bytes());
    head.extend_from_slice(&meta);
    let start = file.end;
    let result = (|| {
        write_all(&file.handle, start, &head)?;
        let mut offset = start + head.len() as u64;
        for part in data {
            write_all(&file.handle, offset, part)?;
            offset += part.len() as u64;
        }
        file.handle.flush().map_err(|e| opfs_error("flush", e))?;
        let mut commit = COMMIT_MAGIC.to_le_bytes().to_vec();
        commit.extend_from_slice(&crc32fast::hash(&meta).to_le_bytes());
        let commit_at = offset;
        write_all(&file.handle, commit_at, &commit)?;
        file.handle.flush().map_err(|e| opfs_error("flush", e))?;
        Ok(commit_at + COMMIT_LEN)
    })();
    match result {
        Ok(end) => {
            file.end = end;
            Ok(())
        }
        Err(err) => {
            // Nothing of this batch is committed; cut it off so the next one follows on.
            let _ = file.handle.truncate_with_f64(start as f64);
            let _ = file.handle.flush();
            Err(err)
        }
    }
}

/// Where a large chunk's seal is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SealPlace {
    /// In its entry: the payloads of a file's chunks then lie back to back in the log.
    Entry,
    /// In front of its payload, as older logs have it (still read; written by tests).
    BeforePayload,
}

/// The entries and the data section (as the records' own slices, not copied) of a batch,
/// its length, and whether it holds a record whose payload is placed for alignment
/// (which holds if the data section starts aligned).
pub(super) fn encode<'a>(
    batch: &'a Batch,
    seals: SealPlace,
) -> (Vec<Entry>, Vec<&'a [u8]>, u64, bool) {
    let mut entries = Vec::new();
    let mut data: Vec<&[u8]> = Vec::new();
    let mut data_len = 0u64;
    if let Some(record) = &batch.superblock {
        entries.push(Entry::Superblock(record.clone()));
    }
    if let Some(record) = &batch.snapshot_index {
        entries.push(Entry::SnapshotIndex(record.clone()));
    }
    if batch.clear_inodes {
        entries.push(Entry::ClearInodes);
    }
    entries.extend(
        batch
            .delete_inodes
            .iter()
            .map(|&ino| Entry::DeleteInode(ino)),
    );
    entries.extend(
        batch
            .put_inodes
            .iter()
            .map(|(ino, r)| Entry::PutInode(*ino, r.clone())),
    );
    entries.extend(
        batch
            .delete_blobs
            .iter()
            .map(|&blob| Entry::DeleteBlob(blob)),
    );
    let mut aligned = false;
    // Large payloads that follow on in one buffer (a file's chunks), written as one part:
    // the first and the last record of the run.
    let mut run: Option<(&ChunkRecord, &ChunkRecord)> = None;
    let end_run = |run: &mut Option<(&'a ChunkRecord, &'a ChunkRecord)>,
                   data: &mut Vec<&'a [u8]>| {
        if let Some((first, last)) = run.take() {
            data.extend(first.payloads_through(last));
        }
    };
    for (blob, index, record) in &batch.put_chunks {
        let (seal, payload) = record.parts();
        if record.len() >= ALIGN_MIN && seals == SealPlace::Entry {
            // The payload alone goes in the data section, page-aligned; its seal is in
            // the entry.
            let follows = run.is_some_and(|(_, last)| last.is_followed_by(record));
            if !(follows && data_len.is_multiple_of(ALIGN)) {
                end_run(&mut run, &mut data);
                let pad = padding_to_align(data_len);
                data.push(&ZEROS[..pad as usize]);
                data_len += pad;
            }
            aligned = true;
            entries.push(Entry::PutChunkPayload {
                blob: *blob,
                index: *index,
                seal: *seal,
                at: data_len,
                len: payload.len() as u32,
            });
            data_len += payload.len() as u64;
            run = Some((run.map_or(record, |(first, _)| first), record));
            continue;
        }
        end_run(&mut run, &mut data);
        if record.len() >= ALIGN_MIN {
            let pad = padding_to_align(data_len + records::SEAL_LEN as u64);
            data.push(&ZEROS[..pad as usize]);
            data_len += pad;
            aligned = true;
        }
        entries.push(Entry::PutChunk {
            blob: *blob,
            index: *index,
            at: data_len,
            len: record.len() as u32,
        });
        data.push(seal);
        data.push(payload);
        data_len += record.len() as u64;
    }
    end_run(&mut run, &mut data);
    entries.extend(
        batch
            .delete_snapshots
            .iter()
            .map(|&id| Entry::DeleteSnapshot(id)),
    );
    for (id, record) in &batch.put_snapshots {
        entries.push(Entry::PutSnapshot {
            id: *id,
            at: data_len,
            len: record.len() as u32,
        });
        data.push(record);
        data_len += record.len() as u64;
    }
    (entries, data, data_len, aligned)
}
