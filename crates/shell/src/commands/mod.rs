//! sandtab's own commands, for those that bashkit lacks or where its behaviour differs
//! from GNU's in ways agents trip over (the compatibility suite, `tests/compat`, says
//! which). Each works on the sandbox's filesystem directly (hard links, inode numbers,
//! modes), streams through bashkit's command I/O, and speaks GNU's messages and exit
//! statuses. Registered over bashkit's builtins of the same name.

mod calendar;
mod curl;
mod date;
mod df;
mod diff;
pub(crate) mod entropy;
mod file_type;
mod fileops;
mod gzip;
mod help;
mod ls;
mod openssl;
mod options;
mod patch;
mod paths;
pub(crate) mod pip;
mod shuf;
mod stat;
mod tar;
mod textutils;
mod tool;
mod ui;
mod util;
mod uuidgen;
mod wildcard;

use bashkit::{Bash, BashBuilder, BuiltinRegistry};
use sandtab_caps::Gate;
use sandtab_vfs::SandboxFs;
use std::sync::Arc;

/// Adds sandtab's own commands to a shell being built; `gate` is the doors' check.
/// `entropy` is where `uuidgen`, `shuf` and `openssl rand` draw random bytes.
pub(crate) fn register(
    builder: BashBuilder,
    fs: &Arc<SandboxFs>,
    gate: &Arc<Gate>,
    entropy: &Arc<entropy::Entropy>,
) -> BashBuilder {
    let builder = uuidgen::register(builder, fs, entropy);
    let builder = shuf::register(builder, fs, entropy);
    let builder = openssl::register(builder, fs, entropy);
    let builder = curl::register(builder, fs, gate);
    let builder = pip::register(builder, fs, gate);
    let builder = tool::register(builder, fs, gate);
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

/// Makes each granted tool a command of its own name, unless a command of that name
/// exists (then it is reachable as `tool NAME`).
pub(crate) fn register_tools(bash: &Bash, registry: &BuiltinRegistry, gate: &Arc<Gate>) {
    tool::register_own_names(bash, registry, gate);
}
