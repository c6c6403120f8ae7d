import { raw } from 'hono/html';

/**
 * A time-series chart: the data goes into the page as JSON, and the console script draws it with uPlot
 * (console-ui/src). Without the script, the table beside each chart still has the numbers.
 */
export function Chart(props: { title: string; x: number[]; series: { label: string; values: number[] }[] }) {
  const data = JSON.stringify({ title: props.title, x: props.x, series: props.series })
    // Inside a <script> element, `<` could close it: JSON allows escaping it.
    .replace(/</g, '\\u003c');
  return (
    <figure class="chart" data-chart aria-label={props.title}>
      <figcaption>{props.title}</figcaption>
      <script type="application/json">{raw(data)}</script>
    </figure>
  );
}
