// The files panel's tree, as an ARIA tree: folders fold and unfold (click, or Left and
// Right), arrows move between the rows shown, Enter opens a file or folds a folder,
// Home/End go to the ends; one row at a time is in the tab order. Its toolbar makes a
// new file or folder (in the chosen folder, or the chosen file's), renames and deletes.
// A folder the person folded stays folded across refreshes.

import type { DirEntry, Sandbox } from 'sandtab';

const MAX_ENTRIES = 500;
const HOME = '/home/agent';

/** Folders the person folded, by path. */
const folded = new Set<string>();
/** The row chosen last (kept across refreshes). */
let chosen: string | null = null;

function join(dir: string, name: string): string {
  return `${dir === '/' ? '' : dir}/${name}`;
}

function parentOf(path: string): string {
  return path.slice(0, path.lastIndexOf('/')) || '/';
}

async function renderLevel(sandbox: Sandbox, path: string, into: HTMLUListElement, level: number, budget: { left: number }): Promise<void> {
  let entries: DirEntry[];
  try {
    entries = await sandbox.listDir(path);
  } catch {
    return;
  }
  for (const entry of entries) {
    if (budget.left-- <= 0) return;
    const full = join(path, entry.name);
    const item = document.createElement('li');
    item.className = entry.kind;
    item.dataset.path = full;
    item.setAttribute('role', 'treeitem');
    item.setAttribute('aria-level', String(level));
    item.tabIndex = -1;
    const name = document.createElement('span');
    name.className = 'name';
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
      const open = !folded.has(full);
      item.setAttribute('aria-expanded', String(open));
      const children = document.createElement('ul');
      children.setAttribute('role', 'group');
      children.hidden = !open;
      item.append(children);
      await renderLevel(sandbox, full, children, level + 1, budget);
    }
  }
}

/** Draws the tree again, keeping what is folded and the chosen row. */
export async function refreshFiles(sandbox: Sandbox): Promise<void> {
  const list = document.getElementById('files') as HTMLUListElement;
  const fresh = document.createElement('ul');
  await renderLevel(sandbox, '/', fresh, 1, { left: MAX_ENTRIES });
  // The same tree as shown: leave the rows alone (focus, hover and a click on its way
  // stay on them).
  const signature = fresh.innerHTML;
  if (list.dataset.signature === signature && list.childElementCount > 0) return;
  list.dataset.signature = signature;
  const hadFocus = list.contains(document.activeElement);
  list.replaceChildren(...fresh.childNodes);
  const row = (chosen !== null && rowOf(list, chosen)) || visibleRows(list)[0];
  if (row) choose(row, hadFocus);
}

function rowOf(list: HTMLElement, path: string): HTMLElement | null {
  return [...list.querySelectorAll<HTMLElement>('li[role="treeitem"]')].find((li) => li.dataset.path === path) ?? null;
}

/** The rows not inside a folded folder, top to bottom. */
function visibleRows(list: HTMLElement): HTMLElement[] {
  return [...list.querySelectorAll<HTMLElement>('li[role="treeitem"]')].filter((li) => !li.parentElement?.closest('ul[hidden]'));
}

function choose(row: HTMLElement, focus: boolean): void {
  const list = row.closest('#files')!;
  for (const other of list.querySelectorAll<HTMLElement>('li[aria-selected="true"]')) other.setAttribute('aria-selected', 'false');
  for (const other of list.querySelectorAll<HTMLElement>('li[tabindex="0"]')) other.tabIndex = -1;
  row.setAttribute('aria-selected', 'true');
  row.tabIndex = 0;
  chosen = row.dataset.path ?? null;
  if (focus) row.focus();
}

function fold(row: HTMLElement, open: boolean): void {
  const path = row.dataset.path!;
  // What is folded is part of what a refresh compares: draw anew next time.
  delete row.closest<HTMLElement>('#files')?.dataset.signature;
  row.setAttribute('aria-expanded', String(open));
  const group = row.querySelector(':scope > ul');
  if (group instanceof HTMLElement) group.hidden = !open;
  if (open) folded.delete(path);
  else folded.add(path);
}

/** The folder a new file goes in: the chosen folder, or the chosen file's. */
function targetDir(): string {
  const list = document.getElementById('files')!;
  const row = chosen !== null ? rowOf(list, chosen) : null;
  if (!row) return HOME;
  return row.classList.contains('dir') ? row.dataset.path! : parentOf(row.dataset.path!);
}

export interface TreeActions {
  sandbox: () => Sandbox | null;
  /** Opens a file in the editor. */
  open: (path: string) => void;
  /** The files changed: refresh the panels. */
  changed: () => Promise<void>;
  /** Says what happened, or what went wrong. */
  say: (text: string, isError?: boolean) => void;
}

/** Asks the person for a name (the test suite answers through `prompt`). */
function askName(question: string, value = ''): string | null {
  const answer = prompt(question, value);
  if (answer === null) return null;
  const name = answer.trim();
  return name === '' ? null : name;
}

export function wireFileTree(actions: TreeActions): void {
  const list = document.getElementById('files') as HTMLUListElement;
  list.setAttribute('role', 'tree');
  list.setAttribute('aria-label', 'Files');
  list.addEventListener('click', (event) => {
    const row = (event.target as HTMLElement).closest<HTMLElement>('li[role="treeitem"]');
    if (!row) return;
    choose(row, true);
    if (row.classList.contains('dir')) fold(row, row.getAttribute('aria-expanded') !== 'true');
    else actions.open(row.dataset.path!);
  });
  list.addEventListener('keydown', (event) => {
    const row = (event.target as HTMLElement).closest<HTMLElement>('li[role="treeitem"]');
    if (!row) return;
    const rows = visibleRows(list);
    const at = rows.indexOf(row);
    const isDir = row.classList.contains('dir');
    const open = row.getAttribute('aria-expanded') === 'true';
    let next: HTMLElement | undefined;
    switch (event.key) {
      case 'ArrowDown':
        next = rows[at + 1];
        break;
      case 'ArrowUp':
        next = rows[at - 1];
        break;
      case 'Home':
        next = rows[0];
        break;
      case 'End':
        next = rows.at(-1);
        break;
      case 'ArrowRight':
        if (isDir && !open) fold(row, true);
        else if (isDir) next = row.querySelector<HTMLElement>(':scope > ul > li') ?? undefined;
        break;
      case 'ArrowLeft':
        if (isDir && open) fold(row, false);
        else next = row.parentElement?.closest<HTMLElement>('li[role="treeitem"]') ?? undefined;
        break;
      case 'Enter':
        if (isDir) fold(row, !open);
        else actions.open(row.dataset.path!);
        break;
      case 'Delete':
        void remove(actions);
        break;
      case 'F2':
        void rename(actions);
        break;
      default:
        return;
    }
    event.preventDefault();
    if (next) choose(next, true);
  });
  const on = (id: string, run: () => Promise<void>) => document.getElementById(id)!.addEventListener('click', () => void run());
  on('file-new', () => create(actions, 'file'));
  on('folder-new', () => create(actions, 'dir'));
  on('file-rename', () => rename(actions));
  on('file-delete', () => remove(actions));
}

async function act(actions: TreeActions, what: string, run: (sandbox: Sandbox) => Promise<string>): Promise<void> {
  const sandbox = actions.sandbox();
  if (!sandbox) return;
  try {
    actions.say(await run(sandbox));
  } catch (err) {
    actions.say(`${what} failed: ${err instanceof Error ? err.message : String(err)}`, true);
  }
  await actions.changed();
}

async function create(actions: TreeActions, kind: 'file' | 'dir'): Promise<void> {
  const dir = targetDir();
  const name = askName(kind === 'file' ? `New file in ${dir}:` : `New folder in ${dir}:`);
  if (name === null) return;
  const path = name.startsWith('/') ? name : join(dir, name);
  await act(actions, kind === 'file' ? 'New file' : 'New folder', async (sandbox) => {
    if (await sandbox.exists(path)) throw new Error(`${path} exists already`);
    if (kind === 'file') await sandbox.writeFile(path, '', { createParents: true });
    else await sandbox.mkdir(path, { recursive: true });
    chosen = path;
    return `Made ${path}${kind === 'dir' ? '/' : ''}.`;
  });
  if (kind === 'file') actions.open(path);
}

async function rename(actions: TreeActions): Promise<void> {
  const path = chosen;
  if (path === null || path === '/') return;
  const name = askName(`Rename ${path} to:`, path.slice(path.lastIndexOf('/') + 1));
  if (name === null) return;
  const to = name.startsWith('/') ? name : join(parentOf(path), name);
  if (to === path) return;
  await act(actions, 'Rename', async (sandbox) => {
    if (await sandbox.exists(to)) throw new Error(`${to} exists already`);
    await sandbox.rename(path, to);
    chosen = to;
    return `Renamed ${path} to ${to}.`;
  });
}

async function remove(actions: TreeActions): Promise<void> {
  const path = chosen;
  if (path === null || path === '/') return;
  const row = rowOf(document.getElementById('files')!, path);
  const isDir = row?.classList.contains('dir') ?? false;
  if (document.body.dataset.confirm !== 'off' && !confirm(`Delete ${path}${isDir ? ' and everything in it' : ''}?`)) return;
  await act(actions, 'Delete', async (sandbox) => {
    await sandbox.rm(path, { recursive: isDir });
    chosen = parentOf(path);
    return `Deleted ${path}.`;
  });
}
