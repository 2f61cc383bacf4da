// sandtab: a sandbox for AI agents that lives in a browser tab.
export { Sandbox, SandboxError } from './sandbox.js';
export type {
  DirEntry,
  ExecOptions,
  ExecResult,
  FsckReport,
  GuestLimits,
  ImportResult,
  Limits,
  ProgramSpec,
  ProgressEvent,
  Quota,
  ReadOnlyMount,
  SandboxOptions,
  SaveError,
  SnapshotInfo,
  StorageKind,
  Usage,
  WorkerOptions,
} from './types.js';
