import * as vega from 'vega';

export interface ScoreDistribution {
  title: string;
  /** Per strategy, its per-question scores. */
  series: { strategy: string; scores: readonly number[] }[];
}

const BINS = 10;

/**
 * Histogram of per-question scores per strategy (10 bins over [0, 1], share of questions),
 * rendered to SVG by Vega's headless renderer: no DOM, no canvas, deterministic output.
 * Vega 5 is used because Vega 6 needs Node 22 and the app targets Node 20.
 */
export async function scoreDistributionSvg(chart: ScoreDistribution): Promise<string> {
  const values: { bin: string; strategy: string; share: number }[] = [];
  for (const { strategy, scores } of chart.series) {
    const counts = new Array<number>(BINS).fill(0);
    for (const s of scores) counts[Math.min(BINS - 1, Math.max(0, Math.floor(s * BINS)))]! += 1;
    counts.forEach((c, i) => values.push({ bin: binLabel(i), strategy, share: scores.length ? c / scores.length : 0 }));
  }
  const spec: vega.Spec = {
    $schema: 'https://vega.github.io/schema/vega/v5.json',
    width: 560,
    height: 220,
    padding: 8,
    title: { text: chart.title, anchor: 'start' },
    data: [{ name: 'scores', values }],
    scales: [
      {
        name: 'x',
        type: 'band',
        domain: Array.from({ length: BINS }, (_, i) => binLabel(i)),
        range: 'width',
        padding: 0.15,
      },
      { name: 'y', type: 'linear', domain: [0, 1], range: 'height', nice: true },
      { name: 'color', type: 'ordinal', domain: chart.series.map((s) => s.strategy), range: 'category' },
    ],
    axes: [
      { orient: 'bottom', scale: 'x', title: 'score', labelAngle: 0, labelFontSize: 9 },
      { orient: 'left', scale: 'y', title: 'share of questions', format: '%', grid: true },
    ],
    legends: [{ fill: 'color', title: 'strategy', orient: 'right' }],
    marks: [
      {
        type: 'group',
        from: { facet: { data: 'scores', name: 'bin', groupby: 'bin' } },
        encode: { enter: { x: { scale: 'x', field: 'bin' } } },
        signals: [{ name: 'binWidth', update: "bandwidth('x')" }],
        scales: [
          {
            name: 'inner',
            type: 'band',
            range: { signal: '[0, binWidth]' },
            domain: chart.series.map((s) => s.strategy),
          },
        ],
        marks: [
          {
            type: 'rect',
            from: { data: 'bin' },
            encode: {
              enter: {
                x: { scale: 'inner', field: 'strategy' },
                width: { scale: 'inner', band: 1 },
                y: { scale: 'y', field: 'share' },
                y2: { scale: 'y', value: 0 },
                fill: { scale: 'color', field: 'strategy' },
                tooltip: { signal: "datum.strategy + ': ' + format(datum.share, '.0%')" },
              },
            },
          },
        ],
      },
    ],
  };
  const view = new vega.View(vega.parse(spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

function binLabel(i: number): string {
  return `${(i / BINS).toFixed(1)}–${((i + 1) / BINS).toFixed(1)}`;
}
