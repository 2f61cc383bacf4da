//! File names: `realpath` and `readlink` (symlinks resolved one component at a time,
//! as the kernel does, so `link/..` is the link target's parent), `basename` and
//! `dirname` (GNU's rules for slashes and suffixes).

mod names;
mod readlink;
mod realpath;
mod resolve;
#[cfg(test)]
mod tests;

use crate::{Context, Registry};
use sandtab_vfs::SandboxFs;
use std::sync::Arc;

pub(crate) fn register(builder: Registry, fs: &Arc<SandboxFs>) -> Registry {
    builder
        .command("realpath", realpath::Realpath { fs: fs.clone() })
        .command("readlink", readlink::Readlink { fs: fs.clone() })
        .command("basename", names::Basename)
        .command("dirname", names::Dirname)
}

/// What a command line asks for, or why it stops early.
enum Parsed<T> {
    Run(T),
    Usage(String),
    Text(&'static str),
}

fn cwd_of(ctx: &Context<'_>) -> String {
    ctx.cwd.to_str().unwrap_or("/").to_owned()
}
