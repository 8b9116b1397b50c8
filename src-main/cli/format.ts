import {
  OCR_LOW_CONFIDENCE,
  type DoctorReport,
  type DocumentDetail,
  type SparqlResult,
} from '../engine/api/contract.js';

export function printTable(rows: readonly Record<string, unknown>[]): void {
  if (rows.length === 0) {
    console.log('(none)');
    return;
  }
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cell = (v: unknown): string =>
    (v === null || v === undefined ? '' : String(v)).replace(/\s+/g, ' ').slice(0, 80);
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (values: string[]): string =>
    values
      .map((v, i) => v.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  console.log(line(columns));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const r of rows) console.log(line(columns.map((c) => cell(r[c]))));
}

/** Whether the model reasons, and whether steps whose policy says "off" can switch it off. */
export function chatReasoningLine(chat: { reasons: boolean; switchable: boolean }): string {
  if (!chat.reasons) return 'does not reason';
  return chat.switchable
    ? 'reasons; steps without reasoning switch it off with its template'
    : 'always reasons (its template has no switch to turn it off)';
}

/** `chosen`: the `ocrLanguages` setting (null: every installed language). */
export function printDoctor(report: DoctorReport, chosen: string[] | null = null): void {
  console.log('Polyhop doctor\n');
  console.log('Versions:');
  for (const [k, v] of Object.entries(report.versions)) console.log(`  ${k.padEnd(28)} ${v}`);
  console.log(
    `\nllama.cpp backend: ${report.llama.backend}${report.llama.error ? ` (error: ${report.llama.error})` : ''}`,
  );
  if (report.llama.devices.length === 0) console.log('  GPU devices: none found (generation runs on the CPU)');
  for (const d of report.llama.devices)
    console.log(
      `  GPU: ${d.name}  ${(d.vramFreeBytes / 2 ** 30).toFixed(1)} / ${(d.vramTotalBytes / 2 ** 30).toFixed(1)} GiB free`,
    );
  console.log(
    `\nElectron window: ${report.electronBinary.present ? 'available' : `unavailable — ${report.electronBinary.reason}; use browser mode (npm run serve)`}`,
  );
  console.log(`\nModels folder: ${report.modelsDir}`);
  if (report.models.length === 0)
    console.log('  no models found: put GGUF/ONNX models here or run `polyhop models download <id>`');
  for (const m of report.models) console.log(`  ${m.kind.padEnd(5)} ${m.file}`);
  for (const s of [report.generation, report.embedding]) {
    if (s)
      console.log(
        `\n${s.role} model: ${s.path}\n  ${s.backend}, ${s.gpuLayers}/${s.totalLayers} layers on GPU — ${s.explanation}`,
      );
    if (s?.chat) console.log(`  chat wrapper: ${s.chat.wrapper}; ${chatReasoningLine(s.chat)}`);
  }
  for (const error of report.modelErrors) console.log(`\nSelected model failed to load: ${error}`);
  console.log(`\nNetwork: ${networkLine(report)}`);
  console.log(`\nOCR languages: ${ocrLine(report.ocrLanguages, chosen)}`);
  console.log(`\nData directory: ${report.dataDir.path} (${report.dataDir.writable ? 'writable' : 'NOT writable'})`);
}

/**
 * The OCR languages installed and those scans are read in:
 * "installed chi_sim (zh-Hans), eng (en); scans are read in eng (setting ocrLanguages)".
 */
export function ocrLine(installed: DoctorReport['ocrLanguages'], chosen: string[] | null): string {
  if (installed.length === 0) return 'none installed (npm i -E @tesseract.js-data/<code>)';
  const list = installed.map((l) => (l.tag ? `${l.code} (${l.tag})` : l.code)).join(', ');
  const used = chosen === null ? 'all of them' : chosen.join(', ');
  return `installed ${list}; scans are read in ${used} (setting ocrLanguages)`;
}

/** Where the engine may connect beyond loopback: every configured inference server and SPARQL store, named. */
export function networkLine(report: Pick<DoctorReport, 'remoteHosts' | 'storeOrigins'>): string {
  if (report.remoteHosts.length === 0)
    return 'nothing leaves this machine (no inference server or SPARQL store configured)';
  const stores = report.storeOrigins.length === 0 ? 'none' : report.storeOrigins.join(', ');
  return `loopback and the configured inference servers and SPARQL stores only: ${report.remoteHosts.join(', ')} (SPARQL stores: ${stores})`;
}

/**
 * What to run when `missing` rows of a KB wait for vectors, or null: with no embedder (`embedded`
 * false) rows imported without an embedding model; with one, original-language chunk vectors of a
 * KB indexed before they existed.
 */
export function missingVectorsHint(kb: string, missing: number, embedded = false): string | null {
  if (missing === 0) return null;
  if (embedded) {
    return (
      `Original-language vectors missing: ${missing} non-English chunks of "${kb}" were indexed before they existed. ` +
      `Answers work; DaPT ranks these chunks by their English vectors until you run \`polyhop kb reembed ${kb}\` ` +
      '(same embedding model: only the missing vectors are made).'
    );
  }
  return (
    `Vectors missing: ${missing} rows of "${kb}" are not embedded yet (imported without an embedding model). ` +
    'Browsing, SPARQL and export work now; to ask questions run `polyhop models use embedding PATH`, ' +
    `then \`polyhop kb reembed ${kb}\`.`
  );
}

/** The failed units of an indexing job's result, as a message grouped by reason; null when none failed. */
export function indexingFailureMessage(result: unknown): string | null {
  const r = result as { units?: number; failed?: number; failureReasons?: { reason: string; count: number }[] } | null;
  if (!r || !r.failed) return null;
  const reasons = (r.failureReasons ?? []).map((g) => `  ${g.count} × ${g.reason}`);
  return [
    `Indexing finished, but ${r.failed} of ${r.units ?? r.failed} units failed (what succeeded is kept; fix the cause and run \`polyhop index\` again):`,
    ...reasons,
  ].join('\n');
}

/** Why a SPARQL answer is short: the row cap, or the store's own limit on a query that could not be paged. */
export function truncationNote(result: SparqlResult, maxRows: number): string {
  const shown = result.kind === 'graph' ? 'triples' : 'rows';
  if (result.storeMaxRows !== undefined && result.rows.length < maxRows)
    return (
      `(truncated: the store answers at most ${result.storeMaxRows.toLocaleString('en')} rows per query ` +
      "and this one could not be fetched in pages; raise the store's limit " +
      '(Virtuoso: ResultSetMaxRows in virtuoso.ini) or add LIMIT/OFFSET)'
    );
  return `(truncated at ${maxRows.toLocaleString('en')} ${shown}; --max-rows raises the cap)`;
}

/** `polyhop doc`: the document's row, then each page OCR read (flagged below OCR_LOW_CONFIDENCE, as on the Corpus screen). */
export function printDocument({ document: d, ocr }: Pick<DocumentDetail, 'document' | 'ocr'>): void {
  const language = d.language ?? 'language unknown';
  console.log(`${d.title} (document ${d.id})\n  ${d.path}`);
  console.log(
    `  ${d.mime}, ${d.size} bytes, ${language}; ${d.status}: ${d.chunkCount} chunks, ${d.tripleCount} triples`,
  );
  if (d.error) console.log(`  note: ${d.error}`);
  if (!ocr || ocr.pages.length === 0) return;
  const low = ocr.pages.filter((p) => p.confidence < OCR_LOW_CONFIDENCE).length;
  const flagged = low > 0 ? `; ${low} below ${OCR_LOW_CONFIDENCE}%, likely misread words (!)` : '';
  console.log(`  OCR (${ocr.languages.join('+')}): ${ocr.pages.length} page(s)${flagged}`);
  for (const p of ocr.pages)
    console.log(`    page ${p.page}: ${p.confidence}% (${p.reason})${p.confidence < OCR_LOW_CONFIDENCE ? ' !' : ''}`);
}
