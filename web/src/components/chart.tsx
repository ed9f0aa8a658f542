import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartSeries {
  label: string;
  values: (number | null)[];
  /** Which axis: left (default) or right, for a second unit (requests beside ₹). */
  axis?: 'left' | 'right';
  bars?: boolean;
  /** Dots on the values: sparse series (a day here and there) draw no line to see. */
  points?: boolean;
  format?: (v: number) => string;
}

const PALETTE = ['--chart-1', '--chart-2', '--chart-3', '--chart-4', '--chart-5', '--chart-6'];
const cssVar = (name: string): string => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888';

/**
 * A time chart on uPlot (a canvas, fast on thousands of points and ~20 KB gzipped). x is epoch
 * seconds. Screen readers get the label and a summary; the page shows the figures in tables too.
 */
export function Chart(p: { label: string; summary?: string; x: number[]; series: ChartSeries[]; height?: number; leftFormat?: (v: number) => string; rightFormat?: (v: number) => string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    let plot: uPlot | null = null;
    const build = () => {
      plot?.destroy();
      const text = cssVar('--muted');
      const grid = cssVar('--line');
      const bars = uPlot.paths.bars ? uPlot.paths.bars({ size: [0.6, 40] }) : undefined;
      const axisOf = (side: 'left' | 'right', fmt?: (v: number) => string): uPlot.Axis => ({
        scale: side === 'left' ? 'y' : 'y2', side: side === 'left' ? 3 : 1, stroke: text,
        grid: { show: side === 'left', stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 },
        values: fmt ? (_u: uPlot, vals: number[]) => vals.map((v) => fmt(v)) : undefined, size: 64,
      });
      const hasRight = p.series.some((s) => s.axis === 'right');
      plot = new uPlot({
        width: Math.max(280, el.clientWidth),
        height: p.height ?? 220,
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] }, y2: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
        axes: [
          { stroke: text, grid: { show: false }, ticks: { stroke: grid, width: 1 } },
          axisOf('left', p.leftFormat),
          ...(hasRight ? [axisOf('right', p.rightFormat)] : []),
        ],
        legend: { live: true },
        cursor: { drag: { x: false, y: false } },
        series: [
          { label: 'Day', value: (_u, v) => (v == null ? '—' : new Date(v * 1000).toLocaleDateString('en-IN', { timeZone: 'Asia/Kolkata', day: 'numeric', month: 'short' })) },
          ...p.series.map((s, i) => {
            const color = cssVar(PALETTE[i % PALETTE.length]);
            return {
              label: s.label, scale: s.axis === 'right' ? 'y2' : 'y', stroke: color, width: 2,
              fill: s.bars ? color + '99' : undefined, paths: s.bars ? bars : undefined, points: { show: s.points ?? false },
              value: (_u: uPlot, v: number | null) => (v == null ? '—' : s.format ? s.format(v) : String(v)),
            };
          }),
        ],
      }, [p.x, ...p.series.map((s) => s.values)] as uPlot.AlignedData, el);
    };
    build();
    const resize = new ResizeObserver(() => plot?.setSize({ width: Math.max(280, el.clientWidth), height: p.height ?? 220 }));
    resize.observe(el);
    addEventListener('gw-theme', build);
    return () => {
      resize.disconnect();
      removeEventListener('gw-theme', build);
      plot?.destroy();
    };
  }, [p.x, p.series]);
  return (
    <figure class="chart">
      <div ref={box} role="img" aria-label={`${p.label}${p.summary ? ': ' + p.summary : ''}`} />
      <figcaption class="sr-only">{p.label}</figcaption>
    </figure>
  );
}

/** Epoch seconds of an IST calendar date (YYYY-MM-DD) at IST midnight. */
export const istDaySeconds = (date: string): number => Date.parse(date + 'T00:00:00+05:30') / 1000;
