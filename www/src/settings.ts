// The agent's settings: the model endpoint, model and key, and the origins the agent's
// sandbox may reach. Kept in this browser's localStorage; the key is sent only to the
// configured endpoint (by the model clients), never to the sandbox.

import type { ModelSettings } from './agent/clients';

export interface AgentSettings extends ModelSettings {
  /** Origins the sandbox may fetch from (`curl`, the `fetch` tool). Empty: no network. */
  allowedOrigins: string[];
}

const KEY = 'sandtab-agent:settings';

export const DEFAULT_SETTINGS: AgentSettings = {
  provider: 'openai',
  endpoint: 'https://api.openai.com/v1',
  model: '',
  apiKey: '',
  maxTokens: 4096,
  timeoutSeconds: 60,
  contextTokens: 128_000,
  allowedOrigins: [],
};

export function loadSettings(): AgentSettings {
  try {
    const stored = JSON.parse(localStorage.getItem(KEY) ?? '{}') as Partial<AgentSettings>;
    return { ...DEFAULT_SETTINGS, ...stored };
  } catch {
    return { ...DEFAULT_SETTINGS };
  }
}

export function saveSettings(settings: AgentSettings): void {
  localStorage.setItem(KEY, JSON.stringify(settings));
}

/** Checks an origin typed by the user: `https://host[:port]`, nothing after it. */
export function parseOrigin(text: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new Error(`"${text}" is not a URL (write it as https://example.com)`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`"${text}": only http and https origins can be granted`);
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) {
    throw new Error(`"${text}" is more than an origin (write only the scheme, host and port)`);
  }
  return url.origin;
}

/** Checks the whole form, saying what is wrong. */
export function validateSettings(settings: AgentSettings): string | null {
  if (!/^https?:\/\/[^/]/.test(settings.endpoint.trim())) return 'The endpoint must be an http(s) URL.';
  if (!settings.model.trim()) return 'Name the model to use.';
  if (!Number.isInteger(settings.maxTokens) || settings.maxTokens < 1) return 'Max tokens must be a whole number from 1.';
  if (!Number.isFinite(settings.timeoutSeconds) || settings.timeoutSeconds < 1) return 'The timeout must be at least 1 second.';
  if (!Number.isInteger(settings.contextTokens) || settings.contextTokens < 1000) return 'The context window must be a whole number of tokens from 1000.';
  if (settings.maxTokens >= settings.contextTokens) return 'Max tokens must be less than the context window.';
  return null;
}
