// The demo page: a terminal on a sandbox, and a panel listing its files that refreshes
// after every command.

import { Sandbox, type DirEntry } from 'sandtab';
import 'sandtab/terminal';

const MAX_ENTRIES = 500;

async function renderTree(sandbox: Sandbox, path: string, into: HTMLUListElement, budget: { left: number }): Promise<void> {
  let entries: DirEntry[];
  try {
    entries = await sandbox.listDir(path);
  } catch {
    return;
  }
  for (const entry of entries) {
    if (budget.left-- <= 0) return;
    const item = document.createElement('li');
    item.className = entry.kind;
    const name = document.createElement('span');
    name.textContent = entry.kind === 'dir' ? `${entry.name}/` : entry.name;
    item.append(name);
    if (entry.kind === 'file') {
      const size = document.createElement('span');
      size.className = 'size';
      size.textContent = `${entry.size} B`;
      item.append(size);
    }
    into.append(item);
    if (entry.kind === 'dir') {
      const children = document.createElement('ul');
      item.append(children);
      await renderTree(sandbox, `${path === '/' ? '' : path}/${entry.name}`, children, budget);
    }
  }
}

async function refreshFiles(sandbox: Sandbox): Promise<void> {
  const list = document.getElementById('files') as HTMLUListElement;
  const fresh = document.createElement('ul');
  await renderTree(sandbox, '/', fresh, { left: MAX_ENTRIES });
  list.replaceChildren(...fresh.childNodes);
}

async function main(): Promise<void> {
  const sandbox = await Sandbox.create();
  // One sandbox for the terminal and the files panel: create the element only now, so it
  // does not start a sandbox of its own.
  const terminal = document.createElement('sandtab-terminal');
  terminal.id = 'terminal';
  terminal.sandbox = sandbox;
  terminal.addEventListener('command-end', () => void refreshFiles(sandbox));
  document.getElementById('terminal-panel')!.append(terminal);
  await terminal.ready;
  await refreshFiles(sandbox);
  terminal.focus();
}

main().catch((err: unknown) => {
  // Say what went wrong on the page itself, not only in the console.
  const box = document.createElement('pre');
  box.className = 'startup-error';
  box.textContent = `sandtab could not start: ${err instanceof Error ? err.message : String(err)}`;
  document.getElementById('terminal-panel')!.replaceChildren(box);
  throw err;
});
