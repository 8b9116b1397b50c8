import yauzl from 'yauzl';

/** Where an entry's stored (compressed) bytes lie in a zip, found by yauzl, for tests that damage them in place. */
export async function zipEntryBytes(
  zip: Buffer,
  name: string,
): Promise<{ start: number; end: number; method: number; uncompressedSize: number }> {
  const file = await yauzl.fromBufferPromise(zip);
  try {
    for await (const entry of file.eachEntry()) {
      if (entry.fileName !== name) continue;
      const { fileDataStart } = await file.readLocalFileHeaderPromise(entry, { minimal: true });
      return {
        start: fileDataStart,
        end: fileDataStart + entry.compressedSize,
        method: entry.compressionMethod,
        uncompressedSize: entry.uncompressedSize,
      };
    }
  } finally {
    file.close();
  }
  throw new Error(`no ${name} in the zip`);
}
