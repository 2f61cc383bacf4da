// Generated from crates/runtime/src/protocol.rs by `SANDTAB_BLESS=1 cargo test -p sandtab-runtime`.
// Do not edit: a test fails when this differs from what the Rust types generate.

export const PROTOCOL_VERSION = 2;

export type Count = number;

export type StorageKind = "indexeddb" | "opfs" | "memory";

export type GuestTier = "interpreter" | "engine";

export type ShellLimitsSpec = { maxCommands?: Count, maxLoopIterations?: Count, maxTotalLoopIterations?: Count, maxFunctionDepth?: Count, timeoutMs?: Count, maxOutputBytes?: Count, maxWrittenBytes?: Count, maxFileWriteBytes?: Count, };

export type GuestLimitsSpec = { fuel?: Count, memoryBytes?: Count, tableElements?: Count, instances?: Count, callDepth?: Count, deadlineMs?: Count, outputBytes?: Count, };

export type QuotaSpec = { maxBytes?: Count, maxEntries?: Count, maxFileSize?: Count, };

export type FileContents = string | Uint8Array;

export type MountSpec = { 
/**
 * An absolute path, not `/` or `/tmp`.
 */
path: string, 
/**
 * Paths relative to the mount point, and their contents.
 */
files: { [key in string]?: FileContents }, };

export type SandboxOptions = { 
/**
 * Which sandbox ("default"): its storage and its lock are per name.
 */
name?: string, 
/**
 * Where the files are kept; the host's default when left out.
 */
storage?: StorageKind, limits?: ShellLimitsSpec, guestLimits?: GuestLimitsSpec, quota?: QuotaSpec, mounts?: Array<MountSpec>, 
/**
 * Which engine runs guest programs: left out, the browser's engine where it has
 * JSPI, else the interpreter.
 */
guestTier?: GuestTier, 
/**
 * The capability document (see `sandtab-caps`).
 */
capabilities?: Record<string, unknown>, 
/**
 * Keep a recording of every operation.
 */
record?: boolean, 
/**
 * A recording (its object or its JSON text) to replay in a new memory sandbox.
 */
replay?: unknown, 
/**
 * A hand-off (`handoff` op; its object or JSON text) to resume in this new sandbox:
 * its files, sessions and, where not given here, its options.
 */
resume?: unknown, };

export type RuntimeError = { 
/**
 * `CAP_...` for a refusal at the gate, the errno name (`ENOENT`, `EDQUOT`, ...) for
 * a filesystem error, or one of [`RuntimeError`]'s own: `EINVAL` (bad input),
 * `EBUSY` (another operation holds the sandbox), `ENOTSUP`, `EPROTO` (a message of
 * another protocol version).
 */
code: string, 
/**
 * What went wrong, for a person.
 */
message: string, };

export type ExecRequest = { 
/**
 * The script (bash).
 */
script: string, 
/**
 * The session it runs in ("main" when left out), made on first use.
 */
session?: string, 
/**
 * Run in a new session dropped afterwards.
 */
fresh?: boolean, 
/**
 * The most bytes of each stream kept in the result.
 */
maxOutputBytes?: Count, 
/**
 * Guest limits for this exec only.
 */
guestLimits?: GuestLimitsSpec, 
/**
 * The script's standard input, whole: what its first command reads when nothing in
 * the script pipes into it (empty when left out).
 */
stdin?: Uint8Array, 
/**
 * Standard input written while the script runs, as stream number N
 * (`Sandbox::write_stdin`, `Sandbox::end_stdin`); not with `stdin`.
 */
stdinStream?: number, 
/**
 * The stream is a terminal typed into (with `stdinStream`): the script's own
 * commands see an empty stdin, and a program whose stdin is that one reads the
 * terminal and sees a terminal (`isatty`).
 */
tty?: boolean, 
/**
 * Environment variables for this exec only, exported; afterwards each is what it
 * was before.
 */
env?: { [key in string]?: string }, 
/**
 * The directory this exec starts in (absolute, or relative to the session's);
 * afterwards the session is back in its own.
 */
cwd?: string, 
/**
 * Wall-clock milliseconds for this exec, at most the sandbox's `timeoutMs`. The
 * host arms the timer when the exec starts and calls `Sandbox::time_out`.
 */
timeoutMs?: number, };

export type FileToWrite = { path: string, data: Uint8Array, };

export type FetchRequest = { url: string, method?: string, 
/**
 * Header names and values, in order.
 */
headers?: Array<[string, string]>, body?: Uint8Array, 
/**
 * Follow redirects (within what the policy allows); true when left out.
 */
follow?: boolean, };

export type UiRequest = { "action": "show", html: string, title?: string, } | { "action": "wait", timeoutMs?: number, } | { "action": "close" };

export type Op = { "op": "exec" } & ExecRequest | { "op": "callTool", name: string, args: string, } | { "op": "readFile", path: string, } | { "op": "writeFile", path: string, data: Uint8Array, parents?: boolean, } | { "op": "writeFiles", files: Array<FileToWrite>, parents?: boolean, } | { "op": "mkdir", path: string, parents?: boolean, } | { "op": "remove", path: string, recursive?: boolean, force?: boolean, } | { "op": "rename", from: string, to: string, } | { "op": "stat", path: string, } | { "op": "listDir", path: string, } | { "op": "usage" } | { "op": "info" } | { "op": "flush" } | { "op": "snapshot", label: string, } | { "op": "snapshots" } | { "op": "restore", id: number, } | { "op": "deleteSnapshot", id: number, } | { "op": "fork", newName: string, snapshotId?: number, } | { "op": "exportTar", path?: string, } | { "op": "importTar", data: Uint8Array, path?: string, } | { "op": "fsck" } | { "op": "closeSession", name: string, } | { "op": "sessionNames" } | { "op": "complete", before: string, session?: string, } | { "op": "isComplete", script: string, } | { "op": "readText", path: string, offset?: number, limit?: number, } | { "op": "writeText", path: string, content: string, } | { "op": "editFile", path: string, oldString: string, newString: string, replaceAll?: boolean, } | { "op": "fetch", request: FetchRequest, } | { "op": "ui", request: UiRequest, } | { "op": "recording" } | { "op": "replay" } | { "op": "handoff" } | { "op": "auditLog" } | { "op": "toolDefinitions", format: string, };

export type ExecResult = { stdout: Uint8Array, stderr: Uint8Array, exitCode: number, stdoutTruncated: boolean, stderrTruncated: boolean, 
/**
 * Every byte written to stdout, including any past the cap.
 */
stdoutTotal: number, stderrTotal: number, 
/**
 * What was cut, for a person (null when nothing was).
 */
stdoutNote: string | null, stderrNote: string | null, 
/**
 * Set when storage refused to save the command's changes.
 */
saveError: RuntimeError | null, 
/**
 * The engine the command's guest programs ran on; null when it ran none.
 */
guestTier: GuestTier | null, 
/**
 * In a terminal (`tty`): how many bytes of what was typed the command read; the
 * terminal gives the rest to its prompt as typed ahead (chunks that come after
 * the command ended never reach the runtime, so the writer counts from here).
 */
stdinRead?: number, 
/**
 * Whether the exec changed any file (names, metadata or contents).
 */
filesChanged: boolean, };

export type DirEntry = { name: string, 
/**
 * `file`, `dir` or `symlink`.
 */
kind: 'file' | 'dir' | 'symlink', size: number, 
/**
 * Milliseconds since the epoch, with a fraction.
 */
modified: number, };

export type FileStat = { 
/**
 * `file` or `dir` (symlinks are followed).
 */
kind: 'file' | 'dir', 
/**
 * Bytes of a file; 0 for a directory.
 */
size: number, 
/**
 * Permission bits (for example `0o644`, 420).
 */
mode: number, 
/**
 * Milliseconds since the epoch, with a fraction: the last change of the contents.
 */
modified: number, 
/**
 * Milliseconds since the epoch: when it was made.
 */
created: number, };

export type SnapshotEntry = { id: number, label: string, 
/**
 * Milliseconds since the epoch.
 */
created: number, files: number, bytes: number, };

export type FetchResponse = { status: number, statusText: string, headers: Array<[string, string]>, url: string, redirected: boolean, body: Uint8Array, };

export type Reply = { "reply": "exec" } & ExecResult | { "reply": "done" } | { "reply": "text", text: string, } | { "reply": "bytes", data: Uint8Array, } | { "reply": "count", count: number, } | { "reply": "flag", value: boolean, } | { "reply": "names", names: Array<string>, } | { "reply": "completion", word: string, candidates: Array<string>, } | { "reply": "entries", entries: Array<DirEntry>, } | { "reply": "stat" } & FileStat | { "reply": "usage", bytes: number, files: number, dirs: number, maxBytes: number, maxEntries: number, maxFileSize: number, } | { "reply": "info", name: string, storage: StorageKind, 
/**
 * The engine guest programs run on.
 */
guestTier: GuestTier, } | { "reply": "flushed", records: number, bytes: number, } | { "reply": "snapshot" } & SnapshotEntry | { "reply": "snapshots", snapshots: Array<SnapshotEntry>, } | { "reply": "imported", files: number, directories: number, symlinks: number, skipped: number, } | { "reply": "fsck", clean: boolean, summary: string, problems: Array<string>, inodes: number, files: number, bytesChecked: number, } | { "reply": "fetched" } & FetchResponse | { "reply": "uiEvent", event: string | null, } | { "reply": "json", value: unknown, };

export type Request = { 
/**
 * [`PROTOCOL_VERSION`] of the page that sent it.
 */
v: number, 
/**
 * The caller's id for the answer.
 */
id: number, 
/**
 * What is asked.
 */
op: Op, };
