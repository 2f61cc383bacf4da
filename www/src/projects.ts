// Projects: named sandboxes, each with its conversation. The list and the conversations
// are kept in IndexedDB (idb-keyval's store), the files in each project's own stored
// sandbox; reopening the page restores both.

import { del, get, set } from 'idb-keyval';
import type { Conversation } from './agent/loop';

export interface Project {
  /** Also the stored sandbox's name. */
  id: string;
  name: string;
  created: number;
  /** Whether the project's pages run scripts (the preview and the agent's `ui`). Off
   * unless the person turned it on for this project: a script can send data out over
   * WebRTC, which no Content Security Policy stops, and a busy one freezes the tab. */
  runScripts?: boolean;
}

const LIST_KEY = 'sandtab-agent:projects';
const ACTIVE_KEY = 'sandtab-agent:active';
const conversationKey = (id: string) => `sandtab-agent:conversation:${id}`;

export async function listProjects(): Promise<Project[]> {
  return (await get<Project[]>(LIST_KEY)) ?? [];
}

async function saveList(projects: Project[]): Promise<void> {
  await set(LIST_KEY, projects);
}

/** A sandbox name not used yet, from the project's name. */
function freshId(name: string, taken: Set<string>): string {
  const base = name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 40) || 'project';
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
  return id;
}

/** Adds a project (`id` given: the project of that stored sandbox, if not listed yet). */
export async function addProject(name: string, id?: string): Promise<Project> {
  const projects = await listProjects();
  const existing = id === undefined ? undefined : projects.find((project) => project.id === id);
  if (existing) return existing;
  const project = { id: id ?? freshId(name, new Set(projects.map((p) => p.id))), name, created: Date.now() };
  await saveList([...projects, project]);
  return project;
}

export async function renameProject(id: string, name: string): Promise<void> {
  const projects = await listProjects();
  await saveList(projects.map((project) => (project.id === id ? { ...project, name } : project)));
}

export async function setRunScripts(id: string, on: boolean): Promise<void> {
  const projects = await listProjects();
  await saveList(projects.map((project) => (project.id === id ? { ...project, runScripts: on } : project)));
}

/** Forgets the project and its conversation (the caller deletes the stored sandbox). */
export async function removeProject(id: string): Promise<void> {
  await saveList((await listProjects()).filter((project) => project.id !== id));
  await del(conversationKey(id));
}

export async function activeProjectId(): Promise<string | undefined> {
  return get<string>(ACTIVE_KEY);
}

export async function setActiveProject(id: string): Promise<void> {
  await set(ACTIVE_KEY, id);
}

export async function loadConversation(id: string): Promise<Conversation> {
  const stored = await get<Conversation>(conversationKey(id));
  if (!stored) return { turns: [], messages: [] };
  if (!Array.isArray(stored.turns) || !Array.isArray(stored.messages)) {
    // Not a conversation this page wrote: keep it aside (nothing is lost) and start anew.
    await set(`${conversationKey(id)}:unreadable:${Date.now()}`, stored);
    console.warn(`sandtab: the stored conversation of project ${id} could not be read; it was kept aside`);
    return { turns: [], messages: [] };
  }
  // A turn that was running when the page closed did not finish.
  for (const turn of stored.turns) {
    if (turn.status === 'running') {
      turn.status = 'stopped';
      turn.error = 'the page was closed during this turn';
      for (const item of turn.items) if (item.kind === 'tool' && item.status === 'running') item.status = 'stopped';
    }
  }
  return stored;
}

export async function saveConversation(id: string, conversation: Conversation): Promise<void> {
  await set(conversationKey(id), conversation);
}
