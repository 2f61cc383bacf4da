// sandtab under Node (the package's `node` export condition): the same Sandbox as in a
// browser tab, its runtime in a worker_threads Worker, its files in memory or in a
// directory on disk (`directory`: the OPFS log format, crash-safe). See README "Node".
import { setSandboxHost } from '../host.js';
import { nodeHost } from './host.js';

setSandboxHost(nodeHost);

export { Sandbox, SandboxError } from '../sandbox.js';
export { PROTOCOL_VERSION } from '../protocol.js';
export type { Op, Reply } from '../protocol.js';
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
} from '../types.js';

import { Sandbox as NodeSandbox, SandboxError as NodeSandboxError } from '../sandbox.js';

// A browser deletes a stored sandbox from IndexedDB and OPFS; on disk it is a directory.
NodeSandbox.deleteStored = async (name: string): Promise<void> => {
  throw new NodeSandboxError(
    `Sandbox.deleteStored("${name}") is for browsers: under Node, remove the directory DIRECTORY/sandtab/${name} (and ${name}.lock) of a sandbox that is not open`,
    'ENOTSUP',
  );
};
