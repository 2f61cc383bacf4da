//! `fsck`: reads every record of a stored sandbox and checks that it is whole: checksums,
//! the format version, one tree from the root, link counts, every file's contents (all
//! chunks, right size), and the snapshots' records. Reads only; changes nothing.

use super::records::{
    KindRecord, decode_chunks, decode_inode, decode_snapshot_body, decode_snapshot_index,
    decode_superblock,
};
use super::store::Store;
use crate::error::VfsResult;
use std::collections::{BTreeMap, BTreeSet};

/// What `fsck` found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FsckReport {
    pub inodes: u64,
    pub files: u64,
    pub directories: u64,
    /// File bytes read and checked.
    pub bytes_checked: u64,
    pub snapshots: u64,
    /// Each problem in a sentence; empty when the sandbox is sound.
    pub problems: Vec<String>,
}

impl FsckReport {
    pub fn is_clean(&self) -> bool {
        self.problems.is_empty()
    }

    /// A short human summary, like `fsck`'s last line.
    pub fn summary(&self) -> String {
        format!(
            "{} inodes ({} files, {} directories), {} bytes checked, {} snapshots: {}",
            self.inodes,
            self.files,
            self.directories,
            self.bytes_checked,
            self.snapshots,
            if self.is_clean() {
                "clean".to_owned()
            } else {
                format!("{} problems", self.problems.len())
            }
        )
    }
}

/// Checks everything in `store`. Fails only if the store cannot be read at all.
pub async fn fsck(store: &dyn Store) -> VfsResult<FsckReport> {
    let mut report = FsckReport::default();
    let state = store.load().await?;
    match &state.superblock {
        Some(sealed) => {
            if let Err(err) = decode_superblock(sealed) {
                report.problems.push(format!("superblock: {err}"));
                // Nothing else can be trusted in a format we do not know.
                return Ok(report);
            }
        }
        None if state.inodes.is_empty() => return Ok(report),
        None => report.problems.push("superblock missing".to_owned()),
    }
    let mut records = BTreeMap::new();
    for (ino, sealed) in &state.inodes {
        match decode_inode(*ino, sealed) {
            Ok(record) => {
                records.insert(*ino, record);
            }
            Err(err) => report.problems.push(err.to_string()),
        }
    }
    report.inodes = records.len() as u64;
    let mut names: BTreeMap<u64, u32> = BTreeMap::from([(1, 1)]);
    let mut used_blobs = BTreeSet::new();
    // Packs hold many files: read each blob once.
    let mut blob_cache: BTreeMap<u64, VfsResult<super::store::BlobChunks>> = BTreeMap::new();
    match records.get(&1) {
        Some(record) if matches!(record.kind, KindRecord::Directory { .. }) => {}
        Some(_) => report
            .problems
            .push("inode 1: the root is not a directory".to_owned()),
        None => report
            .problems
            .push("inode 1: the root directory is missing".to_owned()),
    }
    for (ino, record) in &records {
        match &record.kind {
            KindRecord::Directory { entries } => {
                report.directories += 1;
                for (name, child) in entries {
                    *names.entry(*child).or_insert(0) += 1;
                    if !records.contains_key(child) {
                        report.problems.push(format!(
                            "inode {ino}: entry {name:?} names inode {child}, which is not stored (or unreadable)"
                        ));
                    }
                }
            }
            KindRecord::File { size, blob, offset } => {
                report.files += 1;
                if *blob == 0 && *size > 0 {
                    report
                        .problems
                        .push(format!("inode {ino}: {size} bytes but no stored contents"));
                }
                if *blob != 0 {
                    used_blobs.insert(*blob);
                    if !blob_cache.contains_key(blob) {
                        let read = store.read_blob(*blob).await;
                        blob_cache.insert(*blob, read);
                    }
                    match &blob_cache[blob] {
                        Ok(chunks) => match decode_chunks(*blob, *offset, *size, chunks) {
                            Ok(data) => report.bytes_checked += data.len() as u64,
                            Err(err) => report.problems.push(format!("inode {ino}: {err}")),
                        },
                        Err(err) => report.problems.push(format!("inode {ino}: {err}")),
                    }
                }
            }
            KindRecord::Symlink { .. } => report.files += 1,
        }
    }
    for (ino, record) in &records {
        let count = names.get(ino).copied().unwrap_or(0);
        let is_dir = matches!(record.kind, KindRecord::Directory { .. });
        if count == 0 {
            report
                .problems
                .push(format!("inode {ino}: stored but no directory names it"));
        } else if is_dir && count > 1 {
            report
                .problems
                .push(format!("inode {ino}: directory with {count} names"));
        } else if !is_dir && record.links != count {
            report.problems.push(format!(
                "inode {ino}: link count {} but {count} names",
                record.links
            ));
        }
    }
    if let Some(sealed) = &state.snapshot_index {
        match decode_snapshot_index(sealed) {
            Ok(index) => {
                report.snapshots = index.len() as u64;
                for snapshot in &index {
                    used_blobs.extend(snapshot.blobs.iter().copied());
                    match store.read_snapshot(snapshot.id).await? {
                        Some(body) => {
                            if let Err(err) = decode_snapshot_body(snapshot.id, &body) {
                                report.problems.push(err.to_string());
                            }
                        }
                        None => report
                            .problems
                            .push(format!("snapshot {}: listed but not stored", snapshot.id)),
                    }
                }
                let stored: BTreeSet<u64> = store.blob_ids().await?.into_iter().collect();
                for snapshot in &index {
                    for blob in &snapshot.blobs {
                        if !stored.contains(blob) {
                            report.problems.push(format!(
                                "snapshot {}: contents {blob} are not stored",
                                snapshot.id
                            ));
                        }
                    }
                }
            }
            Err(err) => report.problems.push(err.to_string()),
        }
    }
    for blob in store.blob_ids().await? {
        if !used_blobs.contains(&blob) {
            report.problems.push(format!(
                "contents {blob}: stored but nothing refers to them"
            ));
        }
    }
    Ok(report)
}
