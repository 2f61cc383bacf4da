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
  /** Bytes of stdout, and separately of stderr, one exec may produce (default 1 MiB). */
  maxOutputBytes?: number;
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

export interface SandboxOptions {
  /** Limits for every exec in this sandbox. */
  limits?: Limits;
  /** Limits on the sandbox's files. */
  quota?: Quota;
  /** Where the runtime worker script is; defaults to the one shipped beside this module. */
  workerUrl?: string | URL;
}

export interface ExecOptions {
  /** Each chunk of stdout as it is written, decoded as UTF-8. */
  onStdout?: (text: string) => void;
  /** Each chunk of stderr as it is written, decoded as UTF-8. */
  onStderr?: (text: string) => void;
  /** Each chunk of either stream as raw bytes. */
  onOutput?: (stream: 'stdout' | 'stderr', bytes: Uint8Array) => void;
}

export interface ExecResult {
  /** stdout decoded as UTF-8 (invalid sequences replaced). */
  stdout: string;
  /** stderr decoded as UTF-8; carries sandtab's own message when a limit, a syntax error
   * or a cancel ended the command. */
  stderr: string;
  /** The exit status: 2 for a syntax error, 126 for a limit, 130 after `cancel()`. */
  exitCode: number;
  /** stdout exactly as written. */
  stdoutBytes: Uint8Array;
  /** stderr exactly as written. */
  stderrBytes: Uint8Array;
  /** Whether stdout passed `maxOutputBytes` and was cut. */
  stdoutTruncated: boolean;
  /** Whether stderr passed `maxOutputBytes` and was cut. */
  stderrTruncated: boolean;
}

export interface DirEntry {
  name: string;
  kind: 'file' | 'dir' | 'symlink';
  size: number;
}
