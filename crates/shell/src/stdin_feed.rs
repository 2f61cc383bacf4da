//! A script's standard input streamed as the script reads it. bashkit takes a script's
//! stdin whole (`ExecOptions::stdin`), so an endless one (`yes | sandtab sh -c 'head
//! -n1'`) would be read, and held, forever before the script ran. Instead the script
//! runs as the last stage of a pipeline whose first stage is [`StdinFeed`]: it copies
//! the source into bashkit's bounded pipe (4 KiB), waits while the pipe is full, and
//! stops when the script is gone, so memory stays bounded.
//!
//! "Gone" is seen two ways: a write to a pipe whose reader has ended fails, and the
//! script's group ends with [`FeedDone`], which stops a feed that is waiting for input
//! that may never come (a terminal nobody types into, a stream left open).

use bashkit::{Command, CommandContext, CommandStatus};
use sandtab_wasi::BoxFuture;
use std::future::poll_fn;
use std::sync::{Arc, Mutex};
use std::task::{Poll, Waker};

/// Where a streamed stdin comes from (the CLI: its own process's stdin).
pub trait StdinSource: Send + Sync {
    /// The next chunk, waiting for it; `None` at the end.
    fn read_chunk(&self) -> BoxFuture<'_, Result<Option<Vec<u8>>, String>>;

    /// Like [`StdinSource::read_chunk`], for a reader that takes an interrupt (Ctrl-C in
    /// a terminal) as an answer: a source that can be interrupted ends this read with
    /// [`StdinRead::Interrupt`] when one comes while it waits. By default, never.
    fn read_interruptible(&self) -> BoxFuture<'_, Result<StdinRead, String>> {
        Box::pin(async move {
            Ok(match self.read_chunk().await? {
                Some(chunk) => StdinRead::Chunk(chunk),
                None => StdinRead::End,
            })
        })
    }
}

/// What an interruptible read of a stdin source gave.
#[derive(Debug, PartialEq, Eq)]
pub enum StdinRead {
    Chunk(Vec<u8>),
    End,
    /// An interrupt came while the reader waited (nothing was read).
    Interrupt,
}

/// The names the feeding stage, the end marker and the status it keeps run under: not
/// ones a script would use.
pub(crate) const FEED_COMMAND: &str = "__sandtab_stdin_feed";
pub(crate) const DONE_COMMAND: &str = "__sandtab_stdin_done";
pub(crate) const STATUS_COMMAND: &str = "__sandtab_stdin_status";

/// `script` as the pipeline's last stage: a group, so that everything in the script
/// reads the one stream, opened on the script's first line so that line numbers stay.
/// With `lastpipe` the group runs in the session itself, not a subshell, so that what
/// the script sets (`cd`, variables, functions) stays for the next exec as without a
/// stream.
///
/// The feed must stop once the script has ended, or the pipeline would wait for input
/// nobody reads. The group ends with the marker (which keeps the script's status for
/// the group to end with); `exit` in the script's own shell (not a subshell) ends the
/// shell before that, so for the script's run `exit` is a function that calls the
/// marker first. An `exit` it leaves behind is removed before the next exec
/// ([`CLEANUP`]).
pub(crate) fn fed_script(script: &str) -> String {
    format!(
        "shopt -s lastpipe; exit() {{ local s=$?; [[ $BASH_SUBSHELL == 0 ]] && {DONE_COMMAND} --exit; builtin exit \"${{@:-$s}}\"; }}; \
         {FEED_COMMAND} | {{ {script}\n{DONE_COMMAND} $?; unset -f exit; {STATUS_COMMAND}; }}"
    )
}

/// Run after an exec whose group did not reach its end: removes the `exit` function.
pub(crate) const CLEANUP: &str = "unset -f exit";

/// Whether the script has ended, and the feed to wake when it does.
#[derive(Default)]
struct Ended {
    ended: bool,
    feed: Option<Waker>,
    /// The script's status, as the marker got it.
    status: i32,
    /// The script's group reached its end (and removed the `exit` function itself).
    group_ended: bool,
}

/// The feed, its end marker and the status command for one exec.
pub(crate) fn feed_and_marker(source: Arc<dyn StdinSource>) -> (StdinFeed, FeedDone, FeedStatus) {
    let ended = Arc::new(Mutex::new(Ended::default()));
    (
        StdinFeed {
            source: Mutex::new(Some(source)),
            ended: ended.clone(),
        },
        FeedDone {
            ended: ended.clone(),
        },
        FeedStatus { ended },
    )
}

impl FeedDone {
    /// Whether the script's group ran to its end. If not (`exit`, `set -e`, a syntax
    /// error), the `exit` function may still be defined: run [`CLEANUP`].
    pub(crate) fn group_ended(&self) -> bool {
        lock(&self.ended).group_ended
    }
}

/// The pipeline's first stage. Takes its source once: run again (by name, in the
/// script) it finds nothing.
pub(crate) struct StdinFeed {
    source: Mutex<Option<Arc<dyn StdinSource>>>,
    ended: Arc<Mutex<Ended>>,
}

/// Runs last in the script's group, or from `exit`: ends the feed, and keeps its
/// argument (the script's status).
#[derive(Clone)]
pub(crate) struct FeedDone {
    ended: Arc<Mutex<Ended>>,
}

/// Ends the group with the status the marker kept.
pub(crate) struct FeedStatus {
    ended: Arc<Mutex<Ended>>,
}

fn lock(ended: &Mutex<Ended>) -> std::sync::MutexGuard<'_, Ended> {
    ended.lock().unwrap_or_else(|e| e.into_inner())
}

impl StdinFeed {
    /// The next chunk of the source, or `Ok(None)` once the script has ended.
    async fn next_chunk(&self, source: &dyn StdinSource) -> Result<Option<Vec<u8>>, String> {
        let mut read = source.read_chunk();
        poll_fn(|cx| {
            if let Poll::Ready(chunk) = read.as_mut().poll(cx) {
                return Poll::Ready(chunk);
            }
            let mut ended = lock(&self.ended);
            if ended.ended {
                return Poll::Ready(Ok(None));
            }
            ended.feed = Some(cx.waker().clone());
            Poll::Pending
        })
        .await
    }
}

#[bashkit::async_trait]
impl Command for StdinFeed {
    async fn execute(&self, ctx: CommandContext<'_>) -> bashkit::Result<CommandStatus> {
        let source = self.source.lock().unwrap_or_else(|e| e.into_inner()).take();
        let Some(source) = source else {
            return Ok(CommandStatus::with_code(1));
        };
        loop {
            match self.next_chunk(source.as_ref()).await {
                Ok(Some(chunk)) => match ctx.stdout.write_all(&chunk).await {
                    Ok(()) => {}
                    // The script ended or closed its stdin: nothing more is wanted.
                    Err(bashkit::Error::Io(_)) => return Ok(CommandStatus::success()),
                    Err(other) => return Err(other),
                },
                Ok(None) => return Ok(CommandStatus::success()),
                Err(err) => {
                    let message = format!("sandtab: reading stdin: {err}\n");
                    let _ = ctx.stderr.write_all(message.as_bytes()).await;
                    return Ok(CommandStatus::with_code(1));
                }
            }
        }
    }
}

#[bashkit::async_trait]
impl Command for FeedDone {
    async fn execute(&self, ctx: CommandContext<'_>) -> bashkit::Result<CommandStatus> {
        let mut ended = lock(&self.ended);
        ended.ended = true;
        if let Some(feed) = ended.feed.take() {
            feed.wake();
        }
        match ctx.args.first().map(String::as_str) {
            Some("--exit") => {}
            code => {
                ended.group_ended = true;
                ended.status = code.and_then(|code| code.parse().ok()).unwrap_or(0);
            }
        }
        Ok(CommandStatus::success())
    }
}

#[bashkit::async_trait]
impl Command for FeedStatus {
    async fn execute(&self, _ctx: CommandContext<'_>) -> bashkit::Result<CommandStatus> {
        Ok(CommandStatus::with_code(lock(&self.ended).status))
    }
}
