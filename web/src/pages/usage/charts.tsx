import { useMemo } from 'preact/hooks';
import { money, num } from '../../lib/format';
import { daysBetween, perDay, type Activity } from '../../lib/usage-types';
import { Chart, istDaySeconds, type ChartSeries } from '../../components/chart';

/** Lines for this many models; the rest are summed as "Other" (the palette has six colours). */
const MODEL_LINES = 5;

export type ModelMetric = 'cost' | 'requests';

/** Spend (bars) and requests (line) per IST day of the range, days without usage at zero. */
export function DailyChart(p: { a: Activity }) {
  const c = useMemo(() => {
    const s = perDay(p.a);
    return {
      x: s.days.map(istDaySeconds),
      series: [
        { label: 'Spend (₹)', values: s.cost, bars: true, format: money },
        { label: 'Requests', values: s.requests, axis: 'right', format: num },
      ] as ChartSeries[],
    };
  }, [p.a]);
  return (
    <Chart label={`Spend and requests per day, ${p.a.from} to ${p.a.to}`}
      summary={`${money(p.a.totals.cost)} and ${num(p.a.totals.requests)} requests in all`}
      x={c.x} series={c.series} leftFormat={(v) => '₹' + v} rightFormat={(v) => String(v)} />
  );
}

/** One line per top model (by spend over the range) and one for the rest, per IST day. */
export function ModelChart(p: { a: Activity; metric: ModelMetric }) {
  const c = useMemo(() => {
    const days = daysBetween(p.a.from, p.a.to);
    const at = new Map(days.map((d, i) => [d, i]));
    const top = p.a.top_models.slice(0, MODEL_LINES).map((m) => m.model);
    const line = new Map(top.map((m, i) => [m, i]));
    const rows = top.map(() => days.map(() => 0));
    const other = days.map(() => 0);
    let hasOther = false;
    for (const r of p.a.daily) {
      const i = at.get(r.day);
      if (i === undefined) continue;
      const v = p.metric === 'cost' ? r.cost : r.requests;
      const l = line.get(r.model);
      if (l === undefined) {
        other[i] += v;
        hasOther = true;
      } else rows[l][i] += v;
    }
    const fmt = p.metric === 'cost' ? money : num;
    const round = (vs: number[]) => vs.map((v) => Math.round(v * 1e6) / 1e6);
    const series: ChartSeries[] = top.map((m, i) => ({ label: m, values: round(rows[i]), format: fmt }));
    if (hasOther) series.push({ label: 'Other models', values: round(other), format: fmt });
    return { x: days.map(istDaySeconds), series, top };
  }, [p.a, p.metric]);
  if (c.series.length === 0) return null;
  const what = p.metric === 'cost' ? 'Spend' : 'Requests';
  return (
    <Chart label={`${what} per day by model, ${p.a.from} to ${p.a.to}`}
      summary={`lines for ${c.top.join(', ')}${c.series.length > c.top.length ? ' and the other models' : ''}; the figures are in the Top models table`}
      x={c.x} series={c.series} leftFormat={p.metric === 'cost' ? (v) => '₹' + v : (v) => String(v)} />
  );
}
