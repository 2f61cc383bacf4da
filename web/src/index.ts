// sandtab: a sandbox for AI agents that lives in a browser tab.
export { Sandbox, SandboxError } from './sandbox.js';
export type { DirEntry, ExecOptions, ExecResult, Limits, Quota, SandboxOptions } from './types.js';
