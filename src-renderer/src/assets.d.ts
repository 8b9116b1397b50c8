/** Vite's `?url` imports: the asset's URL in the built app (same origin, so the CSP's 'self' allows it). */
declare module '*?url' {
  const url: string;
  export default url;
}

/** Vite's `import.meta.glob` (lib/pdfPage.ts: the bundled CMaps), typed for the lazy form used here. */
interface ImportMeta {
  glob<T>(pattern: string, options: { query: string; import: 'default' }): Record<string, () => Promise<T>>;
}
