//! The page's other doors, through the capability gate: `tool` (and each granted tool
//! by its own name) and `ui` (HTML the page shows in a contained frame).

pub(crate) mod tool;
pub(crate) mod ui;

use crate::Registry;
use sandtab_caps::Gate;
use sandtab_vfs::SandboxFs;
use std::sync::Arc;

pub(crate) fn register(builder: Registry, fs: &Arc<SandboxFs>, gate: &Arc<Gate>) -> Registry {
    let builder = tool::register(builder, gate);
    ui::register(builder, fs, gate)
}
