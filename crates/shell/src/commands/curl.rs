//! `curl` and `wget` on the page's fetch, under the network policy (being written).

use bashkit::BashBuilder;
use sandtab_caps::Gate;
use sandtab_vfs::SandboxFs;
use std::sync::Arc;

pub(crate) fn register(builder: BashBuilder, _fs: &Arc<SandboxFs>, _gate: &Arc<Gate>) -> BashBuilder {
    builder
}
