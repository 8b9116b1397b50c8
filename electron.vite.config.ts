import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';
import pkg from './package.json';

// electron-vite reads Electron's major version from the installed package to pick build
// targets; on machines where Electron's binary (and so the package) could not be installed,
// take it from our own pin so the app still builds for browser mode.
process.env.ELECTRON_MAJOR_VER ??= pkg.optionalDependencies.electron.split('.')[0];

// Main and preload keep their npm dependencies external (native modules such as better-sqlite3
// and node-llama-cpp load from node_modules); the renderer is a plain browser bundle that
// browser mode serves too.
export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      // The engine's threads are entries of their own, next to main.js, where the engine starts
      // them from (DocumentLoader: documentWorker.js; StoreWorker (for RdfView): rdfWorker.js; Ocr: ocrThread.js).
      rollupOptions: {
        input: {
          main: resolve(__dirname, 'src-main/main.ts'),
          documentWorker: resolve(__dirname, 'src-main/engine/ingest/load/documentWorker.ts'),
          rdfWorker: resolve(__dirname, 'src-main/engine/kb/rdf/rdfWorker.js'),
          ocrThread: resolve(__dirname, 'src-main/engine/ingest/load/ocr/ocrThread.js'),
        },
      },
    },
  },
  preload: {
    build: {
      // A sandboxed preload cannot require npm packages: bundle what it imports (bridge.ts, methods.ts).
      externalizeDeps: false,
      outDir: 'out/preload',
      rollupOptions: {
        input: { index: resolve(__dirname, 'src-preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(__dirname, 'src-renderer'),
    // Relative asset URLs: the window loads the files over file://, browser mode over http.
    base: './',
    build: {
      minify: true,
      outDir: resolve(__dirname, 'out/renderer'),
      rollupOptions: { input: resolve(__dirname, 'src-renderer/index.html') },
    },
    // PDF.js's binary CMaps (lib/pdfPage.ts imports them `?inline`).
    assetsInclude: ['**/*.bcmap'],
    plugins: [react()],
  },
});
