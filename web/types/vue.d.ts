// <sandtab-terminal> in Vue templates (volar / vue-tsc): `import type {} from 'sandtab/vue';`
// once in the app, and tell the compiler it is a custom element
// (`compilerOptions.isCustomElement: (tag) => tag === 'sandtab-terminal'`).
import type { DefineComponent } from 'vue';
import type { Sandbox } from '../dist/sandbox.js';
import type { StorageKind } from '../dist/types.js';

/** What `<sandtab-terminal>` takes. */
export interface SandtabTerminalProps {
  /** `dark` (the default) or `light`. */
  theme?: 'dark' | 'light';
  /** The sandbox to open and share with the page (default `"default"`). */
  name?: string;
  /** Where that sandbox keeps its files (default IndexedDB). */
  storage?: StorageKind;
  /** A sandbox to run commands in instead (`:sandbox.prop="box"`, before it connects). */
  sandbox?: Sandbox | null;
}

declare module 'vue' {
  interface GlobalComponents {
    'sandtab-terminal': DefineComponent<SandtabTerminalProps>;
  }
}
