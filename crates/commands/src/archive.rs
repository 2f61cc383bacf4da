//! Archives and compression, as GNU tar and gzip make and read them: `tar`; `gzip`,
//! `gunzip`, `zcat`.

pub(crate) mod gzip;
pub(crate) mod tar;

use crate::Registry;
use sandtab_vfs::SandboxFs;
use std::sync::Arc;

pub(crate) fn register(builder: Registry, fs: &Arc<SandboxFs>) -> Registry {
    let builder = gzip::register(builder, fs);
    tar::register(builder, fs)
}
