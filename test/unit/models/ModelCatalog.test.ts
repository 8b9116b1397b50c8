import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { catalogUrl, loadCatalog } from '../../../src-main/engine/models/ModelCatalog.js';

const repoCatalog = fileURLToPath(new URL('../../../models/catalog.json', import.meta.url));

describe('model catalog', () => {
  it('ships a valid catalog with generation tiers and multilingual embedders', async () => {
    const models = await loadCatalog(repoCatalog);
    const tiers = new Set(models.filter((m) => m.role === 'generation').map((m) => m.tier));
    expect(tiers).toEqual(new Set(['small', 'medium', 'workstation']));
    expect(
      models.filter((m) => m.role === 'embedding' && m.languages.includes('multilingual')).length,
    ).toBeGreaterThanOrEqual(2);
    expect(models.some((m) => m.role === 'embedding' && m.format === 'gguf')).toBe(true);
  });

  it('refuses duplicate ids and malformed entries, naming the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'catalog-'));
    const file = join(dir, 'catalog.json');
    const entry = {
      id: 'x',
      role: 'generation',
      name: 'X',
      format: 'gguf',
      file: 'x.gguf',
      sizeBytes: 1,
      licence: 'MIT',
      languages: ['en'],
      uri: 'hf:a/b/x.gguf',
    };
    writeFileSync(file, JSON.stringify({ version: 1, models: [entry, entry] }));
    await expect(loadCatalog(file)).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: expect.stringContaining(file),
    });
    writeFileSync(file, JSON.stringify({ version: 1, models: [{ ...entry, file: '../evil.gguf' }] }));
    await expect(loadCatalog(file)).rejects.toMatchObject({ code: 'BAD_INPUT' });
  });

  it('resolves hf: URIs to resolve URLs', () => {
    expect(catalogUrl('hf:org/repo/dir/file.gguf')).toBe('https://huggingface.co/org/repo/resolve/main/dir/file.gguf');
    expect(catalogUrl('https://x.test/a.gguf')).toBe('https://x.test/a.gguf');
  });
});
