//! sandtab's own commands: GNU's coreutils, diffutils, patch, tar, gzip, file, curl
//! and wget as agents know them, and the sandbox's own (`pip`, `tool`, `ui`). Each
//! works on the sandbox's filesystem directly (hard links, inode numbers, modes),
//! streams through the [`Command`] interface, and speaks GNU's messages and exit
//! statuses. The shell (`sandtab-shell`) registers them over its builtins of the same
//! name; nothing here depends on it.

// What the commands share.
mod calendar;
mod command;
mod entropy;
mod options;
mod printf;
mod util;
mod wildcard;

// The commands, by family.
mod archive;
mod doors;
mod files;
mod net;
mod system;
mod text;

#[cfg(test)]
mod testing;
#[cfg(test)]
mod tests;

pub use command::{
    Command, Context, InputStream, OutputStream, Registry, Result, ShellFile, ShellFiles, Status,
    StreamError,
};
pub use entropy::{Entropy, RandomSource};
pub use net::pip::{Pip, SITE_PACKAGES};

use sandtab_caps::Gate;
use sandtab_vfs::SandboxFs;
use std::sync::Arc;

/// All the commands, by name: `fs` is the sandbox they work on, `gate` the doors'
/// check, `entropy` where `uuidgen`, `shuf` and `openssl rand` draw random bytes.
pub fn all(fs: &Arc<SandboxFs>, gate: &Arc<Gate>, entropy: &Arc<Entropy>) -> Registry {
    let builder = Registry::default();
    let builder = system::register(builder, fs, entropy);
    let builder = net::register(builder, fs, gate);
    let builder = doors::register(builder, fs, gate);
    let builder = text::register(builder, fs);
    let builder = files::register(builder, fs);
    archive::register(builder, fs)
}

/// The granted tool `name` as a command of its own name (`NAME --key value` is
/// `tool NAME --key value`).
pub fn tool_by_name(gate: &Arc<Gate>, name: &str) -> impl Command + 'static {
    doors::tool::ToolCommand::by_name(gate, name)
}
