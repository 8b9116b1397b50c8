export interface PdfSpec {
  /** Text of each page (ASCII; parentheses and backslashes are escaped). An empty string makes a page with no text. */
  pages: readonly string[];
  /** Adds a standard-security /Encrypt dictionary whose user password is not empty. */
  encrypted?: boolean;
  title?: string;
}

/** Hand-written minimal PDF 1.4 (Helvetica text, correct xref) for loader tests. */
export function writePdf(spec: PdfSpec): Uint8Array {
  const esc = (s: string) => s.replace(/[\\()]/g, (c) => `\\${c}`);
  const objects: string[] = [];
  const n = spec.pages.length;
  const fontId = 3 + 2 * n;
  objects.push('<< /Type /Catalog /Pages 2 0 R >>');
  objects.push(`<< /Type /Pages /Kids [${spec.pages.map((_, i) => `${3 + 2 * i} 0 R`).join(' ')}] /Count ${n} >>`);
  spec.pages.forEach((text, i) => {
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${4 + 2 * i} 0 R /Resources << /Font << /F1 ${fontId} 0 R >> >> >>`,
    );
    const lines = text.split('\n').map((l, k) => `${k === 0 ? '' : '0 -14 Td '}(${esc(l)}) Tj`);
    const stream = text ? `BT /F1 12 Tf 72 720 Td ${lines.join(' ')} ET` : '';
    objects.push(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
  });
  objects.push('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  const infoId = objects.push(`<< /Title (${esc(spec.title ?? '')}) >>`);
  let encryptId = 0;
  if (spec.encrypted) {
    const hex = (seed: number) =>
      Array.from({ length: 32 }, (_, i) => ((i * 37 + seed) & 0xff).toString(16).padStart(2, '0')).join('');
    encryptId = objects.push(`<< /Filter /Standard /V 1 /R 2 /O <${hex(11)}> /U <${hex(99)}> /P -44 >>`);
  }
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  const id = '<0123456789abcdef0123456789abcdef>';
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info ${infoId} 0 R /ID [${id} ${id}]${encryptId ? ` /Encrypt ${encryptId} 0 R` : ''} >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}
