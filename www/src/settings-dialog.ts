// The settings dialog: provider, endpoint, model, key, limits, and the origins the
// agent's sandbox may reach. Bad values are said next to the form and not saved.

import { DEFAULT_SETTINGS, parseOrigin, validateSettings, type AgentSettings } from './settings';
import { listModels } from './agent/clients';

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
    dialog.querySelector('#settings-test')!.addEventListener('click', () => void this.#test());
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

  /** Test connection: asks the endpoint for its models with the key as typed; says how
   * many, offers them for the Model field, and says whether the model typed is one. */
  async #test(): Promise<void> {
    const field = this.#field;
    const status = this.dialog.querySelector<HTMLElement>('.connection-status')!;
    const button = this.dialog.querySelector<HTMLButtonElement>('#settings-test')!;
    status.classList.remove('error');
    status.textContent = 'Asking…';
    button.disabled = true;
    try {
      const models = await listModels({
        provider: field('provider').value === 'anthropic' ? 'anthropic' : 'openai',
        endpoint: field('endpoint').value,
        apiKey: field('apiKey').value.trim(),
      });
      const list = this.dialog.querySelector('#model-list')!;
      list.replaceChildren(...models.map((id) => Object.assign(document.createElement('option'), { value: id })));
      const model = field('model').value.trim();
      const known = model === '' ? '' : models.includes(model) ? `; ${model} is one` : `; ${model} is not among them`;
      status.textContent = `Connected: ${models.length === 1 ? '1 model' : `${models.length} models`}${known}.`;
    } catch (err) {
      status.classList.add('error');
      status.textContent = `Could not connect: ${err instanceof Error ? err.message : String(err)}`;
    } finally {
      button.disabled = false;
    }
  }

  open(settings: AgentSettings): void {
    const field = this.#field;
    field('provider').value = settings.provider;
    field('endpoint').value = settings.endpoint;
    field('model').value = settings.model;
    field('apiKey').value = settings.apiKey;
    field('maxTokens').value = String(settings.maxTokens);
    field('timeoutSeconds').value = String(settings.timeoutSeconds);
    field('contextTokens').value = String(settings.contextTokens);
    field('allowedOrigins').value = settings.allowedOrigins.join('\n');
    this.#error.textContent = '';
    this.dialog.querySelector('.connection-status')!.textContent = '';
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
      contextTokens: Number(field('contextTokens').value),
      allowedOrigins: [...new Set(origins)],
    };
    return validateSettings(settings) ?? settings;
  }
}
