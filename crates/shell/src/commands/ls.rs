//! (being written)

use bashkit::BashBuilder;
use sandtab_vfs::SandboxFs;
use std::sync::Arc;

pub(crate) fn register(builder: BashBuilder, _fs: &Arc<SandboxFs>) -> BashBuilder {
    builder
}
