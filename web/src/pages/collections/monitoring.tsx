import { useMemo, useState } from 'preact/hooks';
import { api, seg } from '../../lib/api';
import { useData } from '../../lib/use-data';
import { ms, pct, when } from '../../lib/format';
import { Section } from '../../components/page';
import { ErrorNotice, Loading, Notice } from '../../components/notice';
import { Chart, istDaySeconds, type ChartSeries } from '../../components/chart';
import { Select } from '../../components/field';
import type { Health } from './types';
import { ScrollTable } from './scroll-table';

const WINDOWS = [1, 3, 7, 14, 30, 60, 90];
/** The window POST …/check answers with. */
const CHECK_DAYS = 7;

/**
 * Reliability of one of the org's collections: monitoring on or off (owner/admin), a check of every
 * step now, and per-step uptime and p95 latency per IST day over 1 to 90 days.
 */
export function Monitoring(p: { slug: string; monitored: boolean; canAdmin: boolean; onMonitored: (on: boolean) => void }) {
  const [days, setDays] = useState(7);
  const health = useData(() => api.get<Health>(`/me/collections/${seg(p.slug)}/health?days=${days}`), [p.slug, days]);
  const [busy, setBusy] = useState<'' | 'check' | 'monitor'>('');
  const [error, setError] = useState<Error | null>(null);
  const [checked, setChecked] = useState<Health | null>(null);

  const toggle = async () => {
    setBusy('monitor');
    setError(null);
    try {
      const r = await api.post<{ monitored: boolean }>(`/me/collections/${seg(p.slug)}/monitor`, { monitored: !p.monitored });
      p.onMonitored(r.monitored);
    } catch (e) {
      setError(e as Error);
    } finally {
      setBusy('');
    }
  };
  const checkNow = async () => {
    setBusy('check');
    setError(null);
    try {
      const fresh = await api.post<Health>(`/me/collections/${seg(p.slug)}/check`);
      setChecked(fresh);
      if (days === CHECK_DAYS) health.set(fresh);
      else await health.reload();
    } catch (e) {
      setError(e as Error);
    } finally {
      setBusy('');
    }
  };

  const h = health.data;
  const charts = useMemo(() => {
    if (!h || h.steps.length === 0) return null;
    const x = h.steps[0].daily.map((d) => istDaySeconds(d.day));
    // A provider names its step unless two steps share it (different models on one provider).
    const shared = h.steps.some((s, i) => h.steps.findIndex((t) => t.provider === s.provider) !== i);
    const label = (s: Health['steps'][number]) => (shared ? `${s.provider} · ${s.upstream_model}` : s.provider);
    const uptime: ChartSeries[] = h.steps.map((s) => ({ label: label(s), values: s.daily.map((d) => (d.uptime === null ? null : d.uptime * 100)), points: true, format: (v) => `${v.toFixed(1)}%` }));
    const latency: ChartSeries[] = h.steps.map((s) => ({ label: label(s), values: s.daily.map((d) => d.p95_latency_ms), points: true, format: (v) => ms(v) }));
    return { x, uptime, latency };
  }, [h]);

  return (
    <Section title="Monitoring" actions={
      <>
        <span class={p.monitored ? 'badge badge-ok' : 'badge'}>{p.monitored ? 'Monitored' : 'Not monitored'}</span>
        {p.canAdmin && (
          <button type="button" class="btn btn-small" disabled={busy !== ''} onClick={toggle}>
            {busy === 'monitor' ? 'Saving…' : p.monitored ? 'Turn monitoring off' : 'Turn monitoring on'}
          </button>
        )}
        <button type="button" class="btn btn-small btn-primary" disabled={busy !== ''} onClick={checkNow}>{busy === 'check' ? 'Checking…' : 'Check now'}</button>
      </>
    }>
      <div class="coll-stack">
        <p class="muted">
          {p.monitored ? 'Every step is sent a tiny canary request on a schedule.' : 'Turn monitoring on to canary every step on a schedule; "Check now" sends one canary per step at once.'}{' '}
          Canaries use the gateway's provider keys and cost your organisation nothing.
        </p>
        <ErrorNotice error={error} />
        {checked && <CheckResult health={checked} />}
        <div class="form-row coll-monitor-window">
          <Select label="Window" value={String(days)} onChange={(v) => setDays(Number(v))}
            options={WINDOWS.map((d) => ({ value: String(d), label: d === 1 ? 'Last day' : `Last ${d} days` }))} />
        </div>
        <ErrorNotice error={health.error} />
        {!h && health.loading && <Loading />}
        {h && (
          <>
            <div class="stats coll-stats">
              <div class="stat"><div class="stat-label">Canaries</div><div class="stat-value">{h.canaries}</div></div>
              <div class="stat"><div class="stat-label">Error rate</div><div class="stat-value">{pct(h.error_rate)}</div></div>
              <div class="stat"><div class="stat-label">p95 latency</div><div class="stat-value">{ms(h.p95_latency_ms)}</div></div>
            </div>
            {h.canaries === 0 && <p class="empty">No canaries in this window yet: press "Check now" or turn monitoring on.</p>}
            {charts && h.canaries > 0 && (
              <div class="grid-2 coll-monitor-charts">
                <div>
                  <h3>Uptime per day</h3>
                  <Chart label={`Uptime per step per IST day, ${windowWords(h.days)}`} summary={stepSummary(h, 'uptime')} x={charts.x} series={charts.uptime}
                    leftFormat={(v) => `${v}%`} height={200} />
                </div>
                <div>
                  <h3>p95 latency per day</h3>
                  <Chart label={`p95 latency per step per IST day, ${windowWords(h.days)}`} summary={stepSummary(h, 'latency')} x={charts.x} series={charts.latency}
                    leftFormat={(v) => ms(v)} height={200} />
                </div>
              </div>
            )}
            <StepTable health={h} />
          </>
        )}
      </div>
    </Section>
  );
}

const windowWords = (days: number) => (days === 1 ? 'the last day' : `the last ${days} days`);
const stepSummary = (h: Health, what: 'uptime' | 'latency') =>
  h.steps.map((s) => `${s.provider} ${what === 'uptime' ? pct(s.uptime) : ms(s.p95_latency_ms)}`).join(', ');

function CheckResult(p: { health: Health }) {
  const answered = p.health.steps.filter((s) => s.last_canary?.ok).length;
  const all = p.health.steps.length;
  return (
    <Notice tone={answered === all ? 'ok' : 'warn'} title="Checked just now.">
      {answered} of {all} {all === 1 ? 'step' : 'steps'} answered:{' '}
      {p.health.steps.map((s, i) => (
        <span key={s.route}>{i > 0 && '; '}{s.provider} {s.last_canary ? (s.last_canary.ok ? `ok in ${ms(s.last_canary.latency_ms)}` : `failed (${s.last_canary.error ?? 'no answer'})`) : 'not checked'}</span>
      ))}
    </Notice>
  );
}

function StepTable(p: { health: Health }) {
  return (
    <ScrollTable label="Health of each step">
      <table>
        <caption class="sr-only">Health of each step, {windowWords(p.health.days)}</caption>
        <thead>
          <tr><th scope="col">Step</th><th scope="col" class="num">Uptime</th><th scope="col" class="num">p95 latency</th><th scope="col" class="num">Canaries</th><th scope="col">Last canary</th></tr>
        </thead>
        <tbody>
          {p.health.steps.map((s, i) => (
            <tr key={s.route}>
              <td class="coll-wrap">{i + 1}. {s.provider} <span class="muted">· {s.upstream_model}</span></td>
              <td class="num">{pct(s.uptime)}</td>
              <td class="num">{ms(s.p95_latency_ms)}</td>
              <td class="num">{s.canaries}</td>
              <td>
                {s.last_canary ? (
                  <>
                    <span class={s.last_canary.ok ? 'badge badge-ok' : 'badge badge-danger'}>{s.last_canary.ok ? 'ok' : 'failed'}</span>{' '}
                    {when(s.last_canary.at)} · {ms(s.last_canary.latency_ms)}
                    {s.last_canary.error && <div class="coll-canary-error">{s.last_canary.error}</div>}
                  </>
                ) : <span class="muted">none yet</span>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollTable>
  );
}
