//! The IndexedDB backend: a sandbox's records in one database, `sandtab:<name>`, with
//! five object stores. Inode records are kept in pages of [`INODES_PER_PAGE`], so a
//! tree of 10,000 files opens with a few dozen reads, not 10,000. Reads go through
//! `indexed_db_futures`; a commit is one readwrite transaction over every store, issued
//! at once by `js/idb_commit.js` on a second connection and left to commit by itself, so
//! a request the browser refuses (its quota) aborts all of it: it lands whole or not at
//! all.

use indexed_db_futures::database::Database;
use indexed_db_futures::prelude::*;
use js_sys::{Array, Uint8Array};
use sandtab_vfs::storage::records::ChunkRecord;
use sandtab_vfs::storage::{Batch, BlobChunks, Store, StoreFuture, StoredState};
use sandtab_vfs::{ErrorKind, VfsError, VfsResult};
use send_wrapper::SendWrapper;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// The database schema version (object stores); the record format has its own version.
/// Version 1 kept one inode record per key (`inodes`); version 2 keeps pages of them
/// (`inode_pages`) and moves version-1 records over at its first commit.
const SCHEMA_VERSION: u8 = 2;
const META: &str = "meta";
/// Version 1's one record per inode, read (and emptied) for migration only.
const LEGACY_INODES: &str = "inodes";
const INODE_PAGES: &str = "inode_pages";
const CHUNKS: &str = "chunks";
const SNAPSHOTS: &str = "snapshots";
const ALL_STORES: [&str; 5] = [META, LEGACY_INODES, INODE_PAGES, CHUNKS, SNAPSHOTS];
/// Inodes `page * INODES_PER_PAGE ..` share one record: a flush rewrites the pages of
/// the inodes it changes (a few KiB each), an open reads every page.
pub const INODES_PER_PAGE: u64 = 256;
/// Chunk keys are `blob * CHUNKS_PER_BLOB + index`: one number, so a blob's chunks are
/// one key range. 4096 chunks of 256 KiB cover the 1 GiB file size limit.
const CHUNKS_PER_BLOB: f64 = 4096.0;

/// A sandbox stored in IndexedDB.
#[derive(Debug)]
pub struct IdbStore {
    /// `None` only while being dropped (closing takes the connection by value).
    db: Option<SendWrapper<Database>>,
    name: String,
    /// The stored inode records, as last loaded or committed: a flush must rewrite
    /// whole pages, so it needs the records it does not change.
    inodes: Mutex<Option<InodeTable>>,
    /// A second connection, for commits (see `js/idb_commit.js`).
    writer: Option<SendWrapper<JsValue>>,
    committing: AtomicBool,
}

/// Marks a commit in progress for as long as it lives.
struct CommitGuard<'a>(&'a AtomicBool);

impl<'a> CommitGuard<'a> {
    fn take(flag: &'a AtomicBool) -> VfsResult<Self> {
        if flag.swap(true, Ordering::AcqRel) {
            return Err(VfsError::new(ErrorKind::Busy, "/")
                .with_detail("another save of this sandbox is still running"));
        }
        Ok(Self(flag))
    }
}

impl Drop for CommitGuard<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

#[derive(Debug, Default)]
struct InodeTable {
    records: BTreeMap<u64, Vec<u8>>,
    /// The stored superblock and snapshot index, to put back after a partial commit.
    superblock: Option<Vec<u8>>,
    snapshot_index: Option<Vec<u8>>,
    /// Version-1 records are still stored one per key (moved at the next commit).
    legacy: bool,
}

/// A page: for each inode, its number (u64), its record's length (u32), little-endian,
/// then the sealed record (which carries its own checksum).
fn encode_page<'a>(records: impl Iterator<Item = (u64, &'a [u8])>) -> Vec<u8> {
    let mut page = Vec::new();
    for (ino, record) in records {
        page.extend_from_slice(&ino.to_le_bytes());
        page.extend_from_slice(&(record.len() as u32).to_le_bytes());
        page.extend_from_slice(record);
    }
    page
}

fn decode_page(number: u64, mut page: &[u8], into: &mut BTreeMap<u64, Vec<u8>>) -> VfsResult<()> {
    let bad = |why: &str| {
        VfsError::new(ErrorKind::Corrupt, "/")
            .with_detail(format!("IndexedDB inode page {number}: {why}"))
    };
    while !page.is_empty() {
        let (head, rest) = page
            .split_first_chunk::<12>()
            .ok_or_else(|| bad("truncated"))?;
        let ino = u64::from_le_bytes(head[..8].try_into().unwrap_or_default());
        let len = u32::from_le_bytes(head[8..].try_into().unwrap_or_default()) as usize;
        if ino / INODES_PER_PAGE != number {
            return Err(bad(&format!("holds inode {ino}, which belongs elsewhere")));
        }
        let record = rest.get(..len).ok_or_else(|| bad("truncated"))?;
        into.insert(ino, record.to_vec());
        page = &rest[len..];
    }
    Ok(())
}

/// The database name for a sandbox name.
pub fn database_name(sandbox: &str) -> String {
    format!("sandtab:{sandbox}")
}

/// Turns an IndexedDB failure into a filesystem error; the browser's quota refusal
/// (`QuotaExceededError`) becomes EDQUOT.
pub fn error_from_browser(what: &str, err: impl std::fmt::Display + std::fmt::Debug) -> VfsError {
    let text = format!("{err}");
    let debug = format!("{err:?}");
    let kind = if text.contains("QuotaExceeded") || debug.contains("QuotaExceeded") {
        ErrorKind::QuotaExceeded
    } else {
        ErrorKind::Io
    };
    let detail = if kind == ErrorKind::QuotaExceeded {
        format!("the browser's storage quota is full ({what}: QuotaExceededError)")
    } else {
        format!("IndexedDB {what}: {text}")
    };
    VfsError::new(kind, "/").with_detail(detail)
}

fn bytes(value: &[u8]) -> JsValue {
    Uint8Array::from(value).into()
}

/// A chunk record as one JS array (its seal, then its payload), copied once.
fn chunk_bytes(record: &ChunkRecord) -> JsValue {
    let (seal, payload) = record.parts();
    let array = Uint8Array::new_with_length(record.len() as u32);
    array.subarray(0, seal.len() as u32).copy_from(seal);
    array
        .subarray(seal.len() as u32, record.len() as u32)
        .copy_from(payload);
    array.into()
}

fn to_vec(value: &JsValue) -> VfsResult<Vec<u8>> {
    if !value.is_instance_of::<Uint8Array>() {
        return Err(VfsError::new(ErrorKind::Corrupt, "/")
            .with_detail("IndexedDB holds a record that is not bytes"));
    }
    Ok(Uint8Array::new(value).to_vec())
}

fn chunk_key(blob: u64, index: u32) -> f64 {
    blob as f64 * CHUNKS_PER_BLOB + f64::from(index)
}

fn blob_range(blob: u64) -> std::ops::RangeInclusive<f64> {
    chunk_key(blob, 0)..=chunk_key(blob, 0) + CHUNKS_PER_BLOB - 1.0
}

impl IdbStore {
    /// Opens (creating if needed) the database of sandbox `name`. A database created by a
    /// newer build (a higher schema version) is refused with ENOTSUP.
    pub async fn open(name: &str) -> VfsResult<Self> {
        let db = Database::open(&database_name(name))
            .with_version(SCHEMA_VERSION)
            .with_on_upgrade_needed(|_event, db| {
                let existing: Vec<String> = db.object_store_names().collect();
                for store in ALL_STORES {
                    if !existing.iter().any(|name| name == store) {
                        db.create_object_store(store).build()?;
                    }
                }
                Ok(())
            })
            .await
            .map_err(|err| {
                let text = format!("{err:?}");
                if text.contains("VersionError") {
                    VfsError::new(ErrorKind::Unsupported, "/").with_detail(format!(
                        "IndexedDB database {} was written by a newer sandtab (schema newer than {SCHEMA_VERSION})",
                        database_name(name)
                    ))
                } else {
                    error_from_browser("open", err)
                }
            })?;
        let writer = JsFuture::from(open_for_writes(&database_name(name)))
            .await
            .map_err(|reason| error_from_browser("open", JsError(reason)))?;
        Ok(Self {
            db: Some(SendWrapper::new(db)),
            name: name.to_owned(),
            inodes: Mutex::new(None),
            writer: Some(SendWrapper::new(writer)),
            committing: AtomicBool::new(false),
        })
    }

    /// Deletes the database of sandbox `name` (nothing if there is none).
    pub async fn delete(name: &str) -> VfsResult<()> {
        Database::delete_by_name(&database_name(name))
            .map_err(|err| error_from_browser("delete", err))?
            .await
            .map_err(|err| error_from_browser("delete", err))
    }

    fn db(&self) -> VfsResult<&Database> {
        self.db.as_deref().ok_or_else(|| {
            VfsError::new(ErrorKind::Io, "/").with_detail("IndexedDB connection closed")
        })
    }

    async fn load_state(&self) -> VfsResult<StoredState> {
        let table = self.read_inodes().await?;
        let state = StoredState {
            superblock: table.superblock.clone(),
            snapshot_index: table.snapshot_index.clone(),
            inodes: table
                .records
                .iter()
                .map(|(ino, record)| (*ino, record.clone()))
                .collect(),
        };
        *self.inode_table() = Some(table);
        Ok(state)
    }

    /// The superblock, the snapshot index and every inode record: the pages, and any
    /// version-1 records not yet moved.
    async fn read_inodes(&self) -> VfsResult<InodeTable> {
        let err = |e| error_from_browser("read", e);
        let tx = self
            .db()?
            .transaction([META, INODE_PAGES, LEGACY_INODES])
            .build()
            .map_err(err)?;
        let meta = tx.object_store(META).map_err(err)?;
        let pages = tx.object_store(INODE_PAGES).map_err(err)?;
        let legacy = tx.object_store(LEGACY_INODES).map_err(err)?;
        // Issue every request before awaiting any: they run in one transaction.
        let page_keys = pages.get_all_keys::<f64>().primitive().map_err(err)?;
        let page_values = pages.get_all::<JsValue>().primitive().map_err(err)?;
        let legacy_keys = legacy.get_all_keys::<f64>().primitive().map_err(err)?;
        let legacy_values = legacy.get_all::<JsValue>().primitive().map_err(err)?;
        let superblock = meta
            .get::<JsValue, _, _>("superblock")
            .primitive()
            .map_err(err)?;
        let index = meta
            .get::<JsValue, _, _>("snapshots")
            .primitive()
            .map_err(err)?;
        let page_keys = page_keys.await.map_err(err)?;
        let page_values = page_values.await.map_err(err)?;
        let legacy_keys = legacy_keys.await.map_err(err)?;
        let legacy_values = legacy_values.await.map_err(err)?;
        let superblock = superblock.await.map_err(err)?;
        let index = index.await.map_err(err)?;
        let mut table = InodeTable {
            superblock: superblock.map(|v| to_vec(&v)).transpose()?,
            snapshot_index: index.map(|v| to_vec(&v)).transpose()?,
            ..InodeTable::default()
        };
        for (key, value) in legacy_keys.zip(legacy_values) {
            let key = key.map_err(err)?;
            table
                .records
                .insert(key as u64, to_vec(&value.map_err(err)?)?);
            table.legacy = true;
        }
        for (key, value) in page_keys.zip(page_values) {
            let key = key.map_err(err)?;
            decode_page(
                key as u64,
                &to_vec(&value.map_err(err)?)?,
                &mut table.records,
            )?;
        }
        Ok(table)
    }

    fn inode_table(&self) -> std::sync::MutexGuard<'_, Option<InodeTable>> {
        self.inodes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    async fn load_blob(&self, blob: u64) -> VfsResult<Vec<(u32, Vec<u8>)>> {
        let err = |e| error_from_browser("read", e);
        let tx = self.db()?.transaction(CHUNKS).build().map_err(err)?;
        let chunks = tx.object_store(CHUNKS).map_err(err)?;
        let keys = chunks
            .get_all_keys::<f64>()
            .with_query(blob_range(blob))
            .primitive()
            .map_err(err)?;
        let values = chunks
            .get_all::<JsValue>()
            .with_query(blob_range(blob))
            .primitive()
            .map_err(err)?;
        let keys = keys.await.map_err(err)?;
        let values = values.await.map_err(err)?;
        let base = chunk_key(blob, 0);
        let mut out = Vec::new();
        for (key, value) in keys.zip(values) {
            let index = (key.map_err(err)? - base) as u32;
            out.push((index, to_vec(&value.map_err(err)?)?));
        }
        Ok(out)
    }

    /// Several blobs in one read transaction, one `get` per chunk (the chunk counts come
    /// from the file sizes): every request goes out before any is awaited.
    async fn load_blobs(&self, blobs: &[(u64, u32)]) -> VfsResult<Vec<BlobChunks>> {
        let err = |e| error_from_browser("read", e);
        let tx = self.db()?.transaction(CHUNKS).build().map_err(err)?;
        let chunks = tx.object_store(CHUNKS).map_err(err)?;
        let mut requests = Vec::new();
        for &(blob, count) in blobs {
            let mut gets = Vec::with_capacity(count as usize);
            for index in 0..count {
                let get = chunks
                    .get::<JsValue, _, _>(chunk_key(blob, index))
                    .primitive()
                    .map_err(err)?;
                gets.push((index, get));
            }
            requests.push(gets);
        }
        let mut all = Vec::with_capacity(blobs.len());
        for gets in requests {
            let mut out = Vec::with_capacity(gets.len());
            for (index, get) in gets {
                if let Some(value) = get.await.map_err(err)? {
                    out.push((index, to_vec(&value)?));
                }
            }
            all.push(out);
        }
        Ok(all)
    }

    async fn all_blob_ids(&self) -> VfsResult<Vec<u64>> {
        let err = |e| error_from_browser("read", e);
        let tx = self.db()?.transaction(CHUNKS).build().map_err(err)?;
        let chunks = tx.object_store(CHUNKS).map_err(err)?;
        let keys = chunks
            .get_all_keys::<f64>()
            .primitive()
            .map_err(err)?
            .await
            .map_err(err)?;
        let mut ids = Vec::new();
        for key in keys {
            let blob = (key.map_err(err)? / CHUNKS_PER_BLOB).floor() as u64;
            if ids.last() != Some(&blob) {
                ids.push(blob);
            }
        }
        Ok(ids)
    }

    async fn load_snapshot(&self, id: u64) -> VfsResult<Option<Vec<u8>>> {
        let err = |e| error_from_browser("read", e);
        let tx = self.db()?.transaction(SNAPSHOTS).build().map_err(err)?;
        let snapshots = tx.object_store(SNAPSHOTS).map_err(err)?;
        let value = snapshots
            .get::<JsValue, _, _>(id as f64)
            .primitive()
            .map_err(err)?
            .await
            .map_err(err)?;
        value.map(|v| to_vec(&v)).transpose()
    }

    async fn write(&self, batch: Batch) -> VfsResult<()> {
        // A commit rebuilds pages from the records stored before it: two at once would
        // lose one's records. The worker runs them one at a time; make sure.
        let _one_at_a_time = CommitGuard::take(&self.committing)?;
        // Pages are rewritten whole, so the records they keep must be known first.
        if self.inode_table().is_none() {
            let table = self.read_inodes().await?;
            *self.inode_table() = Some(table);
        }
        let pages = page_writes(
            self.inode_table()
                .as_ref()
                .unwrap_or(&InodeTable::default()),
            &batch,
        );
        // Deletions first, then metadata, then contents. Firefox (153) keeps the requests
        // that come after one the quota refuses, though the transaction aborts: with this
        // order what it keeps can only be contents nothing refers to yet, or metadata,
        // which `undo_partial_commit` puts back.
        let ops = Ops::default();
        if pages.legacy_moved {
            ops.clear(LEGACY_INODES);
        }
        for blob in &batch.delete_blobs {
            let range = blob_range(*blob);
            ops.delete_range(CHUNKS, *range.start(), *range.end());
        }
        for id in &batch.delete_snapshots {
            ops.delete(SNAPSHOTS, (*id as f64).into());
        }
        for (number, page) in &pages.changed {
            if page.is_none() {
                ops.delete(INODE_PAGES, (*number as f64).into());
            }
        }
        if let Some(superblock) = &batch.superblock {
            ops.put(META, "superblock".into(), bytes(superblock));
        }
        if let Some(index) = &batch.snapshot_index {
            ops.put(META, "snapshots".into(), bytes(index));
        }
        for (number, page) in &pages.changed {
            if let Some(page) = page {
                ops.put(INODE_PAGES, (*number as f64).into(), bytes(page));
            }
        }
        for (blob, index, record) in &batch.put_chunks {
            ops.put(CHUNKS, chunk_key(*blob, *index).into(), chunk_bytes(record));
        }
        for (id, record) in &batch.put_snapshots {
            ops.put(SNAPSHOTS, (*id as f64).into(), bytes(record));
        }
        if let Err(reason) = self.commit_ops(ops).await {
            let failure = error_from_browser("write", JsError(reason));
            return Err(match self.undo_partial_commit(&batch, &pages).await {
                Ok(()) => failure,
                Err(undo) => VfsError::new(failure.kind(), "/").with_detail(format!(
                    "{}; putting back what the browser kept of it failed too: {}",
                    failure.detail().unwrap_or_default(),
                    undo.detail().unwrap_or_default()
                )),
            });
        }
        if let Some(table) = self.inode_table().as_mut() {
            table.apply(&batch);
        }
        Ok(())
    }

    async fn commit_ops(&self, ops: Ops) -> Result<(), JsValue> {
        let stores: Array = ALL_STORES.iter().map(|s| JsValue::from(*s)).collect();
        let writer = self
            .writer
            .as_deref()
            .ok_or_else(|| JsValue::from_str("IndexedDB connection closed"))?;
        JsFuture::from(commit_batch(writer, &stores, &ops.0))
            .await
            .map(drop)
    }

    /// After a refused commit, makes the database what it was before it, whatever the
    /// browser kept. First the batch's new contents go, in a transaction of deletions
    /// only (the quota never refuses those; a put in it could make Firefox keep the
    /// put and drop the deletions). Then the metadata it wrote is put back from the
    /// copy this store keeps. Its own deletions came before anything the quota can
    /// refuse, so the browser never keeps them. Should the second step fail, the
    /// changes are still journaled and the next save rewrites the same pages and the
    /// superblock.
    async fn undo_partial_commit(&self, batch: &Batch, pages: &PageWrites) -> VfsResult<()> {
        let undo = |reason| error_from_browser("undo", JsError(reason));
        let fresh = Ops::default();
        for (blob, index, _) in &batch.put_chunks {
            fresh.delete(CHUNKS, chunk_key(*blob, *index).into());
        }
        for (id, _) in &batch.put_snapshots {
            fresh.delete(SNAPSHOTS, (*id as f64).into());
        }
        self.commit_ops(fresh).await.map_err(undo)?;
        let restore = Ops::default();
        {
            let guard = self.inode_table();
            let table = guard.as_ref().ok_or_else(closed)?;
            let put_back = |key: &str, old: &Option<Vec<u8>>| match old {
                Some(record) => restore.put(META, key.into(), bytes(record)),
                None => restore.delete(META, key.into()),
            };
            if batch.superblock.is_some() {
                put_back("superblock", &table.superblock);
            }
            if batch.snapshot_index.is_some() {
                put_back("snapshots", &table.snapshot_index);
            }
            for (number, _) in &pages.changed {
                match table.page(*number) {
                    Some(page) => restore.put(INODE_PAGES, (*number as f64).into(), bytes(&page)),
                    None => restore.delete(INODE_PAGES, (*number as f64).into()),
                }
            }
        }
        self.commit_ops(restore).await.map_err(undo)
    }
}

/// The requests of one commit, for `js/idb_commit.js`.
#[derive(Default)]
struct Ops(Array);

impl Ops {
    fn push(&self, store: &str, kind: &str, a: JsValue, b: JsValue) {
        self.0
            .push(&Array::of4(&store.into(), &kind.into(), &a, &b));
    }
    fn put(&self, store: &str, key: JsValue, value: JsValue) {
        self.push(store, "put", key, value);
    }
    fn delete(&self, store: &str, key: JsValue) {
        self.push(store, "delete", key, JsValue::UNDEFINED);
    }
    fn delete_range(&self, store: &str, low: f64, high: f64) {
        self.push(store, "deleteRange", low.into(), high.into());
    }
    fn clear(&self, store: &str) {
        self.push(store, "clear", JsValue::UNDEFINED, JsValue::UNDEFINED);
    }
}

/// A browser error value, for messages: its name and message.
struct JsError(JsValue);

impl std::fmt::Display for JsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let field = |key: &str| {
            js_sys::Reflect::get(&self.0, &key.into())
                .ok()
                .and_then(|v| v.as_string())
                .unwrap_or_default()
        };
        match (field("name"), field("message")) {
            (name, message) if !name.is_empty() => write!(f, "{name}: {message}"),
            _ => write!(f, "{:?}", self.0),
        }
    }
}

impl std::fmt::Debug for JsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

fn closed() -> VfsError {
    VfsError::new(ErrorKind::Io, "/").with_detail("IndexedDB connection closed")
}

#[wasm_bindgen(module = "/src/js/idb_commit.js")]
extern "C" {
    #[wasm_bindgen(js_name = openForWrites)]
    fn open_for_writes(name: &str) -> js_sys::Promise;
    #[wasm_bindgen(js_name = commitBatch)]
    fn commit_batch(db: &JsValue, stores: &Array, ops: &Array) -> js_sys::Promise;
    #[wasm_bindgen(js_name = closeConnection)]
    fn close_connection(db: &JsValue);
}

/// The inode pages a batch changes.
#[derive(Debug, Default)]
struct PageWrites {
    /// Page number and its new contents, `None` for a page left empty.
    changed: Vec<(u64, Option<Vec<u8>>)>,
    /// Every record now lives in a page: empty the version-1 store.
    legacy_moved: bool,
}

/// The pages a batch rewrites, built from `table` (the records stored now) and the batch:
/// every page once when version-1 records are moved over.
fn page_writes(table: &InodeTable, batch: &Batch) -> PageWrites {
    let page_of = |ino: &u64| ino / INODES_PER_PAGE;
    let mut touched: BTreeSet<u64> = batch.delete_inodes.iter().map(page_of).collect();
    touched.extend(batch.put_inodes.iter().map(|(ino, _)| page_of(ino)));
    if batch.clear_inodes || table.legacy {
        touched.extend(table.records.keys().map(page_of));
    }
    let deleted: BTreeSet<u64> = batch.delete_inodes.iter().copied().collect();
    let put: BTreeMap<u64, &[u8]> = batch
        .put_inodes
        .iter()
        .map(|(ino, record)| (*ino, record.as_slice()))
        .collect();
    let changed = touched
        .into_iter()
        .map(|number| {
            let range = number * INODES_PER_PAGE..(number + 1).saturating_mul(INODES_PER_PAGE);
            let mut records: BTreeMap<u64, &[u8]> = BTreeMap::new();
            if !batch.clear_inodes {
                records.extend(
                    table
                        .records
                        .range(range.clone())
                        .filter(|(ino, _)| !deleted.contains(ino))
                        .map(|(ino, record)| (*ino, record.as_slice())),
                );
            }
            records.extend(put.range(range).map(|(ino, record)| (*ino, *record)));
            let page = (!records.is_empty()).then(|| encode_page(records.into_iter()));
            (number, page)
        })
        .collect();
    PageWrites {
        changed,
        legacy_moved: table.legacy,
    }
}

impl InodeTable {
    /// Page `number` as stored, if it holds any record.
    fn page(&self, number: u64) -> Option<Vec<u8>> {
        let first = number * INODES_PER_PAGE;
        let mut records = self
            .records
            .range(first..first.saturating_add(INODES_PER_PAGE))
            .map(|(ino, record)| (*ino, record.as_slice()))
            .peekable();
        records.peek().is_some().then(|| encode_page(records))
    }

    /// The records once a batch has been committed.
    fn apply(&mut self, batch: &Batch) {
        if let Some(superblock) = &batch.superblock {
            self.superblock = Some(superblock.clone());
        }
        if let Some(index) = &batch.snapshot_index {
            self.snapshot_index = Some(index.clone());
        }
        if batch.clear_inodes {
            self.records.clear();
        }
        for ino in &batch.delete_inodes {
            self.records.remove(ino);
        }
        for (ino, record) in &batch.put_inodes {
            self.records.insert(*ino, record.clone());
        }
        self.legacy = false;
    }
}

impl Drop for IdbStore {
    /// Closes the connection, so the database can be deleted or upgraded afterwards
    /// (an open connection blocks both).
    fn drop(&mut self) {
        if let Some(db) = self.db.take()
            && db.valid()
        {
            db.take().close();
        }
        if let Some(writer) = self.writer.take()
            && writer.valid()
        {
            close_connection(&writer.take());
        }
    }
}

impl Store for IdbStore {
    fn load(&self) -> StoreFuture<'_, StoredState> {
        Box::pin(SendWrapper::new(self.load_state()))
    }

    fn read_blob(&self, blob: u64) -> StoreFuture<'_, Vec<(u32, Vec<u8>)>> {
        Box::pin(SendWrapper::new(self.load_blob(blob)))
    }

    fn read_blobs<'a>(&'a self, blobs: &'a [(u64, u32)]) -> StoreFuture<'a, Vec<BlobChunks>> {
        Box::pin(SendWrapper::new(self.load_blobs(blobs)))
    }

    fn blob_ids(&self) -> StoreFuture<'_, Vec<u64>> {
        Box::pin(SendWrapper::new(self.all_blob_ids()))
    }

    fn read_snapshot(&self, id: u64) -> StoreFuture<'_, Option<Vec<u8>>> {
        Box::pin(SendWrapper::new(self.load_snapshot(id)))
    }

    fn commit(&self, batch: Batch) -> StoreFuture<'_, ()> {
        Box::pin(SendWrapper::new(self.write(batch)))
    }

    fn describe(&self) -> String {
        format!("IndexedDB database {}", database_name(&self.name))
    }
}
