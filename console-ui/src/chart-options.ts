import uPlot from 'uplot';

/** A chart's data as the page carries it (src/http/routes/console/chart.tsx): x in Unix seconds. */
export interface ChartData {
  title: string;
  x: number[];
  series: { label: string; values: number[] }[];
}

const COLORS = ['#1d4ed8', '#dc2626', '#059669', '#d97706'];

/**
 * uPlot's options for a console chart. Times are shown in UTC, as every other time in the console and
 * the buckets themselves are: uPlot's default, the browser's own zone, put the bucket of 1 November
 * (UTC) at "10/31 5:00pm" on the axis and in the legend for a reader in California.
 */
export function chartOptions(data: ChartData, width: number): uPlot.Options {
  return {
    width,
    height: 220,
    tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
    series: [
      {},
      ...data.series.map((s, i) => ({ label: s.label, stroke: COLORS[i % COLORS.length], width: 2 })),
    ],
    axes: [{}, { size: 50 }],
  };
}
