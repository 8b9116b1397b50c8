import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDocument } from '../../../src-main/engine/ingest/index.js';
import { withZipArchive } from '../../../src-main/engine/ingest/load/zipArchive.js';
import { writeZip } from '../../support/zipWriter.js';
import { refusal } from './refusal.js';
import { useTmpDir } from './tmpDir.js';

const { put } = useTmpDir('office');
/** Written by LibreOffice from the flat ODT and ODP in generate.sh (book.epub by its EPUB export). */
const fixture = (name: string) => join(import.meta.dirname, '../../fixtures/producers', name);

const CLUB_BODY = [
  'Marlow Rowing Club',
  'Ada Kestrel founded the club in 1921.[1] It moved to Henley in 1930.',
  'Coxless four',
  'Single scull',
  'Year\tBoats\n1921\t12',
  'Clara Whitlow\tcaptain\nfrom 1932.',
];
const TALK = [
  'Slide 1\nThe founding\nAda Kestrel founded the club in 1921\nTwelve boats by 1925\nNotes: Mention the boathouse at Marlow.',
  'Slide 2\nThe move to Henley\nBruno Ravenworth moved the club in 1930',
  'Slide 3\nCaptains\nClara Whitlow, captain from 1932\nNotes: She rowed at Henley in 1936.',
];

/** The fixture's zip with one part's text changed (every entry deflated). */
async function withPart(name: string, part: string, change: (xml: string) => string): Promise<Buffer> {
  const files = await withZipArchive(readFileSync(fixture(name)), name, {}, async (zip) => {
    const out: { name: string; data: string | Buffer }[] = [];
    for (const entry of zip.names) {
      const data = (await zip.read(entry))!;
      out.push({ name: entry, data: entry === part ? change(data.toString('utf8')) : data });
    }
    return out;
  });
  return writeZip(files);
}

describe('OpenDocument text', () => {
  it('club.odt from LibreOffice: headings, lists, tables, tabs and breaks, then footnotes and comments marked', async () => {
    const doc = await loadDocument(fixture('club.odt'));
    expect(doc.text).toBe(
      [
        ...CLUB_BODY,
        'Footnote 1: The club records were lost in 1944.',
        'Comment (Bruno Ravenworth): Check the year of the move.',
      ].join('\n\n'),
    );
    expect(doc.mime).toBe('application/vnd.oasis.opendocument.text');
  });

  it('the same document saved as DOCX by LibreOffice reads the same (Word numbers its footnote 2)', async () => {
    expect((await loadDocument(fixture('club.docx'))).text).toBe(
      [
        ...CLUB_BODY.map((p) => p.replace('[1]', '[2]')),
        'Footnote 2: The club records were lost in 1944.',
        'Comment (Bruno Ravenworth): Check the year of the move.',
      ].join('\n\n'),
    );
  });
});

describe('RTF', () => {
  it('club.rtf from LibreOffice: the same text as its ODT, footnotes and comments after it', async () => {
    const doc = await loadDocument(fixture('club.rtf'));
    expect(doc.text).toBe(
      [
        ...CLUB_BODY.slice(0, 4),
        'Year\tBoats\n1921\t12\nClara Whitlow\tcaptain\nfrom 1932.',
        'Footnote 1: The club records were lost in 1944.',
        'Comment (Bruno Ravenworth): Check the year of the move.',
      ].join('\n\n'),
    );
    expect(doc.mime).toBe('application/rtf');
  });

  it('code-page bytes, \\u characters without their fallbacks, symbols; tables of fonts and pictures left out', async () => {
    const rtf = String.raw`{\rtf1\ansi\ansicpg1251\uc1{\fonttbl{\f0 Arial;}}{\*\generator Writer;}{\pict\pngblip 89504e47}\'cf\'f0\'e8\'e2\'e5\'f2, \u26481?\u20140?\par caf\u233e\emdash ok\~\{x\}\bin3 {}}\'41}`;
    expect((await loadDocument(put('mixed.rtf', Buffer.from(rtf, 'latin1')))).text).toBe(
      'Привет, 東京\n\ncafé—ok {x}A',
    );
  });

  it('groups nested beyond the limit are refused; a .rtf that is not RTF is named', async () => {
    const deep = `{\\rtf1 ${'{'.repeat(5000)}x${'}'.repeat(5000)}}`;
    expect((await refusal(put('deep.rtf', deep))).details['reason']).toBe('RTF groups nested deeper than 4096');
    expect((await refusal(put('fake.rtf', 'plain words'))).details['reason']).toBe(
      'not an RTF file (no {\\rtf header)',
    );
  });
});

describe('presentations: slides in order, each with its notes', () => {
  it.each(['talk.pptx', 'talk.odp'])('%s from LibreOffice', async (name) => {
    expect((await loadDocument(fixture(name))).text).toBe(TALK.join('\n\n'));
  });

  it('PPTX slides follow the presentation’s list, not the part names', async () => {
    const reordered = await withPart('talk.pptx', 'ppt/presentation.xml', (xml) => {
      const ids = [...xml.matchAll(/<p:sldId [^>]*\/>/g)].map((m) => m[0]);
      return xml.replace(ids.join(''), [...ids].reverse().join(''));
    });
    const text = (await loadDocument(put('reordered.pptx', reordered))).text;
    expect(text.split('\n\n').map((s) => s.split('\n')[1])).toEqual(['Captains', 'The move to Henley', 'The founding']);
  });

  it('ODP pages follow the document order', async () => {
    const reordered = await withPart('talk.odp', 'content.xml', (xml) => {
      const pages = [...xml.matchAll(/<draw:page .*?<\/draw:page>/gs)].map((m) => m[0]);
      return xml.replace(pages.join(''), [pages[2], pages[0], pages[1]].join(''));
    });
    const text = (await loadDocument(put('reordered.odp', reordered))).text;
    expect(text.split('\n\n').map((s) => s.split('\n')[1])).toEqual(['Captains', 'The founding', 'The move to Henley']);
  });
});

describe('EPUB: chapters in reading order', () => {
  const CHAPTERS = [
    'Chapter One: The founding\n\nAda Kestrel founded the club in 1921.',
    'Chapter Two: The move\n\nBruno Ravenworth moved the club to Henley in 1930.',
    'Chapter Three: Captains\n\nClara Whitlow was captain from 1932.',
  ];

  it('book.epub from LibreOffice (its manifest and archive list the chapters backwards): the spine’s order, title and language', async () => {
    const doc = await loadDocument(fixture('book.epub'));
    expect(doc.text).toBe(CHAPTERS.join('\n\n'));
    expect(doc).toMatchObject({ title: 'The Marlow Chronicle', language: 'en', mime: 'application/epub+zip' });
  });

  it('a spine in another order is read in that order', async () => {
    const reordered = await withPart('book.epub', 'OEBPS/content.opf', (xml) =>
      xml.replace(/(<itemref idref="section0001"\/>)(<itemref idref="section0002"\/>)/, '$2$1'),
    );
    expect((await loadDocument(put('reordered.epub', reordered))).text).toBe(
      [CHAPTERS[1], CHAPTERS[0], CHAPTERS[2]].join('\n\n'),
    );
  });

  it('a container naming no package in the archive is refused saying so', async () => {
    const broken = await withPart('book.epub', 'META-INF/container.xml', (xml) =>
      xml.replace('content.opf', 'missing.opf'),
    );
    const e = await refusal(put('broken.epub', broken));
    expect(e.details['reason']).toMatch(/names no package document/);
  });
});

describe('hostile office files', () => {
  it.each(['club.odt', 'talk.pptx', 'talk.odp', 'book.epub'])('%s cut short is a corrupt zip, named', async (name) => {
    const bytes = readFileSync(fixture(name));
    const e = await refusal(put(`cut-${name}`, bytes.subarray(0, Math.floor(bytes.length * 0.6))));
    expect(e.details['reason']).toMatch(/corrupt zip archive/);
  });

  it.each([
    ['club.odt', 'content.xml'],
    ['talk.odp', 'content.xml'],
    ['talk.pptx', 'ppt/slides/slide1.xml'],
  ])('%s: a part above the XML limit is refused naming it', async (name, part) => {
    const e = await refusal(fixture(name), { maxDocxXmlBytes: 2048 });
    expect(e.details).toMatchObject({ limit: 'docxXml', maxXmlBytes: 2048 });
    expect(e.details['reason']).toContain(`${part} is`);
  });

  it('a zip that is none of them is named for what it lacks', async () => {
    const e = await refusal(put('empty.odp', writeZip([{ name: 'mimetype', data: 'x' }])));
    expect(e.details['reason']).toBe('not a ODP file (no content.xml in the archive)');
  });
});
