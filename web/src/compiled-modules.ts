// Compiled WebAssembly kept by the page for the workers it starts next, so that a second
// sandbox (another project, a reopened one) does not compile the same module again.

/** The runtime compiled by this page's first worker, by worker script URL: later
 * workers instantiate it instead of compiling the module again. */
export const compiledRuntimes = new Map<string, WebAssembly.Module>();

/** Guest modules compiled for the engine tier by this page's workers, by module hash and
 * limits: a new sandbox runs CPython without compiling it again. Kept to the last few. */
export const engineModules = new Map<string, WebAssembly.Module>();
const ENGINE_MODULES_KEPT = 8;

export function keepEngineModule(key: string, module: WebAssembly.Module): void {
  engineModules.delete(key);
  engineModules.set(key, module);
  for (const oldest of engineModules.keys()) {
    if (engineModules.size <= ENGINE_MODULES_KEPT) break;
    engineModules.delete(oldest);
  }
}
