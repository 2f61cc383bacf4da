//! The process's stdin for `sandtab sh`. A short input that ends at once is handed to
//! the script whole, as before; a long, endless or slow one is streamed as the script
//! reads it (`yes | sandtab sh -c 'head -n1'` must end, with bounded memory). Whole is
//! kept where it can be because the shell engine, once a guest program has taken a
//! streamed stdin, gives the commands after it none of what is left.
//!
//! A thread blocks in `read`, so the runtime's one thread never does (a script that
//! ignores its stdin must not wait for it), and the channel holds one chunk, so memory
//! stays bounded however much arrives.

use sandtab_shell::StdinSource;
use sandtab_wasi::BoxFuture;
use std::io::Read;
use std::time::Duration;
use tokio::sync::{Mutex, mpsc};

/// Bytes read from the process's stdin at a time.
const CHUNK: usize = 64 * 1024;
/// Up to this much, an input that ends is handed over whole.
const WHOLE_MAX: usize = 1 << 20;
/// An input that has not ended by then is streamed.
const WHOLE_WAIT: Duration = Duration::from_millis(300);

/// What the reading thread hands over: a chunk, or why reading failed.
type Chunk = Result<Vec<u8>, String>;

/// The script's stdin.
#[derive(Debug)]
pub enum ScriptStdin {
    Whole(Vec<u8>),
    Streamed(ProcessStdin),
}

/// Reads the start of the process's stdin and decides (see the module's comment).
pub async fn open() -> Result<ScriptStdin, String> {
    let mut chunks = spawn_reader();
    let mut start = Vec::new();
    let deadline = tokio::time::Instant::now() + WHOLE_WAIT;
    while start.len() < WHOLE_MAX {
        match tokio::time::timeout_at(deadline, chunks.recv()).await {
            Ok(Some(chunk)) => start.extend(chunk.map_err(|err| format!("reading stdin: {err}"))?),
            Ok(None) => return Ok(ScriptStdin::Whole(start)),
            Err(_elapsed) => break,
        }
    }
    Ok(ScriptStdin::Streamed(ProcessStdin {
        start: std::sync::Mutex::new(Some(start)),
        chunks: Mutex::new(chunks),
    }))
}

/// Starts the thread reading stdin. It ends at stdin's end or error, or when the
/// script no longer reads (the process then exits without waiting for it).
fn spawn_reader() -> mpsc::Receiver<Chunk> {
    let (sender, chunks) = mpsc::channel::<Chunk>(1);
    #[allow(clippy::disallowed_methods)] // The native CLI: threads are there.
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        loop {
            let mut buf = vec![0u8; CHUNK];
            let chunk = match stdin.read(&mut buf) {
                Ok(0) => return,
                Ok(n) => {
                    buf.truncate(n);
                    Ok(buf)
                }
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(err) => Err(err.to_string()),
            };
            let failed = chunk.is_err();
            if sender.blocking_send(chunk).is_err() || failed {
                return;
            }
        }
    });
    chunks
}

/// A streamed stdin: what was read while deciding, then the rest as it comes.
#[derive(Debug)]
pub struct ProcessStdin {
    start: std::sync::Mutex<Option<Vec<u8>>>,
    chunks: Mutex<mpsc::Receiver<Chunk>>,
}

impl StdinSource for ProcessStdin {
    fn read_chunk(&self) -> BoxFuture<'_, Result<Option<Vec<u8>>, String>> {
        Box::pin(async move {
            let start = self.start.lock().unwrap_or_else(|e| e.into_inner()).take();
            if let Some(start) = start.filter(|start| !start.is_empty()) {
                return Ok(Some(start));
            }
            self.chunks.lock().await.recv().await.transpose()
        })
    }
}
