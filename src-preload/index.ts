/**
 * The renderer's only door to the engine: one invoke per Api call, one event stream, and the
 * native file dialogs. Sandboxed preload: no Node, no raw ipcRenderer handed out, channel names
 * fixed here.
 */
import { contextBridge, ipcRenderer, webUtils, type IpcRendererEvent } from 'electron';
import type { EventName, Reply } from '../src-main/engine/api/contract.js';
import {
  DIALOG_CHANNELS,
  IPC_EVENT_CHANNEL,
  IPC_INVOKE_CHANNEL,
  OPEN_DOCUMENT_CHANNEL,
  type OpenDocumentRequest,
  type PolyhopBridge,
  type SavePathOptions,
} from '../src-renderer/api/bridge.js';
import { METHODS } from './methods.js';

contextBridge.exposeInMainWorld('polyhop', {
  invoke(method: string, request: unknown): Promise<Reply<unknown>> {
    if (!METHODS.has(method))
      return Promise.resolve({
        ok: false,
        error: { code: 'INVALID_REQUEST', message: `Unknown method: ${method}`, details: {} },
      });
    return ipcRenderer.invoke(IPC_INVOKE_CHANNEL, method, request) as Promise<Reply<unknown>>;
  },
  /** The path of a file dropped on the window (sandboxed pages cannot see paths otherwise). */
  pathForFile(file: File): string {
    return webUtils.getPathForFile(file);
  },
  onEvent(listener: (event: { name: EventName; payload: unknown }) => void): () => void {
    const handler = (_: IpcRendererEvent, event: { name: EventName; payload: unknown }): void => listener(event);
    ipcRenderer.on(IPC_EVENT_CHANNEL, handler);
    return () => ipcRenderer.off(IPC_EVENT_CHANNEL, handler);
  },
  /** Only paths come back; the main process validates what goes in and owns the dialogs. */
  dialogs: {
    chooseFiles: (): Promise<string[] | null> => ipcRenderer.invoke(DIALOG_CHANNELS.chooseFiles),
    chooseFolder: (): Promise<string | null> => ipcRenderer.invoke(DIALOG_CHANNELS.chooseFolder),
    chooseSavePath: (options: SavePathOptions): Promise<string | null> =>
      ipcRenderer.invoke(DIALOG_CHANNELS.chooseSavePath, {
        defaultName: options.defaultName,
        extension: options.extension,
      }),
  },
  shell: {
    openDocument: (request: OpenDocumentRequest): Promise<{ opened: boolean; error: string | null }> =>
      ipcRenderer.invoke(OPEN_DOCUMENT_CHANNEL, { kb: request.kb, documentId: request.documentId }),
  },
} satisfies PolyhopBridge);
