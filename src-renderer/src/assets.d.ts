/** Vite's `?url` imports: the asset's URL in the built app (same origin, so the CSP's 'self' allows it). */
declare module '*?url' {
  const url: string;
  export default url;
}
