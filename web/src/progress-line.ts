// The line `<sandtab-terminal>` shows while a command waits for a program on its way:
// what it is doing, how far, as a bar that fits the terminal's width.

import type { ProgressEvent } from './types.js';

const MB = 1e6;

function megabytes(bytes: number): string {
  return (bytes / MB).toFixed(1);
}

/** The status line for `event`, at most `cols` cells wide (ASCII and block characters
 * only, one cell each). */
export function progressLine(event: ProgressEvent, cols: number): string {
  const { program, phase, loaded, total } = event;
  let line: string;
  if (phase === 'compile') {
    line = `${program}: compiling…`;
  } else if (total > 0) {
    const share = Math.min(1, loaded / total);
    const head = `${program}: downloading ${megabytes(loaded)} of ${megabytes(total)} MB `;
    const tail = ` ${Math.floor(share * 100)}%`;
    const width = Math.max(0, Math.min(30, cols - head.length - tail.length));
    const filled = Math.round(share * width);
    line = width >= 5 ? head + '█'.repeat(filled) + '░'.repeat(width - filled) + tail : head.trimEnd() + tail;
  } else {
    line = `${program}: downloading${loaded > 0 ? ` ${megabytes(loaded)} MB` : '…'}`;
  }
  return [...line].slice(0, Math.max(0, cols)).join('');
}
