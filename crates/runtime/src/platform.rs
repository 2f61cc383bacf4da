//! What a host gives a sandbox: clocks, the guests' host, the doors behind the gate and
//! its stores. The browser binding, Node, the CLI and the tests each have one.

use crate::config::StorageKind;
use crate::error::RuntimeResult;
use futures::future::LocalBoxFuture;
use sandtab_caps::Doors;
use sandtab_shell::GuestHost;
use sandtab_shell::replay::Tape;
use sandtab_vfs::Clock;
use sandtab_vfs::storage::Store;
use std::any::Any;
use std::sync::Arc;

/// A host of sandboxes.
pub trait Platform {
    /// The clock of the filesystem's times.
    fn clock(&self) -> Arc<dyn Clock>;

    /// Guests' clocks, random bytes and yielding.
    fn guest_host(&self) -> Arc<dyn GuestHost>;

    /// Where allowed tool calls, requests and `ui` actions go.
    fn doors(&self) -> Arc<dyn Doors>;

    /// Where files are kept when the options do not say.
    fn default_storage(&self) -> StorageKind {
        StorageKind::Memory
    }

    /// Opens (creating if new) the stored sandbox `name` kept in `kind`; `ENOTSUP` for
    /// a kind this host does not have.
    fn open_store<'a>(
        &'a self,
        kind: StorageKind,
        name: &'a str,
    ) -> LocalBoxFuture<'a, RuntimeResult<Arc<dyn Store>>>;

    /// Puts the shell interpreter's own clocks and random draws (which it reads from the
    /// platform, not through the sandbox) on `tape` while the returned value lives.
    fn shell_sources_on_tape(&self, _tape: Arc<Tape>) -> Option<Box<dyn Any>> {
        None
    }
}
