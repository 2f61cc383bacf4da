// What a step or a turn changed in each text file, as a unified diff: the file's text
// before (read before a file tool ran, or kept from an earlier step of the turn) and
// after. A file whose earlier text is unknown (first changed by a command) shows by name
// only; binary and large files too.

import { structuredPatch } from 'diff';
import type { Sandbox } from 'sandtab';

/** Files larger than this are not diffed. */
const TEXT_LIMIT = 256 * 1024;

/** A file's change: `+`, `~` or `-`, its path, and its hunks as unified-diff lines
 * (`@@ ... @@`, then ` `, `+` and `-` lines). */
export interface FileDiff {
  mark: '+' | '~' | '-';
  path: string;
  lines: string[];
  added: number;
  removed: number;
}

/** A file's text, null when there is none, undefined when it is not text (or too large
 * or unreadable). */
export type FileText = string | null | undefined;

export async function readText(sandbox: Sandbox, path: string): Promise<FileText> {
  let bytes: Uint8Array;
  try {
    bytes = await sandbox.readFile(path);
  } catch (err) {
    return (err as { code?: string }).code === 'ENOENT' ? null : undefined;
  }
  if (bytes.length > TEXT_LIMIT || bytes.includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** The diff from `before` to `after` (null: the file is not there), or null when either
 * is unknown or nothing changed. */
export function fileDiff(path: string, before: FileText, after: FileText): FileDiff | null {
  if (before === undefined || after === undefined || before === after) return null;
  const patch = structuredPatch(path, path, before ?? '', after ?? '', '', '', { context: 3 });
  const lines: string[] = [];
  let added = 0;
  let removed = 0;
  for (const hunk of patch.hunks) {
    // As GNU diff writes it: an empty side starts at the line before (`-0,0`).
    const range = (start: number, count: number) => `${count === 0 ? start - 1 : start},${count}`;
    lines.push(`@@ -${range(hunk.oldStart, hunk.oldLines)} +${range(hunk.newStart, hunk.newLines)} @@`);
    for (const line of hunk.lines) {
      if (line.startsWith('\\')) continue; // "\ No newline at end of file"
      if (line.startsWith('+')) added++;
      else if (line.startsWith('-')) removed++;
      lines.push(line);
    }
  }
  const mark = before === null ? '+' : after === null ? '-' : '~';
  return { mark, path, lines, added, removed };
}

/** The path a file tool names (relative ones are from the agent's home). */
export function toolPath(args: Record<string, unknown>): string | null {
  const path = args.path;
  if (typeof path !== 'string' || path === '') return null;
  return path.startsWith('/') ? path : `/home/agent/${path}`;
}
