/**
 * Charts for the report as SVG, rendered in Node with vega-lite (spec → vega) and vega's headless
 * `View#toSVG()` — no browser, no canvas.
 */
import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const view = new View(parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

export interface LatencyPoint {
  target: string;
  concurrency: number;
  percentile: 'p50' | 'p90' | 'p99';
  ms: number;
}

/** TTFB percentiles per concurrency, one line per target and percentile (log scale). */
export function latencyChartSpec(points: readonly LatencyPoint[], title: string): TopLevelSpec {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title,
    width: 520,
    height: 300,
    data: { values: points.filter((p) => Number.isFinite(p.ms) && p.ms > 0) as unknown as object[] },
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'concurrency', type: 'ordinal', title: 'concurrent clients', axis: { labelAngle: 0 } },
      y: {
        field: 'ms',
        type: 'quantitative',
        title: 'time to first byte (ms, log scale)',
        scale: { type: 'log' },
      },
      color: { field: 'target', type: 'nominal', title: 'target' },
      strokeDash: { field: 'percentile', type: 'nominal', title: 'percentile', sort: ['p50', 'p90', 'p99'] },
    },
  };
}

export interface QualityPoint {
  set: string;
  engine: string;
  metric: string;
  value: number;
}

/** Grouped bars: one group per engine, one bar per eval set. */
export function qualityChartSpec(
  points: readonly QualityPoint[],
  metric: string,
  title: string,
): TopLevelSpec {
  const engines = [...new Set(points.map((p) => p.engine))];
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title,
    width: 560,
    height: 260,
    data: { values: points.filter((p) => p.metric === metric) as unknown as object[] },
    mark: 'bar',
    encoding: {
      x: { field: 'engine', type: 'nominal', title: null, sort: engines, axis: { labelAngle: -30 } },
      xOffset: { field: 'set', type: 'nominal' },
      y: { field: 'value', type: 'quantitative', title: metric, scale: { domain: [0, 1] } },
      color: { field: 'set', type: 'nominal', title: 'eval set' },
    },
  };
}
