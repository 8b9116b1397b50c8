// Which folder may import which (STYLE.md "Dependency direction"), checked by `npm run lint`.
// Type-only imports count: a type import upward is still the wire format defining the domain.
const ENGINE = '^src-main/engine/';

/** The engine's domains and what each may import besides itself. */
const DOMAINS = {
  base: [],
  models: ['base'],
  // kb stores vectors it is given and caches calls it does not make: it knows the two interfaces only.
  kb: ['base', 'models/CallCache\\.ts$', 'models/Embedder\\.ts$'],
  ingest: ['base', 'models', 'kb'],
  mder: ['base', 'models', 'kb', 'ingest'],
  qa: ['base', 'models', 'kb', 'ingest'],
  eval: ['base', 'models', 'kb', 'ingest', 'mder', 'qa'],
};

/**
 * The domain files the contract is composed from. Each imports nothing from the project, so the
 * renderer and the preload, which import the contract, reach no engine code through it.
 */
const CONTRACT_LEAVES = [
  'base/progress',
  'eval/types',
  'kb/views',
  'kb/kbNaming',
  'kb/ocrConfidence',
  'kb/rdf/SparqlResult',
  'kb/rdf/RdfFormat',
  'kb/store/StoreStatus',
  'models/views',
  'qa/Answer',
].map((file) => `${ENGINE}${file}\\.ts$`);
const CONTRACT = `${ENGINE}api/contract(\\.ts$|/)`;
/**
 * Contract leaves the renderer may import as values: the rules its forms check before they call, and
 * the OCR confidence below which the Corpus screen flags a page as `polyhop doc` does.
 */
const RENDERER_VALUE_LEAVES = ['kb/kbNaming', 'kb/ocrConfidence'].map((file) => `${ENGINE}${file}\\.ts$`);

const layering = Object.entries(DOMAINS).map(([domain, allowed]) => ({
  name: `layering-${domain}`,
  comment: `${domain}/ may import only ${allowed.length ? allowed.join(', ') : 'nothing else in the engine'}`,
  severity: 'error',
  from: { path: `${ENGINE}${domain}/` },
  to: {
    path: ENGINE,
    pathNot: [`${ENGINE}${domain}/`, ...allowed.map((a) => `${ENGINE}${a.includes('/') ? a : `${a}/`}`)],
  },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'engine-no-electron',
      comment: 'The engine runs in Electron, browser mode and the CLI alike: it never imports electron.',
      severity: 'error',
      from: { path: ENGINE },
      to: { path: '^electron($|/)' },
    },
    {
      name: 'nothing-below-api-imports-api',
      comment: 'The wire format never defines the domain: the contract is composed from the domains, not the reverse.',
      severity: 'error',
      from: { path: `${ENGINE}(?!api/)` },
      to: { path: `${ENGINE}api/` },
    },
    ...layering,
    {
      name: 'front-doors-use-the-api',
      comment: 'main.ts, serve.ts and the CLI only wire: they reach the engine through engine/api.',
      severity: 'error',
      from: { path: '^src-main/(main|serve|cli)\\.ts$|^src-main/cli/' },
      to: { path: ENGINE, pathNot: `${ENGINE}api/` },
    },
    {
      name: 'renderer-knows-only-the-contract',
      comment: 'The renderer and the preload know the engine only through the Api contract.',
      severity: 'error',
      from: { path: '^src-(renderer|preload)/' },
      to: { path: '^src-main/', pathNot: [CONTRACT, ...RENDERER_VALUE_LEAVES] },
    },
    {
      name: 'front-ends-import-contract-types',
      comment:
        'The renderer and the preload take the contract as types only (import type / export type), so their ' +
        'bundles carry no engine code; the values they need are declared on their side against those types.',
      severity: 'error',
      from: { path: '^src-(renderer|preload)/' },
      to: { path: CONTRACT, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'contract-composed-from-leaves',
      comment: 'The contract imports the domains only through their leaf type files (CONTRACT_LEAVES).',
      severity: 'error',
      from: { path: CONTRACT },
      to: { path: ENGINE, pathNot: [CONTRACT, ...CONTRACT_LEAVES] },
    },
    {
      name: 'contract-leaves-import-nothing',
      comment: 'A leaf the contract is composed from imports nothing of the project and no Node built-in.',
      severity: 'error',
      from: { path: CONTRACT_LEAVES },
      to: { path: '^src-' },
    },
    {
      name: 'contract-leaves-no-node',
      comment: 'The renderer bundles what the contract reaches: no Node built-ins there.',
      severity: 'error',
      from: { path: [CONTRACT, ...CONTRACT_LEAVES] },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'no-unresolvable',
      comment: 'An import that resolves to nothing is a typo or a missing dependency.',
      severity: 'error',
      from: {},
      // electron is an optional dependency: where it could not be installed, its import cannot resolve.
      to: { couldNotResolve: true, pathNot: '^electron$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|out|\\.cache)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
