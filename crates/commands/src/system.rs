//! The system around the files: `date` (on the sandbox's clock); `uuidgen`, `shuf`
//! and `openssl rand` (on its random source); `help` (the shell's builtins).

pub(crate) mod date;
pub(crate) mod help;
pub(crate) mod openssl;
pub(crate) mod shuf;
pub(crate) mod uuidgen;

use crate::Registry;
use crate::entropy::Entropy;
use sandtab_vfs::SandboxFs;
use std::sync::Arc;

pub(crate) fn register(builder: Registry, fs: &Arc<SandboxFs>, entropy: &Arc<Entropy>) -> Registry {
    let builder = date::register(builder, fs);
    let builder = uuidgen::register(builder, fs, entropy);
    let builder = shuf::register(builder, fs, entropy);
    let builder = openssl::register(builder, fs, entropy);
    help::register(builder)
}
