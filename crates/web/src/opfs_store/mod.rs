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

use js_sys::{Promise, Reflect};
use sandtab_vfs::storage::{Batch, ChunkVisitor, Store, StoreFuture, StoredState, records};
use sandtab_vfs::{ErrorKind, VfsError, VfsResult};
use send_wrapper::SendWrapper;
use std::cell::RefCell;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    FileSystemDirectoryHandle, FileSystemFileHandle, FileSystemGetDirectoryOptions,
    FileSystemGetFileOptions, FileSystemSyncAccessHandle, StorageManager,
};

mod log;

use log::{
    COMMIT_LEN, COMPACT_FACTOR, COMPACT_MIN, Extent, FILE_HEADER, FILE_MAGIC, Index, LogFile,
    SealPlace, append, at, encode, opfs_error, read_exact, read_into, read_sealed,
    read_sealed_into, replay, size, write_all,
};

/// The most bytes of payloads `read_blob` reads in one call: page-aligned reads of 1 MiB
/// ran as fast as one read of a whole file here, and each run is checked chunk by chunk
/// while it is still in the CPU's cache.
const READ_RUN_MAX: u32 = 1 << 20;

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

async fn wait<T: JsCast>(promise: Promise, what: &str) -> VfsResult<T> {
    let value = JsFuture::from(promise)
        .await
        .map_err(|e| opfs_error(what, e))?;
    value.dyn_into::<T>().map_err(|_| {
        VfsError::new(ErrorKind::Io, "/").with_detail(format!("OPFS {what}: unexpected answer"))
    })
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

fn storage_manager() -> VfsResult<StorageManager> {
    let navigator = Reflect::get(&js_sys::global(), &"navigator".into())
        .map_err(|e| opfs_error("navigator", e))?;
    Reflect::get(&navigator, &"storage".into())
        .map_err(|e| opfs_error("navigator.storage", e))?
        .dyn_into()
        .map_err(|_| {
            VfsError::new(ErrorKind::Unsupported, "/")
                .with_detail("this browser has no navigator.storage (OPFS)")
        })
}

/// Sync access handles on sandbox `name`'s two log files (created if missing).
async fn open_logs(
    storage: &StorageManager,
    name: &str,
) -> VfsResult<[FileSystemSyncAccessHandle; 2]> {
    let root: FileSystemDirectoryHandle = wait(storage.get_directory(), "root").await?;
    let dir = directory(&directory(&root, "sandtab").await?, name).await?;
    let a = open_log(&dir, "log-a").await?;
    match open_log(&dir, "log-b").await {
        Ok(b) => Ok([a, b]),
        Err(err) => {
            a.close();
            Err(err)
        }
    }
}

impl OpfsStore {
    /// Opens (creating if needed) sandbox `name` in OPFS. Only in a dedicated worker.
    pub async fn open(name: &str) -> VfsResult<Self> {
        let handles = open_logs(&storage_manager()?, name).await?;
        let replayed = match handles.iter().map(replay).collect::<VfsResult<Vec<_>>>() {
            Ok(replayed) => replayed,
            Err(err) => {
                // Let go of the files, so the sandbox can be opened again.
                handles.iter().for_each(FileSystemSyncAccessHandle::close);
                return Err(err);
            }
        };
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
        let (entries, data, data_len, align) = encode(batch, SealPlace::Entry);
        let active = state.active;
        append(&mut state.files[active], &entries, &data, align)?;
        let data_start = state.files[active].end - COMMIT_LEN - data_len;
        for entry in entries {
            state.index.apply(entry, data_start);
        }
        let end = state.files[active].end;
        let live = state.index.live_bytes();
        if end > COMPACT_MIN && end > live * COMPACT_FACTOR {
            // The batch is committed whatever happens here; a compaction that fails
            // leaves the active file as it was, and the next commit tries again.
            if let Err(err) = compact(&mut state, SealPlace::Entry) {
                web_sys::console::warn_1(&format!("sandtab: OPFS compaction failed: {err}").into());
            }
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
        let longest = extents.iter().map(|(_, e)| e.sealed_len()).max();
        let mut buffer = vec![0u8; longest.unwrap_or(0)];
        let state = self.state.borrow();
        let handle = &state.files[state.active].handle;
        for &(index, extent) in extents {
            let record = &mut buffer[..extent.sealed_len()];
            read_sealed_into(handle, &extent, record)?;
            visit(index, record)?;
        }
        Ok(())
    }

    /// Reads a blob that holds one file's contents from its first byte (`size` bytes)
    /// into a new array. Payloads go from the log straight into the array, as a raw read
    /// would, in one read per run of payloads that lie back to back (up to
    /// [`READ_RUN_MAX`]); a copy of each, still in the CPU's cache, is then checked
    /// against its seal. The chunks must add up to `size` before anything is allocated.
    pub fn read_blob(&self, blob: u64, size: u64) -> VfsResult<js_sys::Uint8Array> {
        let count = records::chunks_to_read(0, size);
        let extents = self.chunk_extents(blob, count);
        let corrupt =
            |what: String, why: String| VfsError::new(ErrorKind::Corrupt, what).with_detail(why);
        let held: u64 = extents.iter().map(|(_, e)| u64::from(e.payload().1)).sum();
        if extents.len() != count as usize || held != size {
            return Err(corrupt(
                format!("contents {blob}"),
                format!(
                    "holds {held} bytes in {} chunks, its inode says {size} bytes",
                    extents.len()
                ),
            ));
        }
        if let Some(expected) = extents
            .iter()
            .enumerate()
            .position(|(expected, (index, _))| *index as usize != expected)
        {
            return Err(corrupt(
                format!("contents {blob} chunk {}", extents[expected].0),
                "chunks missing before it".into(),
            ));
        }
        let out = crate::convert::new_byte_array(size)?;
        let longest = extents
            .iter()
            .map(|(_, e)| e.payload().1)
            .max()
            .unwrap_or(0);
        let mut payload = vec![0u8; longest as usize];
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
        let mut position = 0u32;
        let mut first = 0;
        while first < extents.len() {
            let (index, extent) = extents[first];
            let what = |index: u32| format!("contents {blob} chunk {index}");
            if extent.seal.is_none() {
                // A record from an older log: its seal is in front of its payload.
                let mut seal = [0u8; records::SEAL_LEN];
                if (extent.len as usize) < records::SEAL_LEN {
                    return Err(corrupt(what(index), "record is truncated".into()));
                }
                let (payload_at, len) = extent.payload();
                let place = out.subarray(position, position + len);
                read_into(handle, extent.at, &mut seal)?;
                read(&place, payload_at)?;
                place.copy_to(&mut payload[..len as usize]);
                records::check_seal(seal, &payload[..len as usize], &what(index))?;
                position += len;
                first += 1;
                continue;
            }
            // The run: the chunks from `first` whose payloads follow on in the log.
            let mut last = first;
            let mut run_len = extent.len;
            while let Some((_, next)) = extents.get(last + 1)
                && next.seal.is_some()
                && next.at
                    == extents[last]
                        .1
                        .at
                        .saturating_add(u64::from(extents[last].1.len))
                && let Some(longer) = run_len.checked_add(next.len)
                && longer <= READ_RUN_MAX
            {
                run_len = longer;
                last += 1;
            }
            read(&out.subarray(position, position + run_len), extent.at)?;
            for &(index, extent) in &extents[first..=last] {
                let len = extent.len;
                out.subarray(position, position + len)
                    .copy_to(&mut payload[..len as usize]);
                let seal = extent.seal.unwrap_or_default();
                records::check_seal(seal, &payload[..len as usize], &what(index))?;
                position += len;
            }
            first = last + 1;
        }
        Ok(out)
    }

    /// Blob `blob`'s chunks `0..count` in the log, by index.
    fn chunk_extents(&self, blob: u64, count: u32) -> Vec<(u32, Extent)> {
        self.state
            .borrow()
            .index
            .chunks
            .range((blob, 0)..(blob, count))
            .map(|(&(_, index), &extent)| (index, extent))
            .collect()
    }

    fn read_extent(&self, extent: Extent) -> VfsResult<Vec<u8>> {
        let state = self.state.borrow();
        read_sealed(&state.files[state.active].handle, &extent)
    }
}

/// Writes every live record into the idle file as one batch under the next generation;
/// once that is flushed and committed it becomes the active file.
fn compact(state: &mut State, seals: SealPlace) -> VfsResult<()> {
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
        let record = read_sealed(&state.files[active].handle, extent)?;
        batch
            .put_chunks
            .push((blob, index, records::ChunkRecord::from_sealed(record)));
    }
    for (&id, extent) in &state.index.snapshots {
        let record = read_sealed(&state.files[active].handle, extent)?;
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
    let (entries, data, data_len, align) = encode(&batch, seals);
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
        let extents = self.chunk_extents(blob, u32::MAX);
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
        let extents = self.chunk_extents(blob, count);
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
        .map(|extent| extent.payload())
        .collect())
}

/// The size and generation of the log file with the higher generation in its header,
/// read without replaying the log (which a test may have made unreadable).
pub async fn log_size_for_test(name: &str) -> VfsResult<(u64, u64)> {
    let handles = open_logs(&storage_manager()?, name).await?;
    let mut newest = (0, 0);
    for handle in &handles {
        let generation = read_exact(handle, 8, 8)
            .ok()
            .and_then(|bytes| bytes.try_into().ok())
            .map_or(0, u64::from_le_bytes);
        if generation >= newest.1 {
            newest = (size(handle)?, generation);
        }
    }
    handles.iter().for_each(FileSystemSyncAccessHandle::close);
    Ok(newest)
}

/// Compacts the log now; with `older_layout`, large chunks' seals go in front of their
/// payloads, as older logs have them: for tests that such logs still read.
pub async fn compact_for_test(name: &str, older_layout: bool) -> VfsResult<()> {
    let store = OpfsStore::open(name).await?;
    let seals = if older_layout {
        SealPlace::BeforePayload
    } else {
        SealPlace::Entry
    };
    compact(&mut store.state.borrow_mut(), seals)
}
