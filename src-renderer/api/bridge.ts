/**
 * The desktop window's preload bridge, `window.polyhop`, typed once: src-preload/index.ts
 * implements it, src-main/main.ts answers its dialog channels, the renderer calls it. Browser
 * mode has no bridge (the renderer talks HTTP and shows typed path fields instead of dialogs).
 */
import type { Reply } from '../../src-main/engine/api/contract.js';

/** What "Save as…" proposes: a file name without extension, and the extension its filter allows. */
export interface SavePathOptions {
  defaultName: string;
  extension: string;
}

/** Native dialogs; each resolves to absolute paths, or null when the user cancels. */
export interface PolyhopDialogs {
  /** Files to add (several may be chosen). */
  chooseFiles(): Promise<string[] | null>;
  /** One folder to add (the engine walks it). */
  chooseFolder(): Promise<string | null>;
  /** Where to write a file; the dialog asks before replacing one. */
  chooseSavePath(options: SavePathOptions): Promise<string | null>;
}

/** The system's own programs, for the KB's documents only. */
export interface PolyhopShell {
  /**
   * Opens a document's file (for a part of a mail file: that file) with the system's viewer. The
   * main process takes the path from the KB, never from the renderer. `error` says why it did not open.
   */
  openDocument(request: OpenDocumentRequest): Promise<{ opened: boolean; error: string | null }>;
}

export interface OpenDocumentRequest {
  kb: string;
  documentId: number;
}

export interface PolyhopBridge {
  invoke(method: string, request: unknown): Promise<Reply<unknown>>;
  onEvent(listener: (event: { name: string; payload: unknown }) => void): () => void;
  /** The path of a file dropped on the window (sandboxed pages cannot see paths otherwise). */
  pathForFile(file: File): string;
  dialogs: PolyhopDialogs;
  shell: PolyhopShell;
}

/** The Api's IPC channels: one invoke per call, one event stream. */
export const IPC_INVOKE_CHANNEL = 'polyhop:invoke';
export const IPC_EVENT_CHANNEL = 'polyhop:event';

/** The fixed IPC channels of the dialogs. */
export const DIALOG_CHANNELS = {
  chooseFiles: 'polyhop:dialog:choose-files',
  chooseFolder: 'polyhop:dialog:choose-folder',
  chooseSavePath: 'polyhop:dialog:choose-save-path',
} as const;

/** The fixed IPC channel of {@link PolyhopShell.openDocument}. */
export const OPEN_DOCUMENT_CHANNEL = 'polyhop:shell:open-document';

/** openDocument's request as the main process accepts it: a KB name and a positive integer id; anything else is null. */
export function parseOpenDocumentRequest(value: unknown): OpenDocumentRequest | null {
  if (typeof value !== 'object' || value === null) return null;
  const { kb, documentId } = value as Record<string, unknown>;
  if (typeof kb !== 'string' || kb.length === 0 || kb.length > 200) return null;
  if (typeof documentId !== 'number' || !Number.isSafeInteger(documentId) || documentId < 1) return null;
  return { kb, documentId };
}

/**
 * chooseSavePath's options as the main process accepts them from the renderer: a plain file name
 * (no folder, no control characters, at most 120 characters) and an extension of 1–8 letters or
 * digits; anything else is null.
 */
export function parseSavePathOptions(value: unknown): SavePathOptions | null {
  if (typeof value !== 'object' || value === null) return null;
  const { defaultName, extension } = value as Record<string, unknown>;
  if (typeof defaultName !== 'string' || typeof extension !== 'string') return null;
  if (defaultName.length === 0 || defaultName.length > 120 || /[/\\\u0000-\u001f]|^\.+$/.test(defaultName)) return null;
  if (!/^[A-Za-z0-9]{1,8}$/.test(extension)) return null;
  return { defaultName, extension };
}
