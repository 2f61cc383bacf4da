// Public types of the sandtab package.

/** Limits of one shell `exec`. Every field is optional; see README for the defaults. */
export interface Limits {
  /** Commands one exec may run, builtins included (default 10,000,000). */
  maxCommands?: number;
  /** Iterations of any single loop (default 1,000,000). */
  maxLoopIterations?: number;
  /** Iterations of all loops of one exec together (default 10,000,000). */
  maxTotalLoopIterations?: number;
  /** Depth of nested function calls, `source` and subshells (default and maximum 16). */
  maxFunctionDepth?: number;
  /** Wall-clock time of one exec in milliseconds (default 120,000). */
  timeoutMs?: number;
  /** Bytes of stdout, and separately of stderr, kept in an exec's result (default
   * 1 MiB); past it the result is cut and says so (`stdoutNote`), while output still
   * streams to the callbacks. */
  maxOutputBytes?: number;
  /** Bytes of stdout, and separately of stderr, one exec may write in all, streamed and
   * counted (default 256 MiB); past it further output is dropped. */
  maxWrittenBytes?: number;
  /** Bytes one exec may write to files, by any command, redirection or guest program
   * (default 1 GiB); past it the write fails (EFBIG) and the exec ends with 126. */
  maxFileWriteBytes?: number;
}

/** Limits of each guest program (WebAssembly) a command runs. Running into one ends the
 * program with exit status 137 and a message naming the limit. */
export interface GuestLimits {
  /** wasmi fuel the program may use (default 10^15). Charged per block of instructions,
   * so not an instruction count: CPython's interpreter loop burns about 10^11 a second. */
  fuel?: number;
  /** Bytes each linear memory may grow to (default 1 GiB). */
  memoryBytes?: number;
  /** Elements each table may grow to (default 100,000). */
  tableElements?: number;
  /** Instances, memories and tables the program may create (default 16). */
  instances?: number;
  /** Nested calls (default 10,000); set when the sandbox is created, not per exec. */
  callDepth?: number;
  /** Wall-clock milliseconds, waiting included (default 600,000). */
  deadlineMs?: number;
  /** Bytes of stdout and stderr together (default 256 MiB). */
  outputBytes?: number;
}

/** A WebAssembly (WASI) program to install as commands, fetched by the worker. */
export interface ProgramSpec {
  /** The command names, for example `["python3", "python"]`. */
  names: string[];
  /** Where the module is (resolved against the page's address). The worker keeps a copy
   * in the browser's Cache Storage, so a reload does not fetch it again. */
  url: string;
  /** The module's SHA-256 in hex: a module that differs is refused. */
  sha256?: string;
}

/** Progress of a program being fetched and compiled. */
export interface ProgressEvent {
  /** The program's first command name. */
  program: string;
  /** `fetch` while bytes arrive, `compile`, then `ready`; `error` with `message`. */
  phase: 'fetch' | 'compile' | 'ready' | 'error';
  /** Bytes fetched so far. */
  loaded: number;
  /** Bytes in all, when the server says (0 if unknown). */
  total: number;
  message?: string;
  /** A command is waiting for this program (it runs once the program is ready); said
   * again when that changes. `<sandtab-terminal>` shows the download on its line. */
  waiting?: boolean;
}

/** What the sandbox's filesystem may hold. A write past a quota fails (EDQUOT or EFBIG)
 * and changes nothing. */
export interface Quota {
  /** Bytes in all files together (default 256 MiB). */
  maxBytes?: number;
  /** Files, directories and symlinks (default 100,000). */
  maxEntries?: number;
  /** Bytes in one file (default 128 MiB; never more than 1 GiB). */
  maxFileSize?: number;
}

/** A read-only directory the page gives the sandbox (a project snapshot, say). */
export interface ReadOnlyMount {
  /** Absolute path of the mount point; not `/` or `/tmp`. */
  path: string;
  /** Files below it: relative path to contents (a string is stored as UTF-8). */
  files: Record<string, string | Uint8Array>;
}

/** Where `/` is kept: `indexeddb` and `opfs` (the origin private file system, through
 * sync access handles in the worker) survive reloads; `memory` is gone with the worker. */
export type StorageKind = 'indexeddb' | 'opfs' | 'memory';

/** The engine guest programs run on: `engine`, the browser's own (many times faster;
 * metered so that every limit holds; it needs JSPI, in Chromium 137+ and Firefox 153+),
 * or `interpreter`, wasmi inside the runtime (everywhere). */
export type GuestTier = 'engine' | 'interpreter';

/** A constraint on a tool's arguments: one test on one argument (`arg` is its name or
 * a JSON Pointer such as `/options/depth`), or `all`/`any`/`not` of constraints. They
 * fail closed: a missing argument, or one of the wrong type for its test, denies. */
export type Constraint =
  | { all: Constraint[] }
  | { any: Constraint[] }
  | { not: Constraint }
  | ({ arg: string } & (
      | { eq: unknown }
      | { ne: unknown }
      | { lt: number }
      | { le: number }
      | { gt: number }
      | { ge: number }
      | { in: unknown[] }
      | { not_in: unknown[] }
      | { starts_with: string }
      | { ends_with: string }
      /** Matches the whole value; at most 1 KiB of pattern. */
      | { regex: string }
      | { max_length: number }
    ));

/** A tool the page grants: callable as `tool NAME ...` or `NAME ...` in the shell, by
 * guests (`sandtab.tool_call`) and by `Sandbox.callTool`, all through one check. */
export interface ToolGrant {
  /** A letter or `_`, then letters, digits, `_`, `-`, `.` (at most 64). */
  name: string;
  description?: string;
  /** JSON Schema of the arguments (`"type": "object"`), checked before every call. */
  parameters?: Record<string, unknown>;
  constraints?: Constraint;
  /** Calls allowed in the sandbox's life (per opened sandbox). */
  max_calls?: number;
  /** At most `calls` calls in any `per_seconds` window. */
  rate_limit?: { calls: number; per_seconds: number };
  /** Arguments (JSON Pointers) shown as `[redacted]` in the audit log. */
  redact?: string[];
}

/** Limits on one of sandtab's own tools (the document's `builtins`). */
export interface BuiltinGrant {
  /** File tools only: the directories (absolute, or relative to /home/agent) their
   * `path` must lie in, symlinks followed (`CAP_CONSTRAINT` outside). */
  paths?: string[];
  constraints?: Constraint;
  max_calls?: number;
  rate_limit?: { calls: number; per_seconds: number };
}

/** An origin the sandbox may reach (`curl`, `wget`). */
export interface NetworkGrant {
  /** `https://api.example.com`, `http://127.0.0.1:8080`, or `https://*.example.com`
   * (subdomains). Private and loopback addresses are reachable only when named. */
  origin: string;
  /** Path prefixes (default: every path). */
  paths?: string[];
  /** Methods (default `["GET", "HEAD"]`). */
  methods?: string[];
  /** Headers put on every request to this origin. Their values stay on the page: the
   * runtime never holds them, and they are scrubbed from responses. A request carrying
   * them is never redirected to another origin. */
  headers?: Record<string, string>;
}

/** A remote MCP server (Streamable HTTP) whose tools become the sandbox's tools, under
 * the same check as granted tools. Its URL must be granted in `network.allow` with
 * `"methods": ["POST"]`; headers granted there (an `Authorization` kept on the page,
 * say) go with every message. It is connected to when the sandbox opens. */
export interface McpServerGrant {
  /** The server's name, in messages and the default prefix. */
  name: string;
  /** Its endpoint, for example `https://mcp.example.com/mcp`. */
  url: string;
  /** What its tools' names start with in the sandbox (default `NAME_`). */
  prefix?: string;
  /** The tools to expose (by their name on the server), with constraints and limits;
   * their schema comes from the server. Default: every tool it lists. */
  tools?: Omit<ToolGrant, 'parameters'>[];
}

/** What a sandbox may reach: the only doors out. Nothing is granted by default. */
export interface CapabilityDocument {
  /** The format version (1). */
  version?: 1;
  tools?: ToolGrant[];
  network?: {
    allow?: NetworkGrant[];
    /** Largest response body (default 10 MiB). */
    max_response_bytes?: number;
    /** Redirects followed (default 5, at most 20). */
    max_redirects?: number;
  };
  /** Whether the sandbox may show HTML to the user (`ui show`, the `ui` tool) in a
   * sandboxed frame in the options' `ui` element, and read their clicks and forms. */
  ui?: boolean;
  /** Remote MCP servers whose tools join `tools`. */
  mcp?: McpServerGrant[];
  /** sandtab's own tools for a model (`Sandbox.callTool`): granted unless set to
   * `false` here; an object grants one with limits (`paths` only for the file tools).
   * Left out of `toolDefinitions` when denied. `fetch` and `ui` follow `network`/`ui`. */
  builtins?: Partial<Record<'bash' | 'read_file' | 'write_file' | 'edit_file', boolean | BuiltinGrant>>;
  /** The same as the options `quota` and `mounts`. */
  filesystem?: { quota?: Quota; mounts?: ReadOnlyMount[] };
  /** The same as the options `limits` and `guestLimits`. */
  limits?: { shell?: Limits; guest?: GuestLimits };
}

/** A granted tool's implementation on the page: gets the checked arguments, returns
 * any JSON-serialisable value (or a promise of one); a throw is the call's failure. */
export type ToolHandler = (args: Record<string, unknown>) => unknown;

/** What the runtime worker is started with. */
export interface WorkerOptions {
  /** Which stored sandbox to open or create (default `"default"`). */
  name?: string;
  /** Default: `indexeddb` where the browser has it, else `memory`. */
  storage?: StorageKind;
  /** Limits for every exec in this sandbox. */
  limits?: Limits;
  /** Limits on the sandbox's files. */
  quota?: Quota;
  /** Read-only mounts (writes below them fail with EROFS). `/tmp` is always a memory
   * mount: its files are never saved. */
  mounts?: ReadOnlyMount[];
  /** Limits for every guest program this sandbox runs. */
  guestLimits?: GuestLimits;
  /** The engine guest programs run on. Default: `engine` where the browser has JSPI,
   * else `interpreter`; asking for `engine` where it has not fails with EINVAL. */
  guestTier?: GuestTier;
  /** Programs to install as commands (CPython as `python3`, say). They load in the
   * background; a command waits until they are installed. */
  programs?: ProgramSpec[];
  /** The tools and origins the sandbox may reach (nothing unless given). */
  capabilities?: CapabilityDocument;
  /** Record every operation (exec, callTool, writeFile, the file tools, fetch) with the
   * nondeterministic inputs it consumed; `recording()` gives it. Needs a new sandbox. */
  record?: boolean;
  /** Open as the replay of this recording (see `Sandbox.replay`). */
  replay?: SandboxRecording;
  /** Resume a sandbox handed over by `sandbox.handoff()` (in a tab, under Node, or by
   * `sandtab sh --handoff FILE`): its files, its sessions (`cd`, variables, functions,
   * options) and, where not given here, its limits, quota, mounts and capabilities.
   * Needs a new sandbox; the tree is checked against the digest it was handed with. */
  resume?: SandboxHandoff;
}

/** A sandbox handed over (`sandbox.handoff()`): JSON, to resume on another host. */
export interface SandboxHandoff {
  format: 'sandtab-handoff';
  version: 1;
  /** The sandbox's name where it was handed off. */
  name: string;
  /** Every file, directory and symlink with its mode and times (read-only mounts left
   * out), contents in base64. */
  entries: Record<string, unknown>[];
  /** Each shell session's state. */
  sessions: { name: string; state: unknown }[];
  /** The options it carries on. */
  options: Partial<Pick<WorkerOptions, 'limits' | 'guestLimits' | 'quota' | 'mounts' | 'capabilities'>>;
  /** The digest of the file tree (read-only mounts left out). */
  tree: string;
}

/** A recording (`sandbox.recording()`): JSON, to keep or send anywhere. */
export interface SandboxRecording {
  format: 'sandtab-recording';
  /** 3 from this release (its ops are the protocol's `Op`s); versions 2 and 1 still
   * replay (1 with the shell's own clocks and random draws read from the real
   * sources). */
  version: 1 | 2 | 3;
  /** The options that shape the sandbox (limits, guestLimits, quota, capabilities). */
  options: Partial<Pick<WorkerOptions, 'limits' | 'guestLimits' | 'quota' | 'capabilities'>>;
  /** The programs it had installed. */
  programs: { names: string[]; sha256: string | null }[];
  /** The inputs opening it consumed. */
  opening: RecordedInputs;
  /** Each operation: `op` names it (`exec`, `callTool`, `writeFile`, `writeText`,
   * `editFile`, `closeSession`, `fetch`) beside its arguments, as the protocol's `Op`
   * (format version 3; versions 1 and 2 named them in snake_case and still replay). */
  ops: ({ op: string; inputs: RecordedInputs; outcome: Record<string, unknown> } & Record<string, unknown>)[];
  /** The digest of the file tree at the time. */
  tree: string;
}

/** The nondeterministic inputs of one operation. */
export interface RecordedInputs {
  /** Wall-clock readings (ns), as differences. */
  clock?: number[];
  /** Guests' monotonic readings (ns), as differences. */
  monotonic?: number[];
  /** The shell interpreter's own wall-clock readings (ns; history times), as differences. */
  shell_clock?: number[];
  /** The shell interpreter's own monotonic readings (ns; `$SECONDS`, `time`, its
   * deadlines), as differences. */
  shell_monotonic?: number[];
  /** Random bytes, base64. */
  random?: string;
  /** Tool answers, responses, ui events. */
  doors?: Record<string, unknown>[];
}

/** What `Sandbox.replay` found. */
export interface ReplayReport {
  /** Every outcome and the final file tree were the same. */
  ok: boolean;
  /** Operations replayed. */
  ops: number;
  /** Operations whose outcome differed. */
  mismatches: { index: number; op: string; expected: unknown; actual: unknown }[];
  /** The first input the replay asked for that the recording did not have, if any. */
  divergence: string | null;
  tree: { expected: string; actual: string };
}

export interface SandboxOptions extends WorkerOptions {
  /** Where the runtime worker script is; defaults to the one shipped beside this module. */
  workerUrl?: string | URL;
  /** Progress of the programs being fetched and compiled. */
  onProgress?: (event: ProgressEvent) => void;
  /** Where the `ui` door shows the sandbox's HTML (an element, or a function giving
   * one when asked); without it `ui` is refused. The document must also grant `ui`. */
  ui?: HTMLElement | (() => HTMLElement | null);
  /** Whether the sandbox's HTML may run scripts in the `ui` frame (asked at each `ui
   * show`; default false). Without scripts the frame is shut: it fetches nothing,
   * navigates nowhere, and the page reads the person's clicks and forms itself. With
   * scripts it still fetches and navigates nowhere, and only a person's clicks count,
   * but a script can send data out over WebRTC (no Content Security Policy covers it)
   * and a busy script freezes the page: allow it only for HTML you trust, or when
   * that is acceptable. */
  uiScripts?: boolean | (() => boolean);
  /** Handlers of the granted tools, by name. */
  tools?: Record<string, ToolHandler>;
  /** A handler for granted tools not in `tools`: resolve with a JSON string, or reject
   * with an error the caller sees. Only granted tools, with checked arguments, reach it. */
  hostCall?: (name: string, argsJson: string) => Promise<string>;
  /** Node only: the directory on disk holding stored sandboxes (created if missing).
   * The sandbox's files are kept in `DIRECTORY/sandtab/NAME/` in the OPFS log format
   * (`storage` is `opfs`, which it implies). See the package README's Node section. */
  directory?: string;
}

/** Files in use and the quota. */
export interface Usage {
  bytes: number;
  files: number;
  dirs: number;
  maxBytes: number;
  maxEntries: number;
  maxFileSize: number;
}

export interface SnapshotInfo {
  id: number;
  label: string;
  /** When it was taken, in milliseconds since the epoch. */
  created: number;
  files: number;
  bytes: number;
}

export interface FsckReport {
  /** No problem found. */
  clean: boolean;
  /** One line, like `fsck`'s last. */
  summary: string;
  /** Each problem in a sentence. */
  problems: string[];
  inodes?: number;
  files?: number;
  bytesChecked?: number;
}

export interface ImportResult {
  files: number;
  directories: number;
  symlinks: number;
  /** Entries of kinds a sandbox does not keep (devices, FIFOs). */
  skipped: number;
}

/** Why a command's file changes could not be saved (they stay in memory and are saved
 * by the next command that can). */
export interface SaveError {
  /** The errno name: `EDQUOT` when the browser's storage is full. */
  code: string;
  message: string;
}

export interface ExecOptions {
  /** Each chunk of stdout as it is written, decoded as UTF-8. */
  onStdout?: (text: string) => void;
  /** Each chunk of stderr as it is written, decoded as UTF-8. */
  onStderr?: (text: string) => void;
  /** Each chunk of either stream as raw bytes. */
  onOutput?: (stream: 'stdout' | 'stderr', bytes: Uint8Array) => void;
  /** Guest program limits for this command only (`callDepth` cannot change). */
  guestLimits?: GuestLimits;
  /** The shell session to run in (default `"main"`; 1 to 64 letters, digits, `-`, `_`,
   * `.`). Each session keeps its `cd`, variables, functions, aliases and `set` options
   * from one exec to the next; all share the files. Made on first use. */
  session?: string;
  /** Run in a new session of its own, dropped afterwards (not with `session`). */
  fresh?: boolean;
  /** Bytes of stdout, and separately of stderr, to keep in this result (default: the
   * sandbox's `limits.maxOutputBytes`, 1 MiB). */
  maxOutputBytes?: number;
  /** The script's standard input (what its first command reads when nothing in the
   * script pipes into it; empty when left out): a string (sent as UTF-8) or bytes given
   * whole, or a `ReadableStream` or async iterable of strings or bytes read while the
   * command runs, so that `read`, `input()` or a REPL wait for each chunk and see end
   * of file when it ends. At most 16 MiB may be written ahead of what the command has
   * read; past that the command is cancelled and the exec rejects. A sandbox that
   * records takes stdin only whole. */
  stdin?: string | Uint8Array | ReadableStream<Uint8Array | string> | AsyncIterable<Uint8Array | string>;
  /** The `stdin` stream is a terminal typed into (what `<sandtab-terminal>` does): the
   * script's own commands (`read`, a function) see an empty stdin, so nothing waits for
   * the terminal to end, and a program whose stdin is that empty one (`python3`, a
   * `.wasm` file) reads the terminal line by line and sees a terminal (`isatty`), so a
   * bare `python3` is the interactive interpreter. Needs a stream `stdin`. */
  tty?: boolean;
  /** Environment variables for this exec only (exported, so programs see them too);
   * afterwards each is what it was in the session. Names are bash names
   * (`[A-Za-z_][A-Za-z0-9_]*`); another is refused with `EINVAL` before anything runs. */
  env?: Record<string, string>;
  /** The directory this exec starts in: absolute, or relative to the session's. The
   * session is back in its own directory afterwards. One that does not exist is refused
   * (`ENOENT`) before anything runs. */
  cwd?: string;
  /** Wall-clock milliseconds for this exec, counted from when it starts (not while it
   * waits behind others); at most the sandbox's `limits.timeoutMs`. Past it the exec
   * ends with exit status 126 and says so on stderr. */
  timeoutMs?: number;
  /** Aborting it cancels this exec only: one still waiting its turn is dropped and the
   * promise rejects with a `SandboxError` (`ECANCELED`); a running one is stopped as by
   * `cancel()` and resolves with exit status 130 and its output so far. */
  signal?: AbortSignal;
}

/** Options of `Sandbox.spawn`: those of `exec`, without the output callbacks (the
 * process's streams carry the output) and without `stdin` (write `process.stdin`). */
export type SpawnOptions = Omit<ExecOptions, 'onStdout' | 'onStderr' | 'onOutput' | 'stdin'>;

/** A script started by `Sandbox.spawn`, as a process with streams. */
export interface SandboxProcess {
  /** Its standard output, as bytes while it is written (pipe it through
   * `TextDecoderStream` for text). A stream nobody reads does not hold the script up. */
  readonly stdout: ReadableStream<Uint8Array>;
  /** Its standard error, likewise. */
  readonly stderr: ReadableStream<Uint8Array>;
  /** Its standard input: what is written is read by the script as it comes; closing it
   * is end of file. */
  readonly stdin: WritableStream<Uint8Array | string>;
  /** Resolves to the exit status when it ends. */
  readonly exit: Promise<number>;
  /** Resolves to the whole result (as `exec` gives it) when it ends. */
  readonly result: Promise<ExecResult>;
  /** Stops it (exit status 130), or drops it if it has not started. */
  kill(): void;
}

/** What is at a path (`Sandbox.stat`), symlinks followed. */
export interface FileStat {
  kind: 'file' | 'dir';
  /** Bytes of a file; 0 for a directory. */
  size: number;
  /** Permission bits (`0o644` is 420). */
  mode: number;
  /** Milliseconds since the epoch (with a fraction): the last change of the contents. */
  modified: number;
  /** Milliseconds since the epoch: when it was made. */
  created: number;
}

/** What a `change` event says changed the files. */
export type FileChangeCause = 'exec' | 'writeFile' | 'writeFiles' | 'mkdir' | 'rm' | 'rename' | 'importTar' | 'restore';

/** The detail of a `change` event: sent after each exec that changed files (one that
 * only read sends none) and after each file operation. */
export interface FileChange {
  cause: FileChangeCause;
  /** The paths a file operation named (for an exec: empty, since a script may change
   * anything; list or stat what you show). */
  paths: string[];
}

/** The `code` of a `SandboxError`. */
export type SandboxErrorCode =
  // What the filesystem refused, as errno names.
  | 'ENOENT'
  | 'EEXIST'
  | 'ENOTDIR'
  | 'EISDIR'
  | 'ENOTEMPTY'
  | 'ELOOP'
  | 'ENAMETOOLONG'
  | 'EINVAL'
  | 'EBUSY'
  | 'EDQUOT'
  | 'EFBIG'
  | 'ENOMEM'
  | 'EPERM'
  | 'EROFS'
  | 'EXDEV'
  | 'EIO'
  | 'EUCLEAN'
  | 'ENOTSUP'
  // A page and a worker of different builds.
  | 'EPROTO'
  // An exec aborted by its signal before it started.
  | 'ECANCELED'
  // The sandbox was closed or terminated.
  | 'ECLOSED'
  // Refused or failed at the capability gate.
  | 'CAP_DENIED'
  | 'CAP_BAD_ARGS'
  | 'CAP_CONSTRAINT'
  | 'CAP_MAX_CALLS'
  | 'CAP_RATE_LIMIT'
  | 'CAP_TOOL_FAILED'
  | 'CAP_NET_DENIED'
  | 'CAP_NET_FAILED'
  | 'CAP_NET_METHOD'
  | 'CAP_NET_PRIVATE'
  | 'CAP_NET_REDIRECT'
  | 'CAP_NET_SCHEME'
  | 'CAP_NET_TOO_LARGE'
  // The runtime panicked or its worker failed.
  | 'SANDBOX_CRASHED';

export interface ExecResult {
  /** stdout decoded as UTF-8 (invalid sequences replaced); when it was cut at
   * `maxOutputBytes`, it ends with a note saying how much is shown
   * (`[sandtab: stdout truncated: the first 1048576 of 5242880 bytes are shown]`). */
  stdout: string;
  /** stderr decoded as UTF-8, with the same note when cut; carries sandtab's own message
   * when a limit, a syntax error or a cancel ended the command. */
  stderr: string;
  /** The exit status: 2 for a syntax error, 126 for a shell limit, 137 for a guest
   * program's limit, 130 after `cancel()`. */
  exitCode: number;
  /** stdout exactly as written (up to `maxOutputBytes`, without the note). */
  stdoutBytes: Uint8Array;
  /** stderr exactly as written (up to `maxOutputBytes`, without the note). */
  stderrBytes: Uint8Array;
  /** Whether stdout passed `maxOutputBytes` and was cut. */
  stdoutTruncated: boolean;
  /** Whether stderr passed `maxOutputBytes` and was cut. */
  stderrTruncated: boolean;
  /** Bytes the command wrote to stdout in all, kept or not. */
  stdoutTotal: number;
  /** Bytes the command wrote to stderr in all, kept or not. */
  stderrTotal: number;
  /** Set when the command's file changes could not be saved to storage. */
  saveError: SaveError | null;
  /** The engine the command's guest programs ran on (`'engine'`: the browser's own,
   * metered; `'interpreter'`: wasmi), or null when it ran none. */
  guestTier: GuestTier | null;
  /** With `tty`: how many bytes of the `stdin` stream a program read (the terminal
   * gives the rest of what was typed to its prompt, as typed ahead); null otherwise. */
  stdinRead: number | null;
  /** Whether the exec changed any file (a `change` event was sent too). */
  filesChanged: boolean;
}

export interface DirEntry {
  name: string;
  kind: 'file' | 'dir' | 'symlink';
  size: number;
  /** Last change of the contents, in milliseconds since the epoch (with a fraction). */
  modified: number;
}
