import uPlot from 'uplot';
import uPlotCss from 'uplot/dist/uPlot.min.css';
import { type ChartData, chartOptions } from './chart-options.ts';

/**
 * The console's only script (served by Docent, no CDN): draws the charts whose data the page carries,
 * and follows a running ingestion until it ends. Every page works without it; it adds the pictures and
 * the live progress.
 */

function drawCharts(): void {
  const style = document.createElement('style');
  style.textContent = uPlotCss;
  document.head.append(style);
  for (const figure of document.querySelectorAll<HTMLElement>('[data-chart]')) {
    const json = figure.querySelector('script[type="application/json"]')?.textContent;
    if (!json) continue;
    const data = JSON.parse(json) as ChartData;
    // The card's width, whatever it is: a fixed floor made the chart spill out of a phone's screen.
    const width = Math.max(200, figure.clientWidth - 16);
    new uPlot(chartOptions(data, width), [data.x, ...data.series.map((s) => s.values)], figure);
  }
}

/** A running ingestion's card polls its status each second and reloads the page when it ends. */
function followJob(): void {
  const card = document.querySelector<HTMLElement>('[data-job-status]');
  const url = card?.dataset.jobStatus;
  if (!card || !url) return;
  const field = (name: string) => card.querySelector<HTMLElement>(`[data-job-field="${name}"]`);
  const poll = async (): Promise<void> => {
    try {
      const response = await fetch(url, { headers: { Accept: 'application/json' } });
      if (!response.ok) return;
      const job = (await response.json()) as {
        status: string;
        progress: { done: number; total: number } | null;
      };
      const status = field('status');
      if (status) status.textContent = job.status.replace('_', ' ');
      const progress = field('progress');
      if (progress && job.progress)
        progress.textContent = `${job.progress.done} of ${job.progress.total} files read`;
      if (job.status !== 'queued' && job.status !== 'in_progress') {
        location.reload();
        return;
      }
    } catch {
      // The server is restarting: try again on the next tick.
    }
    setTimeout(poll, 1_000);
  };
  setTimeout(poll, 500);
}

/**
 * The filter bar's period menu and its dates are one choice: picking a period clears the dates, and a
 * date sets the menu to "Custom", so Apply shows what the bar shows (the server reads dates first).
 */
function linkPeriodAndDates(): void {
  for (const form of document.querySelectorAll<HTMLFormElement>('form.filters')) {
    const period = form.querySelector<HTMLSelectElement>('select[name="period"]');
    const dates = [...form.querySelectorAll<HTMLInputElement>('input[type="date"]')];
    if (!period) continue;
    period.addEventListener('change', () => {
      if (period.value !== '') for (const date of dates) date.value = '';
    });
    for (const date of dates)
      date.addEventListener('change', () => {
        if (date.value !== '') period.value = '';
      });
  }
}

/** A form that cannot be undone (revoking a key, deleting a conversation) asks first: `data-confirm` holds the question. */
function confirmForms(): void {
  for (const form of document.querySelectorAll<HTMLFormElement>('form[data-confirm]')) {
    form.addEventListener('submit', (event) => {
      if (!window.confirm(form.dataset.confirm ?? 'Are you sure?')) event.preventDefault();
    });
  }
}

/**
 * A page answering a form that creates something (a key, shown once) is made a plain visit of its
 * address: reloading it then shows the list instead of sending the form again, which created a second
 * key (the browser asks first, and "Continue" is the button people press).
 */
function forgetFormPost(): void {
  if (document.querySelector('[data-form-result]')) history.replaceState(history.state, '', location.href);
}

/**
 * A table wider than the screen (a phone's) scrolls inside itself: it is made a Tab stop then, so the
 * arrow keys can scroll it (a table of plain numbers has nothing else to focus), and is not one when it
 * fits again.
 */
function scrollableTables(): void {
  const tables = [...document.querySelectorAll<HTMLElement>('main table')];
  const mark = () => {
    for (const table of tables) {
      if (table.scrollWidth > table.clientWidth) table.tabIndex = 0;
      else table.removeAttribute('tabindex');
    }
  };
  mark();
  addEventListener('resize', mark);
}

drawCharts();
scrollableTables();
followJob();
linkPeriodAndDates();
confirmForms();
forgetFormPost();
