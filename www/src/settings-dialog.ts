// The settings dialog: provider, endpoint, model, key, limits, and the origins the
// agent's sandbox may reach. Bad values are said next to the form and not saved.

import { DEFAULT_SETTINGS, parseOrigin, validateSettings, type AgentSettings } from './settings';

const ENDPOINTS = { openai: 'https://api.openai.com/v1', anthropic: 'https://api.anthropic.com/v1' };

export class SettingsDialog {
  readonly #form: HTMLFormElement;
  readonly #error: HTMLElement;

  constructor(
    readonly dialog: HTMLDialogElement,
    onSave: (settings: AgentSettings) => void,
  ) {
    this.#form = dialog.querySelector('form')!;
    this.#error = dialog.querySelector('.form-error')!;
    const field = this.#field;
    // Switching provider suggests its endpoint, unless the user typed their own.
    field('provider').addEventListener('change', () => {
      const endpoint = field('endpoint');
      const provider = field('provider').value as keyof typeof ENDPOINTS;
      if (Object.values(ENDPOINTS).includes(endpoint.value.trim()) || !endpoint.value.trim()) endpoint.value = ENDPOINTS[provider];
    });
    dialog.querySelector('#settings-cancel')!.addEventListener('click', () => dialog.close());
    this.#form.addEventListener('submit', (event) => {
      event.preventDefault();
      const settings = this.#read();
      if (typeof settings === 'string') {
        this.#error.textContent = settings;
        return;
      }
      onSave(settings);
      dialog.close();
    });
  }

  #field = (name: string) => this.#form.elements.namedItem(name) as HTMLInputElement;

  open(settings: AgentSettings): void {
    const field = this.#field;
    field('provider').value = settings.provider;
    field('endpoint').value = settings.endpoint;
    field('model').value = settings.model;
    field('apiKey').value = settings.apiKey;
    field('maxTokens').value = String(settings.maxTokens);
    field('timeoutSeconds').value = String(settings.timeoutSeconds);
    field('allowedOrigins').value = settings.allowedOrigins.join('\n');
    this.#error.textContent = '';
    this.dialog.showModal();
  }

  /** The form's settings, or what is wrong with them. */
  #read(): AgentSettings | string {
    const field = this.#field;
    const origins: string[] = [];
    for (const line of field('allowedOrigins').value.split('\n')) {
      if (!line.trim()) continue;
      try {
        origins.push(parseOrigin(line));
      } catch (err) {
        return `Allowed origins: ${(err as Error).message}.`;
      }
    }
    const settings: AgentSettings = {
      ...DEFAULT_SETTINGS,
      provider: field('provider').value === 'anthropic' ? 'anthropic' : 'openai',
      endpoint: field('endpoint').value.trim(),
      model: field('model').value.trim(),
      apiKey: field('apiKey').value.trim(),
      maxTokens: Number(field('maxTokens').value),
      timeoutSeconds: Number(field('timeoutSeconds').value),
      allowedOrigins: [...new Set(origins)],
    };
    return validateSettings(settings) ?? settings;
  }
}
