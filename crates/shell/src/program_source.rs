//! Where an installed program's module comes from: given at once, or still on its way
//! (the page downloads CPython in the background). Its names are commands from the
//! start; only a command that runs it waits for the bytes, and every other command
//! runs at once.

use std::future::poll_fn;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Poll, Waker};

/// A program's module, or the promise of one.
#[derive(Debug)]
pub struct ProgramSource {
    state: Mutex<State>,
    /// Commands waiting for the module now (the page shows them the download).
    waiters: AtomicUsize,
}

#[derive(Debug)]
enum State {
    Waiting(Vec<Waker>),
    Ready(Arc<Vec<u8>>),
    /// It will not come (the download failed): why.
    Failed(String),
}

impl ProgramSource {
    /// A module given now.
    pub fn ready(module: Arc<Vec<u8>>) -> Arc<Self> {
        Arc::new(Self {
            state: Mutex::new(State::Ready(module)),
            waiters: AtomicUsize::new(0),
        })
    }

    /// A module that [`ProgramSource::provide`] gives later.
    pub fn waiting() -> Arc<Self> {
        Arc::new(Self {
            state: Mutex::new(State::Waiting(Vec::new())),
            waiters: AtomicUsize::new(0),
        })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The module has come: commands waiting for it go on. Once only: a source that
    /// has its module (or failed) keeps it.
    pub fn provide(&self, module: Arc<Vec<u8>>) {
        self.settle(State::Ready(module));
    }

    /// The module will not come, because of `reason`: commands waiting for it fail.
    pub fn fail(&self, reason: String) {
        self.settle(State::Failed(reason));
    }

    fn settle(&self, outcome: State) {
        let mut state = self.state();
        if let State::Waiting(wakers) = &mut *state {
            let wakers = std::mem::take(wakers);
            *state = outcome;
            drop(state);
            wakers.into_iter().for_each(Waker::wake);
        }
    }

    /// The module, if it is here.
    pub fn module(&self) -> Option<Arc<Vec<u8>>> {
        match &*self.state() {
            State::Ready(module) => Some(module.clone()),
            _ => None,
        }
    }

    /// Whether it is still on its way.
    pub fn is_waiting(&self) -> bool {
        matches!(&*self.state(), State::Waiting(_))
    }

    /// Whether a command is waiting for the module now.
    pub fn is_waited_for(&self) -> bool {
        self.waiters.load(Ordering::SeqCst) > 0
    }

    /// Waits for the module; `Err` with the reason it will not come.
    pub(crate) async fn wait(&self) -> Result<Arc<Vec<u8>>, String> {
        let _waiting = Waiter::new(&self.waiters);
        poll_fn(|cx| match &mut *self.state() {
            State::Ready(module) => Poll::Ready(Ok(module.clone())),
            State::Failed(reason) => Poll::Ready(Err(reason.clone())),
            State::Waiting(wakers) => {
                if !wakers.iter().any(|w| w.will_wake(cx.waker())) {
                    wakers.push(cx.waker().clone());
                }
                Poll::Pending
            }
        })
        .await
    }
}

/// Counts one waiting command for as long as it lives (a cancelled wait is dropped).
struct Waiter<'a>(&'a AtomicUsize);

impl<'a> Waiter<'a> {
    fn new(count: &'a AtomicUsize) -> Self {
        count.fetch_add(1, Ordering::SeqCst);
        Self(count)
    }
}

impl Drop for Waiter<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn poll_now<T>(future: impl std::future::Future<Output = T>) -> Poll<T> {
        let mut future = std::pin::pin!(future);
        future
            .as_mut()
            .poll(&mut std::task::Context::from_waker(Waker::noop()))
    }

    #[test]
    fn a_waiting_source_gives_its_module_once_provided_and_keeps_it() {
        let source = ProgramSource::waiting();
        assert!(poll_now(source.wait()).is_pending());
        source.provide(Arc::new(vec![1, 2]));
        source.fail("too late".into());
        assert_eq!(
            poll_now(source.wait()),
            Poll::Ready(Ok(Arc::new(vec![1, 2])))
        );
        assert!(!source.is_waiting());
    }

    #[test]
    fn a_failed_source_says_why() {
        let source = ProgramSource::waiting();
        source.fail("HTTP 404".into());
        assert_eq!(poll_now(source.wait()), Poll::Ready(Err("HTTP 404".into())));
        assert_eq!(source.module(), None);
    }

    #[test]
    fn a_source_knows_while_a_command_waits_for_it() {
        let source = ProgramSource::waiting();
        assert!(!source.is_waited_for());
        {
            let mut wait = std::pin::pin!(source.wait());
            let waker = Waker::noop();
            let mut cx = std::task::Context::from_waker(waker);
            assert!(wait.as_mut().poll(&mut cx).is_pending());
            assert!(source.is_waited_for());
        }
        // The wait was dropped (its command cancelled): nobody waits.
        assert!(!source.is_waited_for());
        let mut wait = std::pin::pin!(source.wait());
        let mut cx = std::task::Context::from_waker(Waker::noop());
        assert!(wait.as_mut().poll(&mut cx).is_pending());
        source.provide(Arc::new(vec![7]));
        assert!(wait.as_mut().poll(&mut cx).is_ready());
        assert!(!source.is_waited_for());
    }
}
