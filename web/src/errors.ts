// The error every failed `Sandbox` call rejects with, and the codes it is made with here.

import type { SandboxErrorCode } from './types.js';

/** Thrown for requests the sandbox could not carry out (bad options, missing file, a
 * full disk, a dead worker). A command that fails is not an error: see
 * `ExecResult.exitCode`. */
export class SandboxError extends Error {
  override name = 'SandboxError';
  /** The errno name when the filesystem refused (`ENOENT`, `EDQUOT`, `EROFS`,
   * `EUCLEAN` for corrupt stored data, `ENOTSUP` for data of an unknown format,
   * `EBUSY` for a sandbox open in another tab); for a refused or failed tool call the
   * capability code (`CAP_DENIED`, `CAP_BAD_ARGS`, `CAP_CONSTRAINT`, `CAP_MAX_CALLS`,
   * `CAP_RATE_LIMIT`, `CAP_TOOL_FAILED`); `SANDBOX_CRASHED` when the runtime panicked
   * or its worker failed: that call, every pending one and every later one fail with
   * it, and the worker is gone (create the sandbox again: the saved files are there). */
  readonly code: SandboxErrorCode | undefined;

  constructor(message: string, code?: SandboxErrorCode | (string & {})) {
    super(message);
    this.code = code as SandboxErrorCode | undefined;
  }
}

/** `SandboxError.code` of a sandbox whose runtime crashed (a panic, a trap, a failed
 * worker). */
export const CRASHED = 'SANDBOX_CRASHED';

/** The error of an exec whose signal was aborted before it was sent. */
export function aborted(): SandboxError {
  return new SandboxError('the exec was aborted (its AbortSignal) before it started', 'ECANCELED');
}
