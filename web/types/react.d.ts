// <sandtab-terminal> in React 19 JSX (TSX): `import type {} from 'sandtab/react';` once
// in the app. React 19 sets `sandbox` as a property, and the rest as attributes.
import type { DetailedHTMLProps, HTMLAttributes } from 'react';
import type { Sandbox } from '../dist/sandbox.js';
import type { SandtabTerminal } from '../dist/terminal.js';
import type { StorageKind } from '../dist/types.js';

/** What `<sandtab-terminal>` takes besides an element's usual attributes. */
export interface SandtabTerminalProps {
  /** `dark` (the default) or `light`. */
  theme?: 'dark' | 'light';
  /** The sandbox to open and share with the page (default `"default"`). */
  name?: string;
  /** Where that sandbox keeps its files (default IndexedDB). */
  storage?: StorageKind;
  /** A sandbox to run commands in instead (set before the element connects). */
  sandbox?: Sandbox | null;
}

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'sandtab-terminal': DetailedHTMLProps<HTMLAttributes<SandtabTerminal>, SandtabTerminal> & SandtabTerminalProps;
    }
  }
}
