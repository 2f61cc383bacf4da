// sandtab: a sandbox for AI agents that lives in a browser tab.
export { Sandbox } from './sandbox.js';
export { SandboxError } from './errors.js';
export type { SandboxChangeEvent, SandboxProgressEvent } from './sandbox.js';
export { PROTOCOL_VERSION } from './protocol.js';
export type { Op, Reply } from './protocol.js';
export { FRAME_POLICY, containedFrame, contentDocument, holdLinks } from './contained-frame.js';
export type { ContainedFrameOptions } from './contained-frame.js';
export type {
  BuiltinGrant,
  CapabilityDocument,
  Constraint,
  McpServerGrant,
  RecordedInputs,
  ReplayReport,
  SandboxHandoff,
  SandboxRecording,
  NetworkGrant,
  ToolGrant,
  ToolHandler,
  DirEntry,
  ExecOptions,
  ExecResult,
  FileChange,
  FileChangeCause,
  FileStat,
  SandboxErrorCode,
  SandboxProcess,
  SpawnOptions,
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
  GuestTier,
  Usage,
  WorkerOptions,
} from './types.js';
