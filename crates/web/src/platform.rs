//! The browser as a sandbox's platform: real clocks, `WebHost` for guests, the page's
//! doors, and IndexedDB or OPFS stores.

use crate::doors::WebDoors;
use crate::idb_store::IdbStore;
use crate::opfs_store::OpfsStore;
use crate::shell_sources::{self, RealClock};
use futures::future::LocalBoxFuture;
use sandtab_runtime::{Platform, RuntimeError, RuntimeResult, StorageKind};
use sandtab_shell::GuestHost;
use sandtab_shell::replay::Tape;
use sandtab_vfs::Clock;
use sandtab_vfs::storage::Store;
use std::any::Any;
use std::cell::RefCell;
use std::sync::Arc;
use wasm_bindgen::JsValue;

/// The browser worker's platform.
#[derive(Debug)]
pub struct WebPlatform {
    doors: Arc<WebDoors>,
    /// The first OPFS store opened (the sandbox's own), for its direct large-file reads.
    pub(crate) opfs: RefCell<Option<Arc<OpfsStore>>>,
    /// Guests run on the browser's engine (`guestTier: "engine"`), not wasmi.
    engine_tier: bool,
}

impl WebPlatform {
    pub fn new(doors: WebDoors, engine_tier: bool) -> Self {
        Self {
            doors: Arc::new(doors),
            opfs: RefCell::default(),
            engine_tier,
        }
    }
}

/// Whether this global scope (page or worker) has IndexedDB.
fn has_indexed_db() -> bool {
    js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("indexedDB"))
        .is_ok_and(|value| !value.is_undefined() && !value.is_null())
}

impl Platform for WebPlatform {
    fn clock(&self) -> Arc<dyn Clock> {
        Arc::new(RealClock)
    }

    fn guest_host(&self) -> Arc<dyn GuestHost> {
        Arc::new(crate::guest_host::WebHost::new(self.engine_tier))
    }

    fn doors(&self) -> Arc<dyn sandtab_caps::Doors> {
        self.doors.clone()
    }

    fn default_storage(&self) -> StorageKind {
        match has_indexed_db() {
            true => StorageKind::Indexeddb,
            false => StorageKind::Memory,
        }
    }

    fn open_store<'a>(
        &'a self,
        kind: StorageKind,
        name: &'a str,
    ) -> LocalBoxFuture<'a, RuntimeResult<Arc<dyn Store>>> {
        Box::pin(async move {
            Ok(match kind {
                StorageKind::Indexeddb => Arc::new(IdbStore::open(name).await?) as Arc<dyn Store>,
                StorageKind::Opfs => {
                    let store = Arc::new(OpfsStore::open(name).await?);
                    self.opfs.borrow_mut().get_or_insert_with(|| store.clone());
                    store
                }
                StorageKind::Memory => {
                    return Err(RuntimeError::unsupported("a memory sandbox has no store"));
                }
            })
        })
    }

    fn shell_sources_on_tape(&self, tape: Arc<Tape>) -> Option<Box<dyn Any>> {
        Some(Box::new(shell_sources::put_on(tape)))
    }
}
