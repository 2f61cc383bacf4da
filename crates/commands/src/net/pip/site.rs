//! What is installed in site-packages: one `NAME-VERSION.dist-info` directory per
//! distribution (its `METADATA`, and `RECORD` listing its files), as
//! `importlib.metadata` reads them.

use super::wheel::Metadata;
use pep508_rs::PackageName;
use sandtab_vfs::{FileKind, SandboxFs, VfsPath};
use std::str::FromStr;

/// An installed distribution.
#[derive(Debug, Clone)]
pub(crate) struct Installed {
    pub meta: Metadata,
    pub dist_info: VfsPath,
}

impl Installed {
    pub fn key(&self) -> String {
        normalize(&self.meta.name)
    }
}

/// The normalized form of a project name (`Charset_Normalizer` -> `charset-normalizer`).
pub(crate) fn normalize(name: &str) -> String {
    PackageName::from_str(name)
        .map(|name| name.to_string())
        .unwrap_or_else(|_| name.to_ascii_lowercase())
}

/// Every distribution installed in `site`, by normalized name.
pub(crate) async fn installed(fs: &SandboxFs, site: &VfsPath) -> Vec<Installed> {
    let mut found = Vec::new();
    let Ok(entries) = fs.mem().read_dir(site) else {
        return found;
    };
    for entry in entries {
        if !entry.name.ends_with(".dist-info") {
            continue;
        }
        let Ok(dir) = site.join(&entry.name) else {
            continue;
        };
        let Ok(metadata) = dir.join("METADATA") else {
            continue;
        };
        if fs.load_for_read(&metadata).await.is_err() {
            continue;
        }
        let Ok(bytes) = fs.mem().read(&metadata) else {
            continue;
        };
        let meta = Metadata::parse(&String::from_utf8_lossy(&bytes));
        if !meta.name.is_empty() {
            found.push(Installed {
                meta,
                dist_info: dir,
            });
        }
    }
    found.sort_by_key(|dist| dist.key());
    found
}

/// Removes an installed distribution: the files its `RECORD` lists (only those inside
/// `site`), the directories left empty, and its `.dist-info`.
pub(crate) async fn remove(fs: &SandboxFs, site: &VfsPath, dist: &Installed) -> Result<(), String> {
    let mem = fs.mem();
    let record = dist
        .dist_info
        .join("RECORD")
        .map_err(|err| err.to_string())?;
    let mut dirs = Vec::new();
    if fs.load_for_read(&record).await.is_ok()
        && let Ok(bytes) = mem.read(&record)
    {
        for line in String::from_utf8_lossy(&bytes).lines() {
            let file = line.split(',').next().unwrap_or_default();
            let Ok(path) = site.join(file) else { continue };
            if file.is_empty() || !path.starts_with(site) || path == *site {
                continue;
            }
            if mem
                .lstat(&path)
                .is_ok_and(|meta| meta.kind != FileKind::Directory)
            {
                mem.remove_file(&path)
                    .map_err(|err| format!("{path}: {err}"))?;
            }
            if let Some(parent) = path.parent() {
                dirs.push(parent);
            }
        }
    }
    mem.remove_all(&dist.dist_info)
        .map_err(|err| format!("{}: {err}", dist.dist_info))?;
    // Deepest first, so a package's subdirectories go before it.
    dirs.sort_by_key(|dir| std::cmp::Reverse(dir.components().len()));
    dirs.dedup();
    for dir in dirs {
        let mut at = Some(dir);
        while let Some(dir) = at {
            if dir == *site || !dir.starts_with(site) {
                break;
            }
            let empty = mem
                .read_dir(&dir)
                .is_ok_and(|entries| entries.iter().all(|entry| entry.name == "__pycache__"));
            if !empty {
                break;
            }
            let _ = mem.remove_all(&dir);
            at = dir.parent();
        }
    }
    Ok(())
}
