//! The OPFS backend: a sandbox's records in an append-only log in the origin private file
//! system, written through synchronous access handles (dedicated workers only).
//!
//! A commit appends one batch: a header, the batch's metadata (every record but file
//! contents and snapshot bodies, which go in a data section), then, after a flush, a
//! commit marker with a CRC-32 of the metadata, flushed again. Opening replays the
//! metadata of every committed batch (contents are read only when asked for, at their
//! offsets) and cuts off a torn tail, so a crash mid-commit leaves the previous commit.
//! The log lives in two files, `log-a` and `log-b`; compaction writes the live records
//! into the idle one under a higher generation, and the newest whole file wins.

use crate::idb_store::error_from_browser;
use js_sys::{Promise, Reflect};
use sandtab_vfs::storage::{Batch, ChunkVisitor, Store, StoreFuture, StoredState, records};
use sandtab_vfs::{ErrorKind, VfsError, VfsResult};
use send_wrapper::SendWrapper;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::BTreeMap;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    FileSystemDirectoryHandle, FileSystemFileHandle, FileSystemGetDirectoryOptions,
    FileSystemGetFileOptions, FileSystemReadWriteOptions, FileSystemSyncAccessHandle,
    StorageManager,
};

const FILE_MAGIC: &[u8; 8] = b"SANDTABL";
const FILE_HEADER: u64 = 16;
const BATCH_MAGIC: u32 = 0x5342_4154; // "TABS"
const COMMIT_MAGIC: u32 = 0x434f_4d54; // "TMOC"
const BATCH_HEADER: u64 = 16;
const COMMIT_LEN: u64 = 8;
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
const COMPACT_FACTOR: u64 = 2;
const COMPACT_MIN: u64 = 64 << 20;

/// One change in a batch's metadata. Contents and snapshot bodies are referred to by
/// their place in the batch's data section.
#[derive(Debug, Serialize, Deserialize)]
enum Entry {
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
}

/// Where a record's bytes are in the active log file.
#[derive(Debug, Clone, Copy)]
struct Extent {
    at: u64,
    len: u32,
}

/// The live records, as replayed from the log.
#[derive(Debug, Default)]
struct Index {
    superblock: Option<Vec<u8>>,
    snapshot_index: Option<Vec<u8>>,
    inodes: BTreeMap<u64, Vec<u8>>,
    chunks: BTreeMap<(u64, u32), Extent>,
    snapshots: BTreeMap<u64, Extent>,
}

impl Index {
    fn live_bytes(&self) -> u64 {
        let extents = self.chunks.values().chain(self.snapshots.values());
        extents.map(|e| u64::from(e.len)).sum::<u64>()
            + self.inodes.values().map(|r| r.len() as u64).sum::<u64>()
    }

    fn apply(&mut self, entry: Entry, data_start: u64) {
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
                let extent = Extent {
                    at: data_start + at,
                    len,
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
                self.snapshots.insert(
                    id,
                    Extent {
                        at: data_start + at,
                        len,
                    },
                );
            }
            Entry::DeleteSnapshot(id) => {
                self.snapshots.remove(&id);
            }
        }
    }
}

/// One of the two log files.
#[derive(Debug)]
struct LogFile {
    handle: FileSystemSyncAccessHandle,
    generation: u64,
    /// End of the last committed batch.
    end: u64,
}

#[derive(Debug)]
struct State {
    files: [LogFile; 2],
    active: usize,
    index: Index,
}

/// A sandbox stored in OPFS.
#[derive(Debug)]
pub struct OpfsStore {
    state: SendWrapper<RefCell<State>>,
    name: String,
}

fn opfs_error(what: &str, err: JsValue) -> VfsError {
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

async fn wait<T: JsCast>(promise: Promise, what: &str) -> VfsResult<T> {
    let value = JsFuture::from(promise)
        .await
        .map_err(|e| opfs_error(what, e))?;
    value.dyn_into::<T>().map_err(|_| {
        VfsError::new(ErrorKind::Io, "/").with_detail(format!("OPFS {what}: unexpected answer"))
    })
}

fn at(offset: u64) -> FileSystemReadWriteOptions {
    let options = FileSystemReadWriteOptions::new();
    options.set_at(offset as f64);
    options
}

fn read_exact(handle: &FileSystemSyncAccessHandle, offset: u64, len: usize) -> VfsResult<Vec<u8>> {
    // The bindings hand the browser a view of this buffer in wasm memory: one copy.
    let mut buffer = vec![0u8; len];
    let read = handle
        .read_with_u8_array_and_options(&mut buffer, &at(offset))
        .map_err(|e| opfs_error("read", e))?;
    if (read as usize) < len {
        return Err(VfsError::new(ErrorKind::Corrupt, "/")
            .with_detail(format!("OPFS log ends inside a record at byte {offset}")));
    }
    Ok(buffer)
}

fn write_all(handle: &FileSystemSyncAccessHandle, offset: u64, data: &[u8]) -> VfsResult<()> {
    let written = handle
        .write_with_u8_array_and_options(data, &at(offset))
        .map_err(|e| opfs_error("write", e))?;
    if (written as usize) < data.len() {
        return Err(VfsError::new(ErrorKind::QuotaExceeded, "/")
            .with_detail("the browser's storage quota is full (OPFS write was cut short)"));
    }
    Ok(())
}

fn size(handle: &FileSystemSyncAccessHandle) -> VfsResult<u64> {
    Ok(handle.get_size().map_err(|e| opfs_error("size", e))? as u64)
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    let mut word = [0u8; 4];
    word.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(word)
}

/// Replays one file: its generation, the end of its last whole batch, and the index.
/// A file without a valid header or committed batch has generation 0.
fn replay(handle: &FileSystemSyncAccessHandle) -> VfsResult<(u64, u64, Index)> {
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
        let Ok(entries) = postcard::from_bytes::<Vec<Entry>>(&meta) else {
            break;
        };
        // Every extent must lie inside this batch's data section.
        let inside = |at: u64, len: u32| {
            at.checked_add(u64::from(len))
                .is_some_and(|end| end <= data_len)
        };
        let sound = entries.iter().all(|entry| match entry {
            Entry::PutChunk { at, len, .. } | Entry::PutSnapshot { at, len, .. } => {
                inside(*at, *len)
            }
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
fn append(file: &mut LogFile, entries: &[Entry], data: &[&[u8]], align: bool) -> VfsResult<()> {
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

/// The entries and the data section (as the records' own slices, not copied) of a batch,
/// its length, and whether it holds a record whose payload is placed for alignment
/// (which holds if the data section starts aligned).
fn encode(batch: &Batch) -> (Vec<Entry>, Vec<&[u8]>, u64, bool) {
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
    for (blob, index, record) in &batch.put_chunks {
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
        let (seal, payload) = record.parts();
        data.push(seal);
        data.push(payload);
        data_len += record.len() as u64;
    }
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

async fn directory(
    parent: &FileSystemDirectoryHandle,
    name: &str,
) -> VfsResult<FileSystemDirectoryHandle> {
    let options = FileSystemGetDirectoryOptions::new();
    options.set_create(true);
    wait(
        parent.get_directory_handle_with_options(name, &options),
        "open directory",
    )
    .await
}

async fn open_log(
    dir: &FileSystemDirectoryHandle,
    name: &str,
) -> VfsResult<FileSystemSyncAccessHandle> {
    let options = FileSystemGetFileOptions::new();
    options.set_create(true);
    let file: FileSystemFileHandle = wait(
        dir.get_file_handle_with_options(name, &options),
        "open file",
    )
    .await?;
    wait(file.create_sync_access_handle(), "open sync access handle").await
}

impl OpfsStore {
    /// Opens (creating if needed) sandbox `name` in OPFS. Only in a dedicated worker.
    pub async fn open(name: &str) -> VfsResult<Self> {
        let navigator = Reflect::get(&js_sys::global(), &"navigator".into())
            .map_err(|e| opfs_error("navigator", e))?;
        let storage: StorageManager = Reflect::get(&navigator, &"storage".into())
            .map_err(|e| opfs_error("navigator.storage", e))?
            .dyn_into()
            .map_err(|_| {
                VfsError::new(ErrorKind::Unsupported, "/")
                    .with_detail("this browser has no navigator.storage (OPFS)")
            })?;
        let root: FileSystemDirectoryHandle = wait(storage.get_directory(), "root").await?;
        let dir = directory(&directory(&root, "sandtab").await?, name).await?;
        let handles = [
            open_log(&dir, "log-a").await?,
            open_log(&dir, "log-b").await?,
        ];
        let mut replayed = Vec::new();
        for handle in &handles {
            replayed.push(replay(handle)?);
        }
        let active = usize::from(replayed[1].0 > replayed[0].0);
        let [(gen_a, end_a, index_a), (gen_b, end_b, index_b)] =
            <[_; 2]>::try_from(replayed).map_err(|_| VfsError::new(ErrorKind::Io, "/"))?;
        let index = if active == 0 { index_a } else { index_b };
        let [handle_a, handle_b] = handles;
        let mut files = [
            LogFile {
                handle: handle_a,
                generation: gen_a,
                end: end_a,
            },
            LogFile {
                handle: handle_b,
                generation: gen_b,
                end: end_b,
            },
        ];
        let file = &mut files[active];
        if file.generation == 0 {
            // A new sandbox: write the header of generation 1.
            let mut header = FILE_MAGIC.to_vec();
            header.extend_from_slice(&1u64.to_le_bytes());
            file.handle
                .truncate_with_f64(0.0)
                .map_err(|e| opfs_error("truncate", e))?;
            write_all(&file.handle, 0, &header)?;
            file.handle.flush().map_err(|e| opfs_error("flush", e))?;
            file.generation = 1;
            file.end = FILE_HEADER;
        } else if size(&file.handle)? > file.end {
            // A torn tail from a crash mid-commit: it was never committed.
            file.handle
                .truncate_with_f64(file.end as f64)
                .map_err(|e| opfs_error("truncate", e))?;
            file.handle.flush().map_err(|e| opfs_error("flush", e))?;
        }
        Ok(Self {
            state: SendWrapper::new(RefCell::new(State {
                files,
                active,
                index,
            })),
            name: name.to_owned(),
        })
    }

    fn commit_now(&self, batch: &Batch) -> VfsResult<()> {
        let mut state = self.state.borrow_mut();
        let (entries, data, data_len, align) = encode(batch);
        let active = state.active;
        append(&mut state.files[active], &entries, &data, align)?;
        let data_start = state.files[active].end - COMMIT_LEN - data_len;
        for entry in entries {
            state.index.apply(entry, data_start);
        }
        let end = state.files[active].end;
        let live = state.index.live_bytes();
        if end > COMPACT_MIN && end > live * COMPACT_FACTOR {
            compact(&mut state)?;
        }
        Ok(())
    }

    /// Reads chunk records into one reusable buffer (the bindings pass the browser a view
    /// of it in wasm memory, so each record is copied once, by the browser), so a large
    /// file costs no allocation per chunk and is never held whole.
    fn visit_extents(
        &self,
        extents: &[(u32, Extent)],
        visit: &mut ChunkVisitor<'_>,
    ) -> VfsResult<()> {
        let longest = extents.iter().map(|(_, e)| e.len).max().unwrap_or(0);
        let mut buffer = vec![0u8; longest as usize];
        let state = self.state.borrow();
        let handle = &state.files[state.active].handle;
        for &(index, extent) in extents {
            let record = &mut buffer[..extent.len as usize];
            let read = handle
                .read_with_u8_array_and_options(record, &at(extent.at))
                .map_err(|e| opfs_error("read", e))?;
            if read < f64::from(extent.len) {
                return Err(VfsError::new(ErrorKind::Corrupt, "/").with_detail(format!(
                    "OPFS log ends inside a record at byte {}",
                    extent.at
                )));
            }
            visit(index, record)?;
        }
        Ok(())
    }

    /// Reads a blob that holds one file's contents from its first byte (`size` bytes)
    /// into `out`, which must be `size` long. Each chunk's payload goes from the log
    /// straight into the array, as a raw read would; a copy of it, still in the CPU's
    /// cache, is then checked against its seal.
    pub fn read_blob_into(&self, blob: u64, size: u64, out: &js_sys::Uint8Array) -> VfsResult<()> {
        let count = records::chunks_to_read(0, size);
        let extents: Vec<(u32, Extent)> = self
            .state
            .borrow()
            .index
            .chunks
            .range((blob, 0)..(blob, count))
            .map(|(&(_, index), &extent)| (index, extent))
            .collect();
        let corrupt =
            |what: String, why: String| VfsError::new(ErrorKind::Corrupt, what).with_detail(why);
        let longest = extents.iter().map(|(_, e)| e.len).max().unwrap_or(0) as usize;
        let mut payload = vec![0u8; longest.saturating_sub(records::SEAL_LEN)];
        let mut seal = [0u8; records::SEAL_LEN];
        let state = self.state.borrow();
        let handle = &state.files[state.active].handle;
        let read = |into: &js_sys::Uint8Array, at_byte: u64| -> VfsResult<()> {
            let got = handle
                .read_with_js_u8_array_and_options(into, &at(at_byte))
                .map_err(|e| opfs_error("read", e))?;
            if got < f64::from(into.length()) {
                return Err(corrupt(
                    "/".into(),
                    format!("OPFS log ends inside a record at byte {at_byte}"),
                ));
            }
            Ok(())
        };
        let seal_len = records::SEAL_LEN as u64;
        // The previous payload's last bytes, once there is one that long.
        let mut previous_tail: Option<[u8; records::SEAL_LEN]> = None;
        let mut position = 0u64;
        for (expected, &(index, extent)) in extents.iter().enumerate() {
            let what = format!("contents {blob} chunk {index}");
            if index as usize != expected {
                return Err(corrupt(what, "chunks missing before it".into()));
            }
            let len = (extent.len as usize)
                .checked_sub(records::SEAL_LEN)
                .ok_or_else(|| corrupt(what.clone(), "record is truncated".into()))?;
            let end = position + len as u64;
            if end > size {
                return Err(corrupt(
                    format!("contents {blob}"),
                    format!("holds more than the {size} bytes its inode says"),
                ));
            }
            let place = out.subarray(position as u32, end as u32);
            if let Some(tail) = &previous_tail {
                // One read for the seal and the payload: the seal lands on the last
                // bytes of the previous payload, which are put back from `tail`.
                let seal_place = out.subarray((position - seal_len) as u32, position as u32);
                let record = out.subarray((position - seal_len) as u32, end as u32);
                read(&record, extent.at)?;
                seal_place.copy_to(&mut seal);
                seal_place.copy_from(tail);
            } else {
                let seal_read = handle
                    .read_with_u8_array_and_options(&mut seal, &at(extent.at))
                    .map_err(|e| opfs_error("read", e))?;
                if seal_read < seal_len as f64 {
                    return Err(corrupt(what, "record is truncated".into()));
                }
                read(&place, extent.at + seal_len)?;
            }
            place.copy_to(&mut payload[..len]);
            records::check_seal(seal, &payload[..len], &what)?;
            previous_tail = payload[..len]
                .last_chunk::<{ records::SEAL_LEN }>()
                .copied();
            position = end;
        }
        if position != size {
            return Err(corrupt(
                format!("contents {blob}"),
                format!("holds {position} bytes, its inode says {size}"),
            ));
        }
        Ok(())
    }

    fn read_extent(&self, extent: Extent) -> VfsResult<Vec<u8>> {
        let state = self.state.borrow();
        read_exact(
            &state.files[state.active].handle,
            extent.at,
            extent.len as usize,
        )
    }
}

/// Writes every live record into the idle file as one batch under the next generation;
/// once that is flushed and committed it becomes the active file.
fn compact(state: &mut State) -> VfsResult<()> {
    let active = state.active;
    let idle = 1 - active;
    let mut batch = Batch {
        superblock: state.index.superblock.clone(),
        snapshot_index: state.index.snapshot_index.clone(),
        put_inodes: state
            .index
            .inodes
            .iter()
            .map(|(k, v)| (*k, v.clone()))
            .collect(),
        ..Batch::default()
    };
    for (&(blob, index), extent) in &state.index.chunks {
        let record = read_exact(&state.files[active].handle, extent.at, extent.len as usize)?;
        batch
            .put_chunks
            .push((blob, index, records::ChunkRecord::from_sealed(record)));
    }
    for (&id, extent) in &state.index.snapshots {
        let record = read_exact(&state.files[active].handle, extent.at, extent.len as usize)?;
        batch.put_snapshots.push((id, record));
    }
    let generation = state.files[active].generation + 1;
    let file = &mut state.files[idle];
    file.handle
        .truncate_with_f64(0.0)
        .map_err(|e| opfs_error("truncate", e))?;
    let mut header = FILE_MAGIC.to_vec();
    header.extend_from_slice(&generation.to_le_bytes());
    write_all(&file.handle, 0, &header)?;
    file.end = FILE_HEADER;
    file.generation = generation;
    let (entries, data, data_len, align) = encode(&batch);
    append(file, &entries, &data, align)?;
    let mut index = Index::default();
    let data_start = file.end - COMMIT_LEN - data_len;
    for entry in entries {
        index.apply(entry, data_start);
    }
    state.index = index;
    state.active = idle;
    Ok(())
}

impl Drop for OpfsStore {
    /// Releases the sync access handles (another worker may then open the sandbox).
    fn drop(&mut self) {
        if self.state.valid() {
            for file in &self.state.borrow().files {
                file.handle.close();
            }
        }
    }
}

impl Store for OpfsStore {
    fn load(&self) -> StoreFuture<'_, StoredState> {
        let state = self.state.borrow();
        let loaded = StoredState {
            superblock: state.index.superblock.clone(),
            snapshot_index: state.index.snapshot_index.clone(),
            inodes: state
                .index
                .inodes
                .iter()
                .map(|(k, v)| (*k, v.clone()))
                .collect(),
        };
        Box::pin(async move { Ok(loaded) })
    }

    fn read_blob(&self, blob: u64) -> StoreFuture<'_, Vec<(u32, Vec<u8>)>> {
        let extents: Vec<(u32, Extent)> = self
            .state
            .borrow()
            .index
            .chunks
            .range((blob, 0)..=(blob, u32::MAX))
            .map(|(&(_, index), &extent)| (index, extent))
            .collect();
        let result = extents
            .into_iter()
            .map(|(index, extent)| Ok((index, self.read_extent(extent)?)))
            .collect::<VfsResult<Vec<_>>>();
        Box::pin(async move { result })
    }

    fn visit_blob<'a>(
        &'a self,
        blob: u64,
        count: u32,
        visit: &'a mut ChunkVisitor<'_>,
    ) -> StoreFuture<'a, ()> {
        let extents: Vec<(u32, Extent)> = self
            .state
            .borrow()
            .index
            .chunks
            .range((blob, 0)..(blob, count))
            .map(|(&(_, index), &extent)| (index, extent))
            .collect();
        let result = self.visit_extents(&extents, visit);
        Box::pin(async move { result })
    }

    fn blob_ids(&self) -> StoreFuture<'_, Vec<u64>> {
        let mut ids: Vec<u64> = self
            .state
            .borrow()
            .index
            .chunks
            .keys()
            .map(|(b, _)| *b)
            .collect();
        ids.dedup();
        Box::pin(async move { Ok(ids) })
    }

    fn read_snapshot(&self, id: u64) -> StoreFuture<'_, Option<Vec<u8>>> {
        let extent = self.state.borrow().index.snapshots.get(&id).copied();
        let result = extent.map(|extent| self.read_extent(extent)).transpose();
        Box::pin(async move { result })
    }

    fn commit(&self, batch: Batch) -> StoreFuture<'_, ()> {
        let result = self.commit_now(&batch);
        Box::pin(async move { result })
    }

    fn describe(&self) -> String {
        format!("OPFS sandbox {}", self.name)
    }
}

/// The raw bytes of a log file, for tests that damage it on purpose.
pub async fn append_garbage_for_test(name: &str, bytes: &[u8]) -> VfsResult<()> {
    let store = OpfsStore::open(name).await?;
    let state = store.state.borrow();
    let file = &state.files[state.active];
    let end = size(&file.handle)?;
    write_all(&file.handle, end, bytes)?;
    file.handle.flush().map_err(|e| opfs_error("flush", e))?;
    Ok(())
}

/// Flips the bits of the byte at `at` in the active log file, for tests of damage.
pub async fn flip_byte_for_test(name: &str, at: u64) -> VfsResult<()> {
    let store = OpfsStore::open(name).await?;
    let state = store.state.borrow();
    let file = &state.files[state.active];
    let mut byte = read_exact(&file.handle, at, 1)?;
    byte[0] ^= 0xff;
    write_all(&file.handle, at, &byte)?;
    file.handle.flush().map_err(|e| opfs_error("flush", e))?;
    Ok(())
}

/// Where each chunk record's payload starts in the active log file, and its length,
/// for tests of alignment.
pub async fn chunk_payloads_for_test(name: &str) -> VfsResult<Vec<(u64, u32)>> {
    let store = OpfsStore::open(name).await?;
    let state = store.state.borrow();
    Ok(state
        .index
        .chunks
        .values()
        .map(|extent| (extent.at + records::SEAL_LEN as u64, extent.len))
        .collect())
}

/// The size of the active log file and its generation, for tests of compaction.
pub async fn log_size_for_test(name: &str) -> VfsResult<(u64, u64)> {
    let store = OpfsStore::open(name).await?;
    let state = store.state.borrow();
    let file = &state.files[state.active];
    Ok((size(&file.handle)?, file.generation))
}
