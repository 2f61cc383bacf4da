// The files panel: the sandbox's tree (refreshed after every command and agent step),
// the storage controls (snapshots, tar export and import, fsck), the browser's storage
// estimate, the programs line and the audit log.

import { Sandbox, SandboxError, type ProgressEvent } from 'sandtab';

export { refreshFiles } from './file-tree';

export function status(text: string, isError = false): void {
  const line = document.getElementById('storage-status')!;
  line.textContent = text;
  line.classList.toggle('error', isError);
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  return `${(bytes / 1024 ** 3).toFixed(1)} GiB`;
}

export async function refreshStorage(sandbox: Sandbox, persisted: boolean | null): Promise<void> {
  const usage = await sandbox.usage();
  const estimate = await Sandbox.storageEstimate();
  const info = await sandbox.info();
  const where = { indexeddb: 'IndexedDB', opfs: 'OPFS', memory: '' }[info.storage];
  const parts = [where ? `saved in ${where} as "${info.name}"` : 'in memory only'];
  parts.push(info.guestTier === 'engine' ? "programs run on the browser's engine" : 'programs run on the interpreter');
  parts.push(`files: ${formatBytes(usage.bytes)} of ${formatBytes(usage.maxBytes)}`);
  if (estimate) parts.push(`browser storage: ${formatBytes(estimate.usage)} used of ${formatBytes(estimate.quota)}`);
  if (persisted !== null) parts.push(persisted ? 'persistent' : 'may be evicted under storage pressure');
  document.getElementById('storage-usage')!.textContent = parts.join(' · ');
  const select = document.getElementById('snapshots') as HTMLSelectElement;
  const snapshots = await sandbox.snapshots();
  select.replaceChildren(
    ...snapshots.map((snap) => {
      const option = document.createElement('option');
      option.value = String(snap.id);
      option.textContent = `#${snap.id} ${snap.label || 'snapshot'} (${new Date(snap.created).toLocaleTimeString()})`;
      return option;
    }),
  );
  (document.getElementById('restore') as HTMLButtonElement).disabled = snapshots.length === 0;
}

export function download(data: Uint8Array, name: string, type = 'application/x-tar'): void {
  const url = URL.createObjectURL(new Blob([data as BlobPart], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** Runs a storage action, showing progress and the outcome (or the error) on the page. */
async function act(what: string, action: () => Promise<string>, after: () => Promise<void>): Promise<void> {
  const buttons = document.querySelectorAll<HTMLButtonElement>('.storage-actions button');
  buttons.forEach((button) => (button.disabled = true));
  status(`${what}…`);
  try {
    status(await action());
  } catch (err) {
    const code = err instanceof SandboxError && err.code ? ` [${err.code}]` : '';
    status(`${what} failed${code}: ${err instanceof Error ? err.message : String(err)}`, true);
  } finally {
    buttons.forEach((button) => (button.disabled = false));
    await after();
  }
}

/** Wires the storage buttons to whichever sandbox `current` gives (projects switch it). */
export function wireStorageControls(current: () => Sandbox, refresh: () => Promise<void>): void {
  const on = (id: string, handler: () => void) => document.getElementById(id)!.addEventListener('click', handler);
  on('snapshot', () =>
    void act('Snapshot', async () => {
      const snap = await current().snapshot(`taken ${new Date().toLocaleTimeString()}`);
      return `Snapshot #${snap.id} taken: ${snap.files} files, ${formatBytes(snap.bytes)}.`;
    }, refresh),
  );
  on('restore', () => {
    const id = Number((document.getElementById('snapshots') as HTMLSelectElement).value);
    void act('Restore', async () => {
      await current().restore(id);
      return `Restored snapshot #${id}.`;
    }, refresh);
  });
  on('export', () =>
    void act('Export', async () => {
      const archive = await current().exportTar('/');
      download(archive, 'sandtab-files.tar');
      return `Exported ${formatBytes(archive.length)} as sandtab-files.tar.`;
    }, refresh),
  );
  const upload = document.getElementById('import-file') as HTMLInputElement;
  on('import', () => upload.click());
  upload.addEventListener('change', () => {
    const file = upload.files?.[0];
    upload.value = '';
    if (!file) return;
    void act('Import', async () => {
      const result = await current().importTar(new Uint8Array(await file.arrayBuffer()), '/');
      return `Imported ${file.name}: ${result.files} files, ${result.directories} directories, ${result.symlinks} symlinks${result.skipped ? `, ${result.skipped} skipped` : ''}.`;
    }, refresh);
  });
  on('fsck', () =>
    void act('Check', async () => {
      const report = await current().fsck();
      return report.clean ? `fsck: ${report.summary}` : `fsck: ${report.summary}\n${report.problems.join('\n')}`;
    }, refresh),
  );
}

/** The programs line: what is installed, or how far a download is. */
export function showProgress(event: ProgressEvent, states: Map<string, string>): void {
  const mb = (n: number) => (n / (1 << 20)).toFixed(1);
  const text =
    event.phase === 'fetch'
      ? `fetching ${mb(event.loaded)}${event.total ? `/${mb(event.total)}` : ''} MB`
      : event.phase === 'compile'
        ? 'compiling'
        : event.phase === 'ready'
          ? 'ready'
          : `failed: ${event.message}`;
  states.set(event.program, text);
  const line = document.getElementById('programs')!;
  line.textContent = `Programs: ${[...states].map(([name, state]) => `${name} ${state}`).join(', ')}`;
  line.classList.toggle('error', event.phase === 'error');
}

/** The entries shown in the audit panel (the export has them all). */
const AUDIT_SHOWN = 100;

/** One line of the audit panel: when, what kind, and its gist. */
function auditLine(entry: Record<string, unknown>): HTMLLIElement {
  const item = document.createElement('li');
  item.className = String(entry.kind);
  const time = document.createElement('time');
  const when = new Date(Number(entry.time_ms));
  time.dateTime = when.toISOString();
  time.textContent = when.toLocaleTimeString();
  const kind = document.createElement('span');
  kind.className = 'kind';
  kind.textContent = String(entry.kind);
  const gist = document.createElement('span');
  const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
  switch (entry.kind) {
    case 'exec':
      gist.textContent = `${text(entry.script)} → ${text(entry.exit_code)}`;
      break;
    case 'tool':
      gist.textContent = `${text(entry.tool)} ${text(entry.args)} (${entry.ok ? `${text(entry.result_bytes)} B` : text(entry.code)})`;
      break;
    case 'fetch':
      gist.textContent = `${text(entry.method)} ${text(entry.url)} → ${entry.ok ? `${text(entry.status)}, ${text(entry.result_bytes)} B` : text(entry.code)}`;
      break;
    default:
      gist.textContent = `${text(entry.code)} ${text(entry.tool ?? entry.url)}: ${text(entry.message)}`;
  }
  item.append(time, kind, gist);
  return item;
}

export async function refreshAudit(sandbox: Sandbox): Promise<void> {
  const lines = (await sandbox.auditLog()).trim().split('\n').filter(Boolean);
  const shown = lines.slice(-AUDIT_SHOWN).reverse().map((line) => auditLine(JSON.parse(line) as Record<string, unknown>));
  document.getElementById('audit-log')!.replaceChildren(...shown);
}

