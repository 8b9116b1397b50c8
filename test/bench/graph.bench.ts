/**
 * Graph (issue 7): is the Graph screen's neighbourhood view smooth at 5,000 visible nodes?
 * Builds two KBs through the real engine (a hub with N leaves, and a hub with 500 leaves as the
 * baseline), serves the real renderer in browser mode, opens each hub's 1-hop neighbourhood in
 * Chromium and records requestAnimationFrame intervals inside the page for ~3 s while the sigma
 * camera is zoomed (wheel) and panned (drag). Chromium runs with --disable-gpu, so WebGL is
 * software-rendered (SwiftShader): absolute figures are a floor, the ratio is what travels.
 *
 *   npm run bench graph                         # 5,000 vs 500 nodes
 *   npm run bench graph -- --nodes 10000 --seconds 5
 */
import { cpus, loadavg } from 'node:os';
import type { Page } from 'playwright-core';
import type { Engine } from '../../src-main/engine/api/Engine.js';
import { launchChromium, openApp } from '../support/chromium.js';
import { startE2eServer } from '../support/e2eServer.js';

const HUB = 'Polyhop Hub';

interface Measure {
  kb: string;
  leaves: number;
  counts: string;
  canvasLabel: string;
  firstDrawMs: number;
  frames: number;
  p50: number;
  p95: number;
  max: number;
  fps: number;
  /** Main-thread tasks over 50 ms while the camera moved. */
  longTasks: number;
  /** Whether the canvas looks different after the interaction (the camera did move). */
  cameraMoved: boolean;
}

export async function run(args: string[]): Promise<void> {
  const nodes = numberArg(args, '--nodes', 5000);
  const base = numberArg(args, '--baseline', 500);
  const seconds = numberArg(args, '--seconds', 3);
  const server = await startE2eServer();
  const browser = await launchChromium();
  try {
    let t = performance.now();
    await buildHubKb(server.engine, 'graph-base', base);
    await buildHubKb(server.engine, 'graph-big', nodes);
    console.log(`KBs built through the engine: hub + ${base} leaves, hub + ${nodes} leaves in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    console.log(`host: ${cpus().length} cores, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} (shared machine: frame figures move with it)`);
    console.log('Chromium: headless, --disable-gpu → WebGL is software-rendered (SwiftShader); viewport 1280×860');

    const { page, consoleErrors } = await openApp(browser, server.authUrl);
    const results: Measure[] = [];
    for (const [kb, leaves] of [['graph-base', base], ['graph-big', nodes]] as const) {
      results.push(await measure(page, kb, leaves, seconds));
    }
    for (const r of results) {
      console.log(
        `${r.kb} (hub + ${r.leaves} leaves): drawn "${r.counts}" | time to first draw ${r.firstDrawMs.toFixed(0)} ms | ` +
          `${r.frames} frames in ${seconds} s: p50 ${r.p50.toFixed(1)} ms, p95 ${r.p95.toFixed(1)} ms, max ${r.max.toFixed(1)} ms, ${r.fps.toFixed(1)} fps | ` +
          `long tasks (>50 ms) ${r.longTasks} | camera moved: ${r.cameraMoved ? 'yes' : 'NO'}`,
      );
    }
    const [b, g] = results as [Measure, Measure];
    console.log(
      `ratio ${g.leaves} / ${b.leaves} leaves: first draw ×${(g.firstDrawMs / b.firstDrawMs).toFixed(2)}, p50 ×${(g.p50 / b.p50).toFixed(2)}, ` +
        `p95 ×${(g.p95 / b.p95).toFixed(2)}, fps ×${(g.fps / b.fps).toFixed(2)}`,
    );
    console.log(`smooth (p95 ≤ 33 ms, ~30 fps) at ${g.leaves} leaves: ${g.p95 <= 33 ? 'yes' : 'NO'} (software rendering)`);
    if (consoleErrors.length > 0) console.log(`console errors: ${consoleErrors.slice(0, 5).join(' | ')}`);
  } finally {
    await browser.close();
    await server.close();
  }
}

/** A KB whose hub has `leaves` outgoing triples, one per leaf, over a few types. */
async function buildHubKb(engine: Engine, name: string, leaves: number): Promise<void> {
  const created = await engine.call('kb:create', { name });
  if (!created.ok) throw new Error(`graph bench: kb:create ${name}: ${created.error.message}`);
  const kb = engine.kbs.get(name).kb;
  const types = ['person', 'place', 'organisation', 'work', 'event'];
  kb.transaction(() => {
    const hub = kb.upsertEntity(HUB, 'organisation');
    for (let i = 0; i < leaves; i++) {
      const leaf = kb.upsertEntity(`Leaf ${String(i).padStart(5, '0')}`, types[i % types.length]!);
      kb.addTriple({ sourceId: hub, relation: `relates_${i % 7}`, targetId: leaf, chunkId: null });
    }
  });
}

async function measure(page: Page, kb: string, leaves: number, seconds: number): Promise<Measure> {
  const byId = (id: string) => page.getByTestId(id);
  await byId('nav-graph').click();
  await byId('kb-switcher').selectOption(kb);
  await byId('graph-search-input').fill(HUB);
  await byId('graph-search-submit').click();
  await byId('graph-results').waitFor();
  // The previous KB's canvas must be gone before timing this one.
  await page.locator('[data-testid="graph-canvas"]').waitFor({ state: 'detached', timeout: 10_000 }).catch(() => undefined);
  const t = performance.now();
  await page.locator(`[data-testid^="graph-result-"][data-name="${HUB}"]`).click();
  await page.locator('[data-testid="graph-canvas"][data-ready="true"]').waitFor({ timeout: 120_000 });
  // data-ready is set once sigma is constructed; two frames later its first render is on screen.
  await page.evaluate(() => new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));
  const firstDrawMs = performance.now() - t;
  const counts = ((await byId('graph-counts').textContent()) ?? '').trim();
  const canvasLabel = (await byId('graph-canvas').getAttribute('aria-label')) ?? '';

  const before = await byId('graph-canvas').screenshot();
  const box = await byId('graph-canvas').boundingBox();
  if (!box) throw new Error('graph bench: graph-canvas has no box');
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  // A string, not a function: tsx's keepNames would wrap a named closure in a `__name` call the page lacks.
  await page.evaluate(`(() => {
    window.__frames = [];
    window.__long = 0;
    window.__stop = false;
    new PerformanceObserver((list) => { window.__long += list.getEntries().length; }).observe({ type: 'longtask' });
    const tick = (ts) => {
      window.__frames.push(ts);
      if (!window.__stop) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  })()`);
  const end = performance.now() + seconds * 1000;
  for (let step = 0; performance.now() < end; step++) {
    await page.mouse.move(cx, cy);
    if (step % 2 === 0) {
      for (let i = 0; i < 4; i++) await page.mouse.wheel(0, step % 4 === 0 ? -120 : 120);
    } else {
      await page.mouse.down();
      for (let i = 1; i <= 10; i++) await page.mouse.move(cx + i * 15 * (step % 4 === 1 ? 1 : -1), cy + i * 8);
      await page.mouse.up();
    }
  }
  const { stamps, long } = await page.evaluate<{ stamps: number[]; long: number }>('(window.__stop = true, { stamps: window.__frames, long: window.__long })');
  const after = await byId('graph-canvas').screenshot();
  const deltas = stamps.slice(1).map((s, i) => s - stamps[i]!).sort((a, b) => a - b);
  const span = (stamps.at(-1) ?? 0) - (stamps[0] ?? 0);
  return {
    kb,
    leaves,
    counts,
    canvasLabel,
    firstDrawMs,
    frames: deltas.length,
    p50: percentile(deltas, 0.5),
    p95: percentile(deltas, 0.95),
    max: deltas.at(-1) ?? 0,
    fps: span > 0 ? (deltas.length * 1000) / span : 0,
    longTasks: long,
    cameraMoved: !before.equals(after),
  };
}

function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function numberArg(args: string[], name: string, fallback: number): number {
  const i = args.indexOf(name);
  const value = i >= 0 ? Number(args[i + 1]) : fallback;
  if (!Number.isFinite(value) || value <= 0) throw new Error(`graph bench: ${name} needs a positive number`);
  return value;
}
