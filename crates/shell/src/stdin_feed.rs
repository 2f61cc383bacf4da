//! A script's standard input streamed as the script reads it. bashkit takes a script's
//! stdin whole (`ExecOptions::stdin`), so an endless one (`yes | sandtab sh -c 'head
//! -n1'`) would be read, and held, forever before the script ran. Instead the script
//! runs as the last stage of a pipeline whose first stage is [`StdinFeed`]: it copies
//! the source into bashkit's bounded pipe (4 KiB), waits while the pipe is full, and
//! stops when the script is gone (a broken pipe), so memory stays bounded.

use bashkit::{Command, CommandContext, CommandStatus};
use sandtab_wasi::BoxFuture;
use std::sync::{Arc, Mutex};

/// Where a streamed stdin comes from (the CLI: its own process's stdin).
pub trait StdinSource: Send + Sync {
    /// The next chunk, waiting for it; `None` at the end.
    fn read_chunk(&self) -> BoxFuture<'_, Result<Option<Vec<u8>>, String>>;
}

/// The name the feeding stage runs under: not one a script would use.
pub(crate) const FEED_COMMAND: &str = "__sandtab_stdin_feed";

/// `script` as the pipeline's last stage: a group, so that everything in the script
/// reads the one stream, opened on the script's first line so that line numbers stay.
pub(crate) fn fed_script(script: &str) -> String {
    format!("{FEED_COMMAND} | {{ {script}\n}}")
}

/// The pipeline's first stage. Takes its source once: run again (by name, in the
/// script) it finds nothing.
pub(crate) struct StdinFeed {
    source: Mutex<Option<Arc<dyn StdinSource>>>,
}

impl StdinFeed {
    pub(crate) fn new(source: Arc<dyn StdinSource>) -> Self {
        Self {
            source: Mutex::new(Some(source)),
        }
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
            match source.read_chunk().await {
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
