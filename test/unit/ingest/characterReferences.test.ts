import { describe, expect, it } from 'vitest';
import { loadDocument } from '../../../src-main/engine/ingest/index.js';
import { useTmpDir } from './tmpDir.js';

const { put } = useTmpDir('character-references');

// Character references beyond the handful a hand-made table knew: what the `entities` package decodes.
const ENCODED = 'Caf&eacute; in &Ouml;sterreich &rarr; Z&uuml;rich &frac12; &#x1F600; &#8364;5 &euro;';
const DECODED = 'Café in Österreich → Zürich ½ 😀 €5 €';

describe('character references (HTML5 named and numeric)', () => {
  it('Markdown text decodes every HTML5 named reference and leaves unknown ones as written', async () => {
    const doc = await loadDocument(put('notes.md', `# Notes\n\n${ENCODED} &notanentity; AT&T\n`));
    expect(doc.text).toContain(DECODED);
    expect(doc.text).toContain('&notanentity; AT&T');
  });

  it('HTML too deeply nested for a DOM (the regex fallback) decodes them too', async () => {
    const deep = '<div>'.repeat(5000) + `<p>${ENCODED}</p>` + '</div>'.repeat(5000);
    const doc = await loadDocument(
      put('deep.html', `<html><head><title>T&eacute;st</title></head><body>${deep}</body></html>`),
    );
    expect(doc.text).toContain(DECODED);
    expect(doc.title).toBe('Tést');
  });
});
