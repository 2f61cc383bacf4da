//! Standard input written while an exec runs (a terminal's typed lines, a stream the
//! page reads). The caller numbers each stream and sends its chunks beside the exec, not
//! in the exec's queue: chunks may arrive before the exec starts, while it runs, or
//! after it ended (then they are dropped, as a pipe's reader that has gone drops them).
//! Streams are numbered in the order their execs were sent, and execs run in that
//! order, so "ended" is one number: the highest stream an exec has finished with.

use sandtab_shell::{BoxFuture, StdinRead, StdinSource};
use std::collections::{HashMap, VecDeque};
use std::future::poll_fn;
use std::sync::{Arc, Mutex};
use std::task::{Poll, Waker};

/// The most bytes written and not yet read: a writer past it is refused, so a caller
/// that does not wait for the reader cannot fill the worker's memory.
pub const MAX_PENDING_STDIN: usize = 16 << 20;

/// Every stream the sandbox knows of, by number.
#[derive(Debug, Default)]
pub(crate) struct StdinStreams {
    open: HashMap<u32, Arc<Pipe>>,
    /// Streams up to this one are finished: later chunks for them are dropped.
    finished_through: Option<u32>,
    /// The stream of the exec that is running.
    running: Option<u32>,
}

impl StdinStreams {
    fn finished(&self, stream: u32) -> bool {
        self.finished_through.is_some_and(|last| stream <= last)
    }

    /// The pipe of `stream`, made on first use (by a chunk or by its exec).
    pub(crate) fn pipe(&mut self, stream: u32) -> Option<Arc<Pipe>> {
        if self.finished(stream) {
            return None;
        }
        Some(self.open.entry(stream).or_default().clone())
    }

    /// Appends `bytes` to `stream`. Err when more than [`MAX_PENDING_STDIN`] would wait.
    pub(crate) fn write(&mut self, stream: u32, bytes: Vec<u8>) -> Result<(), String> {
        match self.pipe(stream) {
            Some(pipe) => pipe.push(bytes),
            None => Ok(()),
        }
    }

    /// Marks the end of `stream`'s input.
    pub(crate) fn end(&mut self, stream: u32) {
        if let Some(pipe) = self.pipe(stream) {
            pipe.close();
        }
    }

    /// The pipe of `stream` for its exec, which starts now.
    pub(crate) fn start(&mut self, stream: u32) -> Option<Arc<Pipe>> {
        self.running = Some(stream);
        self.pipe(stream)
    }

    /// Interrupts the running exec's reader (Ctrl-C) if it waits for input and takes
    /// interrupts; false if not (then the caller cancels the exec).
    pub(crate) fn interrupt_running(&mut self) -> bool {
        let pipe = self
            .running
            .and_then(|stream| self.open.get(&stream).cloned());
        pipe.is_some_and(|pipe| pipe.interrupt())
    }

    /// Ends the running exec's stream (a cancel: a reader waiting for input stops).
    pub(crate) fn end_running(&mut self) {
        if let Some(stream) = self.running {
            self.end(stream);
        }
    }

    /// The exec of `stream` has ended: drop its pipe; how many bytes it read.
    pub(crate) fn finish(&mut self, stream: u32) -> u64 {
        self.running = None;
        let read = self
            .open
            .remove(&stream)
            .map_or(0, |pipe| pipe.state().read);
        self.finished_through = Some(self.finished_through.map_or(stream, |n| n.max(stream)));
        let finished_through = self.finished_through;
        self.open
            .retain(|&other, _| finished_through.is_none_or(|last| other > last));
        read
    }
}

#[derive(Debug, Default)]
struct PipeState {
    chunks: VecDeque<Vec<u8>>,
    pending: usize,
    /// Bytes the reader has taken.
    read: u64,
    closed: bool,
    reader: Option<Waker>,
    /// The waiting reader takes an interrupt as an answer.
    reader_interruptible: bool,
    /// An interrupt for the waiting reader, not yet taken.
    interrupted: bool,
}

/// One stream's bytes between the writer and the script.
#[derive(Debug, Default)]
pub(crate) struct Pipe(Mutex<PipeState>);

impl Pipe {
    fn state(&self) -> std::sync::MutexGuard<'_, PipeState> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn push(&self, bytes: Vec<u8>) -> Result<(), String> {
        let mut state = self.state();
        if state.closed || bytes.is_empty() {
            return Ok(());
        }
        if state.pending + bytes.len() > MAX_PENDING_STDIN {
            return Err(format!(
                "stdin: more than {MAX_PENDING_STDIN} bytes written and not yet read; wait for the command to read them"
            ));
        }
        state.pending += bytes.len();
        state.chunks.push_back(bytes);
        if let Some(reader) = state.reader.take() {
            reader.wake();
        }
        Ok(())
    }

    fn close(&self) {
        let mut state = self.state();
        state.closed = true;
        if let Some(reader) = state.reader.take() {
            reader.wake();
        }
    }
}

impl Pipe {
    /// Ends the waiting reader's read with an interrupt, if one waits that takes it.
    fn interrupt(&self) -> bool {
        let mut state = self.state();
        if !state.reader_interruptible || state.closed {
            return false;
        }
        state.interrupted = true;
        if let Some(reader) = state.reader.take() {
            reader.wake();
        }
        true
    }

    fn poll_read(&self, cx: &mut std::task::Context<'_>, interruptible: bool) -> Poll<StdinRead> {
        let mut state = self.state();
        state.reader_interruptible = false;
        if let Some(chunk) = state.chunks.pop_front() {
            state.pending -= chunk.len();
            state.read += chunk.len() as u64;
            state.interrupted = false;
            return Poll::Ready(StdinRead::Chunk(chunk));
        }
        if std::mem::take(&mut state.interrupted) && interruptible {
            return Poll::Ready(StdinRead::Interrupt);
        }
        if state.closed {
            return Poll::Ready(StdinRead::End);
        }
        state.reader = Some(cx.waker().clone());
        state.reader_interruptible = interruptible;
        Poll::Pending
    }
}

impl StdinSource for Pipe {
    fn read_chunk(&self) -> BoxFuture<'_, Result<Option<Vec<u8>>, String>> {
        Box::pin(poll_fn(move |cx| {
            self.poll_read(cx, false).map(|read| match read {
                StdinRead::Chunk(chunk) => Ok(Some(chunk)),
                StdinRead::End | StdinRead::Interrupt => Ok(None),
            })
        }))
    }

    fn read_interruptible(&self) -> BoxFuture<'_, Result<StdinRead, String>> {
        Box::pin(poll_fn(move |cx| self.poll_read(cx, true).map(Ok)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_now(pipe: &Pipe) -> Poll<Result<Option<Vec<u8>>, String>> {
        let mut cx = std::task::Context::from_waker(Waker::noop());
        pipe.read_chunk().as_mut().poll(&mut cx)
    }

    #[test]
    fn chunks_before_the_exec_wait_for_it_and_late_ones_are_dropped() {
        let mut streams = StdinStreams::default();
        streams.write(1, b"early".to_vec()).unwrap();
        let pipe = streams.pipe(1).unwrap();
        assert_eq!(read_now(&pipe), Poll::Ready(Ok(Some(b"early".to_vec()))));
        assert_eq!(read_now(&pipe), Poll::Pending);
        streams.end(1);
        assert_eq!(read_now(&pipe), Poll::Ready(Ok(None)));
        assert_eq!(streams.finish(1), 5);
        streams.write(1, b"late".to_vec()).unwrap();
        assert!(streams.pipe(1).is_none());
        assert!(streams.open.is_empty());
    }

    #[test]
    fn the_end_says_how_much_was_read() {
        let mut streams = StdinStreams::default();
        let pipe = streams.start(3).unwrap();
        streams.write(3, b"read\n".to_vec()).unwrap();
        assert_eq!(read_now(&pipe), Poll::Ready(Ok(Some(b"read\n".to_vec()))));
        streams.write(3, b"ls\n".to_vec()).unwrap();
        assert_eq!(streams.finish(3), 5);
    }

    #[test]
    fn a_writer_that_never_waits_is_refused_past_the_bound() {
        let mut streams = StdinStreams::default();
        streams.write(7, vec![0; MAX_PENDING_STDIN]).unwrap();
        let err = streams.write(7, vec![0; 1]).unwrap_err();
        assert!(err.contains("not yet read"), "{err}");
    }

    #[test]
    fn an_interrupt_reaches_only_a_reader_waiting_that_takes_it() {
        let mut streams = StdinStreams::default();
        let pipe = streams.start(4).unwrap();
        let mut cx = std::task::Context::from_waker(Waker::noop());
        // Nobody waits: the caller cancels instead.
        assert!(!streams.interrupt_running());
        // A reader that does not take interrupts (the shell's, a guest that did not ask).
        let mut plain = pipe.read_chunk();
        assert!(plain.as_mut().poll(&mut cx).is_pending());
        assert!(!streams.interrupt_running());
        drop(plain);
        // One that does: its read ends with the interrupt, and the stream goes on.
        let mut read = pipe.read_interruptible();
        assert!(read.as_mut().poll(&mut cx).is_pending());
        assert!(streams.interrupt_running());
        assert_eq!(
            read.as_mut().poll(&mut cx),
            Poll::Ready(Ok(StdinRead::Interrupt))
        );
        streams.write(4, b"next\n".to_vec()).unwrap();
        assert_eq!(
            pipe.read_interruptible().as_mut().poll(&mut cx),
            Poll::Ready(Ok(StdinRead::Chunk(b"next\n".to_vec())))
        );
        // An ended stream is not interrupted.
        streams.end(4);
        assert!(!streams.interrupt_running());
    }
}
