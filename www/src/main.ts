// The coding agent: projects (each a stored sandbox with its conversation), a chat with
// the agent whose every step is visible, the terminal on the same sandbox, an editor, a
// preview of the app the agent builds, and the files panel. Everything runs in this tab;
// the only traffic out is to the model endpoint set in Settings (and the origins granted
// there to the sandbox).

import { PROTOCOL_VERSION, Sandbox, type StorageKind } from 'sandtab';
import 'sandtab/terminal';
import type { SandtabTerminal } from 'sandtab/terminal';
import { runTurn, revertTo, type Conversation } from './agent/loop';
import { ChatPanel } from './chat';
import { download, refreshAudit, refreshFiles, refreshStorage, showProgress, status, wireStorageControls } from './files-panel';
import { wireFileTree } from './file-tree';
import {
  activeProjectId,
  addProject,
  listProjects,
  loadConversation,
  removeProject,
  renameProject,
  saveConversation,
  setActiveProject,
  setRunScripts,
  type Project,
} from './projects';
import { SettingsDialog } from './settings-dialog';
import { loadSettings, saveSettings, validateSettings, type AgentSettings } from './settings';
import { EditorPanel } from './editor-panel';
import { PreviewPanel } from './preview-panel';

/** SHA-256 of the guest programs, put in by build.mjs. */
declare const __GUEST_HASHES__: { python: string; qjs: string };

interface Open {
  project: Project;
  sandbox: Sandbox;
  terminal: SandtabTerminal;
  conversation: Conversation;
}

const params = new URLSearchParams(location.search);
// `?storage=opfs` (or `memory`) keeps the projects' files somewhere other than IndexedDB.
const storage = (params.get('storage') ?? undefined) as StorageKind | undefined;
let settings: AgentSettings = loadSettings();
let current: Open | null = null;
let turnStop: AbortController | null = null;
/** Settings changed the network grants during a turn: reopen the sandbox after it. */
let reopenAfterTurn = false;
let persisted: boolean | null = null;
const programStates = new Map<string, string>();

const chat = new ChatPanel(document.getElementById('chat-panel')!, {
  send: (prompt) => startTurn(prompt),
  stop: () => turnStop?.abort(),
  revert: (turnId) => void revert(turnId),
});
const editor = new EditorPanel(document.getElementById('editor-panel')!, () => current?.sandbox ?? null, () => void refresh());
const preview = new PreviewPanel(
  document.getElementById('preview-panel')!,
  () => current?.sandbox ?? null,
  () => current?.project.runScripts === true,
);

function panelError(err: unknown): void {
  status(`The files panel could not update: ${err instanceof Error ? err.message : String(err)}`, true);
}

let refreshTimer: ReturnType<typeof setTimeout> | undefined;

function refreshSoon(): void {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(() => void refresh(), 50);
}

async function refresh(): Promise<void> {
  const open = current;
  if (!open) return;
  try {
    await refreshFiles(open.sandbox);
    await refreshStorage(open.sandbox, persisted);
    await refreshAudit(open.sandbox);
  } catch (err) {
    // A project closed meanwhile is no error of the one open now.
    if (current !== open) return;
    panelError(err);
  }
  editor.filesChanged();
  preview.filesChanged();
}

/** What the project's sandbox may reach: the UI frame, and the origins granted in Settings. */
function capabilities() {
  const allow = settings.allowedOrigins.map((origin) => ({ origin, methods: ['GET', 'HEAD', 'POST'] }));
  return { ui: true, ...(allow.length > 0 && { network: { allow } }) };
}

async function closeCurrent(): Promise<void> {
  turnStop?.abort();
  const open = current;
  current = null;
  if (!open) return;
  open.terminal.remove();
  await open.sandbox.flush().catch(() => {});
  open.sandbox.terminate();
}

async function openProject(project: Project): Promise<void> {
  await closeCurrent();
  chat.status(`Opening ${project.name}…`);
  const sandbox = await Sandbox.create({
    name: project.id,
    storage,
    // CPython and QuickJS as commands, fetched in the background: only a command that
    // runs one waits for it.
    programs: [
      { names: ['python3', 'python'], url: 'guests/python.wasm', sha256: __GUEST_HASHES__.python },
      { names: ['qjs'], url: 'guests/quickjs.wasm', sha256: __GUEST_HASHES__.qjs },
    ],
    onProgress: (event) => {
      showProgress(event, programStates);
      // The agent's step that waits for the program shows how far it is.
      if (current?.project.id === project.id) chat.programProgress(event);
    },
    // `ui show page.html --wait` shows the sandbox's HTML below the terminal, in a
    // sandboxed frame, and prints the next click or form submission as JSON.
    capabilities: capabilities(),
    ui: () => document.getElementById('ui-panel'),
    // The project's own switch, off unless the person turned it on (Preview tab).
    uiScripts: () => current?.project.runScripts === true,
  });
  // One sandbox for the terminal, the agent and the panels: create the element only now,
  // so it does not start a sandbox of its own.
  const terminal = document.createElement('sandtab-terminal') as SandtabTerminal;
  terminal.id = 'terminal';
  terminal.setAttribute('theme', document.documentElement.dataset.theme ?? 'dark');
  terminal.sandbox = sandbox;
  terminal.addEventListener('command-end', (event) => {
    const detail = (event as CustomEvent<{ saveError?: { code: string; message: string } | null }>).detail;
    if (detail?.saveError) status(`Not saved [${detail.saveError.code}]: ${detail.saveError.message}`, true);
    void refresh();
  });
  // Files changed by anything else too (the package API, a file operation): the panels
  // follow, once for a burst of changes.
  sandbox.addEventListener('change', refreshSoon);
  const conversation = await loadConversation(project.id);
  await remembered('which project is open', setActiveProject(project.id));
  await renderProjects(project.id);
  chat.setRunning(false);
  chat.render(conversation);
  chat.status(settings.model ? `Model: ${settings.model} at ${settings.endpoint}` : 'Set a model endpoint in Settings to talk to the agent.');
  // Only now does the project take prompts: nothing above may overwrite what a send says.
  current = { project, sandbox, terminal, conversation };
  // For tests and the console: the page's sandbox and the API, once the project is open,
  // and before the terminal can show its prompt (tests wait for it, then use this).
  (window as unknown as { sandtab: unknown }).sandtab = { sandbox, Sandbox, project, PROTOCOL_VERSION };
  document.getElementById('terminal-panel')!.append(terminal);
  showRunScripts();
  editor.projectChanged();
  preview.projectChanged();
  await terminal.ready;
  await refresh();
}

async function renderProjects(selected = current?.project.id): Promise<void> {
  const select = document.getElementById('project') as HTMLSelectElement;
  const projects = await listProjects();
  select.replaceChildren(
    ...projects.map((project) => {
      const option = document.createElement('option');
      option.value = project.id;
      option.textContent = project.name;
      option.selected = project.id === selected;
      return option;
    }),
  );
}

async function save(): Promise<void> {
  const open = current;
  if (open) await saveConversation(open.project.id, open.conversation);
}

/** Starts a turn if one can start now; otherwise says why (the prompt stays). */
function startTurn(prompt: string): boolean {
  const open = current;
  if (!open) {
    chat.status('The project is still opening: send again in a moment.', true);
    return false;
  }
  if (turnStop) return false;
  const problem = validateSettings(settings);
  if (problem) {
    chat.status(`${problem} Open Settings to set the model.`, true);
    return false;
  }
  void runAgentTurn(open, prompt);
  return true;
}

async function runAgentTurn(open: Open, prompt: string): Promise<void> {
  turnStop = new AbortController();
  chat.setRunning(true);
  chat.status('The agent is working…');
  let frame = 0;
  // Text streams in many small pieces: draw at most once a frame.
  const draw = () => {
    if (frame) return;
    frame = requestAnimationFrame(() => {
      frame = 0;
      if (current === open) chat.render(open.conversation);
    });
  };
  const turn = await runTurn(
    {
      sandbox: open.sandbox,
      settings,
      conversation: open.conversation,
      signal: turnStop.signal,
      onUpdate: (t) => {
        draw();
        if (t.items.at(-1)?.kind === 'tool') void refresh();
      },
      onCheckpoint: save,
    },
    prompt,
  );
  turnStop = null;
  cancelAnimationFrame(frame);
  frame = 0;
  if (current !== open) return;
  chat.setRunning(false);
  chat.render(open.conversation);
  chat.status(
    turn.status === 'done'
      ? 'Done.'
      : turn.status === 'stopped'
        ? 'Stopped.'
        : `The model call failed: ${turn.error}. Nothing was lost: send again to retry.`,
    turn.status === 'error',
  );
  await refresh();
  offerPackageIndex(turn.items);
  if (reopenAfterTurn) {
    reopenAfterTurn = false;
    await openProject(open.project);
  }
}

/** Where pip finds packages: PyPI's index and the host of its files. */
const PACKAGE_INDEX_ORIGINS = ['https://pypi.org', 'https://files.pythonhosted.org'];

/** When a step of the turn ran pip and the gate refused PyPI, offers to grant it. */
function offerPackageIndex(items: { kind: string; output?: string }[]): void {
  const refused = items.some(
    (item) => item.kind === 'tool' && /ERROR: CAP_NET_\w+: https:\/\/(pypi\.org|files\.pythonhosted\.org)/.test(item.output ?? ''),
  );
  const missing = PACKAGE_INDEX_ORIGINS.filter((origin) => !settings.allowedOrigins.includes(origin));
  if (!refused || missing.length === 0) return;
  chat.offer(
    `pip needs the Python package index, which this project cannot reach. Grant ${missing.join(' and ')}?`,
    'Grant the package index',
    () => {
      settings = { ...settings, allowedOrigins: [...settings.allowedOrigins, ...missing] };
      saveSettings(settings);
      chat.status(`Granted ${missing.join(' and ')}: ask the agent to run pip again.`);
      if (current) void openProject(current.project);
    },
  );
}

async function revert(turnId: number): Promise<void> {
  const open = current;
  if (!open || turnStop) return;
  const turn = open.conversation.turns.find((t) => t.id === turnId);
  if (!turn || !confirmRevert(turn.prompt)) return;
  try {
    await revertTo(open.sandbox, open.conversation, turnId);
    await save();
    chat.render(open.conversation);
    chat.status(`Reverted to before “${turn.prompt.slice(0, 60)}”.`);
    // The reverted prompt goes back in the box, to edit and send again.
    (document.getElementById('prompt') as HTMLTextAreaElement).value = turn.prompt;
  } catch (err) {
    chat.status(`Could not revert: ${err instanceof Error ? err.message : String(err)}`, true);
  }
  await refresh();
}

/** Asks before undoing; tests (and users who set it) skip the question. */
function confirmRevert(prompt: string): boolean {
  if (document.body.dataset.confirm === 'off') return true;
  return confirm(`Revert the files and the conversation to before “${prompt.slice(0, 80)}”? Later turns are undone too.`);
}

function wireProjects(): void {
  const select = document.getElementById('project') as HTMLSelectElement;
  select.addEventListener('change', () => {
    void listProjects().then((projects) => {
      const project = projects.find((p) => p.id === select.value);
      if (project) return openProject(project);
    });
  });
  document.getElementById('project-new')!.addEventListener('click', () => {
    const name = prompt('Name of the new project:', 'New project')?.trim();
    if (name) void addProject(name).then(openProject);
  });
  document.getElementById('project-rename')!.addEventListener('click', () => {
    const open = current;
    if (!open) return;
    const name = prompt('New name:', open.project.name)?.trim();
    if (!name) return;
    open.project = { ...open.project, name };
    void renameProject(open.project.id, name).then(() => renderProjects());
  });
  document.getElementById('project-delete')!.addEventListener('click', () => {
    const open = current;
    if (!open || !confirm(`Delete project “${open.project.name}”, its files and its conversation?`)) return;
    void (async () => {
      await closeCurrent();
      await Sandbox.deleteStored(open.project.id);
      await removeProject(open.project.id);
      const rest = await listProjects();
      await openProject(rest[0] ?? (await addProject('My project', 'demo')));
    })().catch((err: unknown) => chat.status(`Could not delete: ${err instanceof Error ? err.message : String(err)}`, true));
  });
}

function wireSettings(): void {
  const dialog = new SettingsDialog(document.getElementById('settings-dialog') as HTMLDialogElement, (next) => {
    const networkChanged = next.allowedOrigins.join('\n') !== settings.allowedOrigins.join('\n');
    settings = next;
    saveSettings(next);
    chat.status(`Model: ${next.model} at ${next.endpoint}`);
    // What the sandbox may reach is fixed when it opens: reopen it with the new grants.
    if (networkChanged && current) {
      if (turnStop) {
        reopenAfterTurn = true;
        chat.status('The new network grants apply when this turn ends.');
      } else {
        void openProject(current.project);
      }
    }
  });
  document.getElementById('settings')!.addEventListener('click', () => dialog.open(settings));
}

const THEME_KEY = 'sandtab-agent:theme';

/** Light or dark, for the page, the terminal and the editor; remembered in this browser. */
function applyTheme(theme: 'light' | 'dark'): void {
  document.documentElement.dataset.theme = theme;
  current?.terminal.setAttribute('theme', theme);
  editor.themeChanged();
}

function wireTheme(): void {
  const stored = localStorage.getItem(THEME_KEY);
  const initial = stored === 'light' || stored === 'dark' ? stored : matchMedia('(prefers-color-scheme: light)').matches ? 'light' : 'dark';
  applyTheme(initial);
  document.getElementById('theme')!.addEventListener('click', () => {
    const next = document.documentElement.dataset.theme === 'light' ? 'dark' : 'light';
    localStorage.setItem(THEME_KEY, next);
    applyTheme(next);
  });
}

/** The project's "Run scripts" switch (Preview tab), drawn by this page, never by the
 * project's HTML: off unless the person turns it on, for this project only. */
function showRunScripts(): void {
  const on = current?.project.runScripts === true;
  (document.getElementById('run-scripts') as HTMLInputElement).checked = on;
  document.getElementById('run-scripts-note')!.hidden = !on;
}

function wireRunScripts(): void {
  const box = document.getElementById('run-scripts') as HTMLInputElement;
  box.addEventListener('change', () => {
    const open = current;
    if (!open) return;
    open.project = { ...open.project, runScripts: box.checked };
    showRunScripts();
    void setRunScripts(open.project.id, box.checked).catch(panelError);
    void preview.reload(true);
  });
}

function wireTabs(): void {
  const tabs = document.querySelectorAll<HTMLButtonElement>('[role="tab"]');
  for (const tab of tabs) {
    tab.addEventListener('click', () => {
      for (const other of tabs) {
        const selected = other === tab;
        other.setAttribute('aria-selected', String(selected));
        document.getElementById(other.getAttribute('aria-controls')!)!.hidden = !selected;
      }
      if (tab.id === 'tab-preview') preview.show();
      else preview.hide();
      if (tab.id === 'tab-editor') editor.show();
    });
  }
  // The tree: a file chosen (click, Enter) opens in the editor; its toolbar makes,
  // renames and deletes files.
  wireFileTree({
    sandbox: () => current?.sandbox ?? null,
    open: (path) => {
      document.getElementById('tab-editor')!.click();
      void editor.open(path);
    },
    changed: refresh,
    say: status,
  });
}

/** Offline use: the service worker keeps the site's files (see sw.js). A browser that
 * refuses it (private windows, say) still runs the agent, online only. */
function registerServiceWorker(): void {
  if (!('serviceWorker' in navigator)) return;
  navigator.serviceWorker.register('sw.js').catch((err: unknown) => {
    console.warn(`sandtab: offline use is not available: ${err instanceof Error ? err.message : String(err)}`);
  });
}

/** Page state the demo keeps beside the sandbox (the open project, the project list) is
 * a convenience: when the origin's storage is full, saying so beats not starting, since
 * the person needs the sandbox to free space. */
async function remembered(what: string, write: Promise<unknown>): Promise<void> {
  try {
    await write;
  } catch (err) {
    status(`Could not save ${what}: ${err instanceof Error ? err.message : String(err)}`, true);
  }
}

/** The project `id`, added to the list if new; still opened when the list cannot be saved. */
async function openingProject(name: string, id: string): Promise<Project> {
  const unsaved: Project = { id, name, created: Date.now() };
  let project = unsaved;
  await remembered('the project list', addProject(name, id).then((added) => (project = added)));
  return project;
}

async function main(): Promise<void> {
  wireTheme();
  wireProjects();
  wireSettings();
  wireTabs();
  wireRunScripts();
  wireStorageControls(() => current!.sandbox, refresh);
  document.getElementById('audit-export')!.addEventListener('click', () => {
    const open = current;
    if (!open) return;
    void open.sandbox.auditLog().then((log) => download(new TextEncoder().encode(log), `${open.project.id}-audit.jsonl`, 'application/jsonl'), panelError);
  });
  // Firefox asks the user before granting persistence: never wait for the answer.
  void Sandbox.requestPersistence()
    .catch(() => false)
    .then((granted) => {
      persisted = granted;
      if (current) return refreshStorage(current.sandbox, persisted);
    })
    .catch(panelError);
  // `?sandbox=name` opens (and lists) the project of that stored sandbox; otherwise the
  // project open last time, or a first one.
  const wanted = params.get('sandbox');
  const projects = await listProjects();
  const lastId = await activeProjectId();
  const project = wanted
    ? await openingProject(wanted, wanted)
    : (projects.find((p) => p.id === lastId) ?? projects[0] ?? (await openingProject('My project', 'demo')));
  await openProject(project);
  // Only once the terminal shows its prompt: the worker's install downloads what the page
  // has not loaded yet (the editor), which must not compete with the first prompt.
  const started = current?.terminal.ready ?? Promise.resolve();
  void started.then(registerServiceWorker, registerServiceWorker);
  // The terminal takes the keyboard only if the person has not started typing elsewhere
  // (the prompt, say) while the project opened.
  const focused = document.activeElement;
  if (!focused || focused === document.body) current?.terminal.focus();
  document.body.dataset.started = 'yes';
}

main().catch((err: unknown) => {
  // Say what went wrong on the page itself, not only in the console.
  const box = document.createElement('pre');
  box.className = 'startup-error';
  box.textContent = `sandtab could not start: ${err instanceof Error ? err.message : String(err)}`;
  document.getElementById('terminal-panel')!.replaceChildren(box);
  throw err;
});
