//! Files and directories, as GNU coreutils and `file` handle them: `cp`, `mv`, `rm`,
//! `mkdir`, `rmdir`, `ln`, `chmod`, `touch` (`fileops`); `ls`; `stat`; `df`; `file`;
//! `basename`, `dirname`, `readlink`, `realpath` (`paths`).

pub(crate) mod df;
pub(crate) mod file_type;
pub(crate) mod fileops;
pub(crate) mod ls;
pub(crate) mod paths;
pub(crate) mod stat;

use crate::Registry;
use sandtab_vfs::SandboxFs;
use std::sync::Arc;

pub(crate) fn register(builder: Registry, fs: &Arc<SandboxFs>) -> Registry {
    let builder = df::register(builder, fs);
    let builder = ls::register(builder, fs);
    let builder = file_type::register(builder, fs);
    let builder = stat::register(builder, fs);
    let builder = paths::register(builder, fs);
    fileops::register(builder, fs)
}
