//! Text, as GNU coreutils, diffutils and patch handle it: `head`, `wc`, `cut`, `join`,
//! `seq`, `base64`, the checksums (`textutils`); `diff`; `patch`.

pub(crate) mod diff;
pub(crate) mod patch;
pub(crate) mod textutils;

use crate::Registry;
use sandtab_vfs::SandboxFs;
use std::sync::Arc;

pub(crate) fn register(builder: Registry, fs: &Arc<SandboxFs>) -> Registry {
    let builder = diff::register(builder, fs);
    let builder = patch::register(builder, fs);
    textutils::register(builder, fs)
}
