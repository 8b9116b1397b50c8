/**
 * Electron front door: one hardened window, IPC handed to the engine. Nothing else lives here.
 */
import { app, BrowserWindow, dialog, ipcMain, session, shell, type IpcMainInvokeEvent } from 'electron';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Engine } from './engine/api/Engine.js';
import { appPaths } from './engine/api/paths.js';
import { DOCUMENT_EXTENSIONS } from './engine/api/documentExtensions.js';
import { logUnhandledRejections } from './engine/api/logUnhandledRejections.js';
import { documentFilePath } from './engine/api/handlers/docSource.js';
import {
  DIALOG_CHANNELS,
  IPC_EVENT_CHANNEL,
  IPC_INVOKE_CHANNEL,
  OPEN_DOCUMENT_CHANNEL,
  parseOpenDocumentRequest,
  parseSavePathOptions,
} from '../src-renderer/api/bridge.js';

const here = dirname(fileURLToPath(import.meta.url));
const rendererDir = join(here, '..', 'renderer');
const rendererUrl = pathToFileURL(join(rendererDir, 'index.html'));

/** The renderer may load its own files and nothing else: the app is offline by construction. */
function isOwnFile(url: string): boolean {
  if (!url.startsWith('file://')) return url.startsWith('devtools://');
  try {
    return fileURLToPath(url).startsWith(rendererDir + sep);
  } catch {
    return false;
  }
}

app.enableSandbox();
logUnhandledRejections();

app
  .whenReady()
  .then(async () => {
    const engine = await Engine.create({ paths: appPaths(app.getAppPath(), app.getPath('userData')) });
    // Watched folders are followed while the window runs (catching up first, in the background).
    void engine.watches.start();
    // Model downloads and inference-server calls run in the engine (Node sockets of this process,
    // which this session does not see; their hosts are `networkAllowList(settings)`), never in the
    // renderer: it reaches them only through the Api, so every renderer request outside its own
    // folder stays blocked.
    session.defaultSession.webRequest.onBeforeRequest((details, callback) =>
      callback({ cancel: !isOwnFile(details.url) }),
    );
    session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
    session.defaultSession.setPermissionCheckHandler(() => false);

    const window = new BrowserWindow({
      width: 1280,
      height: 860,
      show: false,
      webPreferences: {
        preload: join(here, '..', 'preload', 'index.cjs'),
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        nodeIntegrationInWorker: false,
        webviewTag: false,
        spellcheck: false,
        // A middle click must not open a link in a new window (navigation is limited to the app's own files).
        disableBlinkFeatures: 'Auxclick',
      },
    });
    window.once('ready-to-show', () => window.show());
    window.webContents.on('will-navigate', (event) => event.preventDefault());
    window.webContents.on('will-attach-webview', (event) => event.preventDefault());
    window.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));

    const fromRenderer = (event: IpcMainInvokeEvent): boolean => event.senderFrame?.url === rendererUrl.href;
    ipcMain.handle(IPC_INVOKE_CHANNEL, (event, method: unknown, payload: unknown) => {
      if (!fromRenderer(event))
        return { ok: false, error: { code: 'UNAUTHORIZED', message: 'Unknown sender', details: {} } };
      return engine.call(method, payload);
    });
    // Native dialogs, modal to the window: they hand back absolute paths (null when cancelled); the
    // engine then reads or writes those paths through the Api like typed ones.
    ipcMain.handle(DIALOG_CHANNELS.chooseFiles, async (event) => {
      if (!fromRenderer(event)) return null;
      const chosen = await dialog.showOpenDialog(window, {
        properties: ['openFile', 'multiSelections'],
        // Documents first (scans as PNG/JPEG/TIFF among them); any file stays choosable and gets its reason.
        filters: [
          { name: 'Documents', extensions: [...DOCUMENT_EXTENSIONS] },
          { name: 'All files', extensions: ['*'] },
        ],
      });
      return chosen.canceled || chosen.filePaths.length === 0 ? null : chosen.filePaths;
    });
    ipcMain.handle(DIALOG_CHANNELS.chooseFolder, async (event) => {
      if (!fromRenderer(event)) return null;
      const chosen = await dialog.showOpenDialog(window, { properties: ['openDirectory'] });
      return chosen.canceled ? null : (chosen.filePaths[0] ?? null);
    });
    ipcMain.handle(DIALOG_CHANNELS.chooseSavePath, async (event, payload: unknown) => {
      const options = parseSavePathOptions(payload);
      if (!fromRenderer(event) || !options) return null;
      const chosen = await dialog.showSaveDialog(window, {
        defaultPath: join(app.getPath('documents'), `${options.defaultName}.${options.extension}`),
        filters: [{ name: options.extension.toUpperCase(), extensions: [options.extension] }],
        properties: ['showOverwriteConfirmation', 'createDirectory'],
      });
      return chosen.canceled || !chosen.filePath ? null : chosen.filePath;
    });
    // Only a file the KB knows as a document is opened (its path from the KB), with the system's viewer.
    ipcMain.handle(OPEN_DOCUMENT_CHANNEL, async (event, payload: unknown) => {
      const request = parseOpenDocumentRequest(payload);
      if (!fromRenderer(event) || !request) return { opened: false, error: 'Unknown sender or request' };
      try {
        const error = await shell.openPath(await documentFilePath(engine, request.kb, request.documentId));
        return { opened: error === '', error: error || null };
      } catch (error) {
        return { opened: false, error: error instanceof Error ? error.message : String(error) };
      }
    });
    engine.onEvent((event) => {
      if (!window.isDestroyed()) window.webContents.send(IPC_EVENT_CHANNEL, event);
    });

    app.on('web-contents-created', (_e, contents) => {
      contents.on('will-navigate', (event) => event.preventDefault());
      contents.setWindowOpenHandler(() => ({ action: 'deny' }));
    });

    await window.loadURL(rendererUrl.href);
    app.on('window-all-closed', () => {
      void engine.dispose().finally(() => app.quit());
    });
  })
  .catch((error: unknown) => {
    // Without an engine (a data folder it cannot open, say) there is no app: say why and quit
    // instead of leaving a process without a window.
    dialog.showErrorBox('Polyhop could not start', error instanceof Error ? error.message : String(error));
    app.quit();
  });
