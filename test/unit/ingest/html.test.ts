import { describe, expect, it } from 'vitest';
import { loadDocument } from '../../../src-main/engine/ingest/index.js';
import { useTmpDir } from './tmpDir.js';

const { put } = useTmpDir('html');
const links = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => `<a href="/${prefix}/${i}">${prefix} section ${i}</a>`).join(' ');
const ARTICLE = [
  'The river authority said on Tuesday that the old lock at Marlow will close for repairs in the spring, after inspectors found cracks in the lower gates.',
  'Boats heading downstream will be sent through the weir channel, which the authority widened last year, and a ferry will carry walkers across while the work goes on.',
  'Ada Kestrel, who chairs the boating club, said the members had expected the closure for years, and that the club would move its summer regatta to Henley.',
  'The repairs are due to take eleven weeks and cost about two million pounds, paid for by the authority and the county council.',
];

describe('HTML main content', () => {
  it('a short article on a long portal page (menus of links, a long comment section) is kept, not the whole page', async () => {
    const comments = Array.from(
      { length: 40 },
      (_, i) =>
        `<div class="comment"><b>reader${i}</b><p>Comment number ${i}: I walk there every weekend and I think the closure is long overdue, but the ferry should run later.</p></div>`,
    ).join('');
    const html = `<!doctype html><html lang="en"><head><title>Marlow lock to close | Portal</title></head><body>
      <div class="top">${links('news', 120)}</div><div class="menu">${links('sport', 80)}</div>
      <article><h1>Marlow lock to close for repairs</h1>${ARTICLE.map((p) => `<p>${p}</p>`).join('')}</article>
      <div id="comments">${comments}</div><div class="bottom">${links('more', 150)}</div></body></html>`;
    const doc = await loadDocument(put('portal.html', html));
    for (const paragraph of ARTICLE) expect(doc.text).toContain(paragraph);
    expect(doc.text).not.toContain('Comment number');
    expect(doc.text).not.toContain('news section');
    expect(doc.text.length).toBeLessThan(ARTICLE.join('\n\n').length * 1.3);
  });

  it('without an article Readability accepts, the main landmark is kept without its link lists and furniture', async () => {
    const html = `<html><body><div class="header">${links('topics', 60)}</div>
      <main><h1>Opening hours</h1><p>The lock is open from nine to five, every day.</p><div class="related">${links('related', 30)}</div>
      <p>Ask the keeper for help with the gates.</p><ul class="tags">${links('tag', 20).replace(/<a/g, '<li><a').replace(/<\/a>/g, '</a></li>')}</ul></main>
      <div class="sidebar"><p>Advertisement: buy a boat today, the best boats in town.</p></div></body></html>`;
    const doc = await loadDocument(put('hours.html', html));
    expect(doc.text).toBe(
      'Opening hours\n\nThe lock is open from nine to five, every day.\n\nAsk the keeper for help with the gates.',
    );
  });

  it('without landmarks, link-dense blocks are dropped from the body', async () => {
    const html = `<html><body><div>${links('menu', 40)}</div><div><p>The ferry runs every half hour while the lock is closed.</p><p>Tickets are free for walkers.</p></div><div>${links('footer', 40)}</div></body></html>`;
    const doc = await loadDocument(put('plain.html', html));
    expect(doc.text).toBe('The ferry runs every half hour while the lock is closed.\n\nTickets are free for walkers.');
  });

  it('a furniture name on a block holding most of the text does not drop it (a share wrapper around the article; ids outlive Readability)', async () => {
    const html = `<html><body><div class="header">${links('topics', 60)}</div>
      <main><div id="article-share-wrapper"><h1>Marlow lock</h1>${ARTICLE.map((p) => `<p>${p}</p>`).join('')}
      <div class="share-bar">${links('share', 4)}</div></div>
      <section id="sharing-history"><p>The lock was built in 1773 and rebuilt in 1927.</p></section></main></body></html>`;
    const doc = await loadDocument(put('wrapped.html', html));
    for (const paragraph of ARTICLE) expect(doc.text).toContain(paragraph);
    // The small blocks named as furniture still go: the share bar and the short "sharing-" section.
    expect(doc.text).not.toContain('share section');
    expect(doc.text).not.toContain('built in 1773');
  });

  it('paragraphs and list items dense with links are content; only containers of several links are menus', async () => {
    const linked = (words: string[]) => words.map((w) => `<a href="/wiki/${w}">${w}</a>`).join(' ');
    const paragraph = `${linked(['Marlow', 'Buckinghamshire', 'Thames', 'Henley'])} lie upstream of the lock.`;
    const html = `<html><body><div class="nav">${links('portal', 12)}</div><main><h1>Marlow Lock</h1>
      <p>${paragraph}</p><p>The lock keeper lives beside the gates and opens them from dawn to dusk.</p>
      <ul><li><a href="/wiki/Hurley_Lock">Hurley Lock</a></li><li>Temple Lock, rebuilt in 1890</li></ul>
      <p>See <a href="/wiki/Locks">locks on the Thames</a>.</p></main></body></html>`;
    const doc = await loadDocument(put('wiki.html', html));
    expect(doc.text).toContain('lie upstream of the lock.');
    expect(doc.text).toContain('Marlow Buckinghamshire Thames Henley');
    expect(doc.text).toContain('Hurley Lock');
    expect(doc.text).toContain('Temple Lock, rebuilt in 1890');
    expect(doc.text).toContain('See locks on the Thames.');
    expect(doc.text).not.toContain('portal section');
  });

  it('MathML is text: alttext when given, else its tokens with ^, _ and / for powers, indices and fractions', async () => {
    const html = `<html><body><p>Energy is <math alttext="E = mc^2"><mi>E</mi><mo>=</mo><mi>m</mi><msup><mi>c</mi><mn>2</mn></msup></math> and the sum is
      <math><msup>
        <mi>x</mi>
        <mn>2</mn>
      </msup><mo>+</mo><msub><mi>a</mi><mn>1</mn></msub><mo>=</mo><mfrac><mn>1</mn><mn>2</mn></mfrac><semantics><annotation encoding="application/x-tex">x^2</annotation></semantics></math>.</p></body></html>`;
    const doc = await loadDocument(put('math.html', html));
    expect(doc.text).toBe('Energy is E = mc^2 and the sum is x^2+a_1=1/2.');
  });

  it("the page's title is the text's first line and the document's title: the h1 Readability drops as a repeat of it, without the site's name", async () => {
    const article = ARTICLE.map((p) => `<p>${p}</p>`).join('');
    const page = (title: string, h1: string) =>
      `<html><head><title>${title}</title></head><body><article>${h1 ? `<h1>${h1}</h1>` : ''}${article}</article></body></html>`;
    // The document's title is the same line: the site's name is no more in the Corpus screen's title.
    const text = async (name: string, title: string, h1: string) => {
      const doc = await loadDocument(put(name, page(title, h1)));
      expect(doc.text.startsWith(`${doc.title}\n\n`), `${name}: title ${doc.title}`).toBe(true);
      return doc.text;
    };
    const body = ARTICLE.join('\n\n');
    expect(await text('same.html', 'Marlow lock &amp; weir', 'Marlow lock &amp; weir')).toBe(
      `Marlow lock & weir\n\n${body}`,
    );
    // The h1 is the title less the site's name, on either side of the separator.
    expect(await text('site.html', 'Marlow lock closes | Thames Gazette', 'Marlow lock closes')).toBe(
      `Marlow lock closes\n\n${body}`,
    );
    expect(await text('before.html', 'Thames Gazette \u00bb Marlow lock closes', 'Marlow lock closes')).toBe(
      `Marlow lock closes\n\n${body}`,
    );
    // A fuller h1 that Readability keeps is the title already: it is not repeated.
    expect(await text('fuller.html', 'Marlow lock | Gazette', 'Marlow lock to close for eleven weeks')).toBe(
      `Marlow lock to close for eleven weeks\n\n${body}`,
    );
    // No h1 to tell a site's name from a subtitle: the title as given.
    expect(await text('bare.html', 'Marlow lock - repairs', '')).toBe(`Marlow lock - repairs\n\n${body}`);
  });
});
