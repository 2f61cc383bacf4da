//! The network, through the capability gate (the page grants origins; nothing else is
//! reached): `curl` and `wget`; `pip`, which installs pure-Python packages from an
//! index.

pub(crate) mod curl;
pub(crate) mod pip;

use crate::Registry;
use sandtab_caps::Gate;
use sandtab_vfs::SandboxFs;
use std::sync::Arc;

pub(crate) fn register(builder: Registry, fs: &Arc<SandboxFs>, gate: &Arc<Gate>) -> Registry {
    let builder = curl::register(builder, fs, gate);
    pip::register(builder, fs, gate)
}
