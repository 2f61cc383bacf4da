//! sandtab's own commands: GNU's coreutils, diffutils, patch, tar, gzip, file, curl
//! and wget as agents know them, and the sandbox's own (`pip`, `tool`, `ui`). Each
//! works on the sandbox's filesystem directly (hard links, inode numbers, modes),
//! streams through the [`Command`] interface, and speaks GNU's messages and exit
//! statuses. The shell (`sandtab-shell`) registers them over its builtins of the same
//! name; nothing here depends on it.

mod calendar;
mod command;
mod curl;
mod date;
mod df;
mod diff;
mod entropy;
mod file_type;
mod fileops;
mod gzip;
mod help;
mod ls;
mod openssl;
mod options;
mod patch;
mod paths;
mod pip;
mod shuf;
mod stat;
mod tar;
mod textutils;
mod tool;
mod ui;
mod util;
mod uuidgen;
mod wildcard;

#[cfg(test)]
mod testing;

pub use command::{
    Command, Context, InputStream, OutputStream, Registry, Result, ShellFile, ShellFiles, Status,
    StreamError,
};
pub use entropy::{Entropy, RandomSource};
pub use pip::{Pip, SITE_PACKAGES};

use sandtab_caps::Gate;
use sandtab_vfs::SandboxFs;
use std::sync::Arc;

/// All the commands, by name: `fs` is the sandbox they work on, `gate` the doors'
/// check, `entropy` where `uuidgen`, `shuf` and `openssl rand` draw random bytes.
pub fn all(fs: &Arc<SandboxFs>, gate: &Arc<Gate>, entropy: &Arc<Entropy>) -> Registry {
    let builder = Registry::default();
    let builder = uuidgen::register(builder, fs, entropy);
    let builder = shuf::register(builder, fs, entropy);
    let builder = openssl::register(builder, fs, entropy);
    let builder = curl::register(builder, fs, gate);
    let builder = pip::register(builder, fs, gate);
    let builder = tool::register(builder, gate);
    let builder = ui::register(builder, fs, gate);
    let builder = date::register(builder, fs);
    let builder = df::register(builder, fs);
    let builder = diff::register(builder, fs);
    let builder = patch::register(builder, fs);
    let builder = ls::register(builder, fs);
    let builder = file_type::register(builder, fs);
    let builder = stat::register(builder, fs);
    let builder = paths::register(builder, fs);
    let builder = fileops::register(builder, fs);
    let builder = gzip::register(builder, fs);
    let builder = tar::register(builder, fs);
    let builder = help::register(builder);
    textutils::register(builder, fs)
}

/// The granted tool `name` as a command of its own name (`NAME --key value` is
/// `tool NAME --key value`).
pub fn tool_by_name(gate: &Arc<Gate>, name: &str) -> impl Command + 'static {
    tool::ToolCommand::by_name(gate, name)
}
