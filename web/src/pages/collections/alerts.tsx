import { useState } from 'preact/hooks';
import { api, seg } from '../../lib/api';
import { useData } from '../../lib/use-data';
import { ms, pct, when } from '../../lib/format';
import { Section } from '../../components/page';
import { Empty, ErrorNotice, Loading, Notice } from '../../components/notice';
import { Field, Select } from '../../components/field';
import { Confirm } from '../../components/dialog';
import { CopyButton } from '../../components/copy-button';
import type { Alert } from './types';
import { ScrollTable } from './scroll-table';

const metricWords = (a: Alert) =>
  a.metric === 'error_rate' ? `Error rate above ${pct(a.threshold)}` : a.metric === 'latency_p95' ? `p95 latency above ${ms(a.threshold)}` : `${a.metric} above ${a.threshold}`;
const valueWords = (a: Alert) => (a.last_value === null ? '—' : a.metric === 'error_rate' ? pct(a.last_value) : ms(a.last_value));

/** A collection's alerts: listed for everyone, created and removed by owners and admins. */
export function Alerts(p: { slug: string; canAdmin: boolean }) {
  const list = useData(() => api.get<{ data: Alert[] }>(`/me/collections/${seg(p.slug)}/alerts`), [p.slug]);
  const [removing, setRemoving] = useState<Alert | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const [secret, setSecret] = useState<string | null>(null);

  const remove = async () => {
    if (!removing) return;
    setBusy(true);
    setError(null);
    try {
      await api.del(`/me/collections/${seg(p.slug)}/alerts/${seg(removing.id)}`);
      setRemoving(null);
      await list.reload();
    } catch (e) {
      setRemoving(null);
      setError(e as Error);
    } finally {
      setBusy(false);
    }
  };

  const alerts = list.data?.data ?? [];
  return (
    <Section title="Alerts">
      <div class="coll-stack">
        <ErrorNotice error={list.error} />
        <ErrorNotice error={error} />
        {secret && (
          <Notice tone="ok" title="Alert created.">
            Webhook deliveries are signed with this secret in the <code>x-gw-signature</code> header (HMAC-SHA256 of the body).
            Copy it now: you will not see it again.
            <pre class="secret"><code>{secret}</code></pre>
            <CopyButton text={secret} label="Copy the signing secret" />
          </Notice>
        )}
        {!list.data && list.loading && <Loading />}
        {list.data && alerts.length === 0 && <Empty>No alerts on this collection.</Empty>}
        {alerts.length > 0 && (
          <ScrollTable label="Alerts on this collection">
            <table>
              <caption class="sr-only">Alerts on this collection</caption>
              <thead>
                <tr>
                  <th scope="col">When</th><th scope="col">Sent to</th><th scope="col">State</th><th scope="col" class="num">Last value</th><th scope="col">Last delivery</th>
                  {p.canAdmin && <th scope="col"><span class="sr-only">Actions</span></th>}
                </tr>
              </thead>
              <tbody>
                {alerts.map((a) => (
                  <tr key={a.id}>
                    <td class="coll-wrap">{metricWords(a)} <span class="muted">over {a.window_minutes} min</span></td>
                    <td class="coll-alert-target coll-wrap">{a.target.email ? <>email <span class="muted">{a.target.email}</span></> : <>webhook <span class="muted">{a.target.webhook}</span></>}</td>
                    <td><span class={a.firing ? 'badge badge-danger' : 'badge badge-ok'}>{a.firing ? 'Firing' : 'Quiet'}</span>{a.last_fired_at && <div class="muted">last fired {when(a.last_fired_at)}</div>}</td>
                    <td class="num">{valueWords(a)}</td>
                    <td>{a.last_delivery ?? <span class="muted">none</span>}</td>
                    {p.canAdmin && (
                      <td><button type="button" class="btn btn-small btn-danger" onClick={() => setRemoving(a)} aria-label={`Delete the alert: ${metricWords(a)}`}>Delete</button></td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollTable>
        )}
        {p.canAdmin && <NewAlert slug={p.slug} onCreated={async (s) => { setSecret(s); await list.reload(); }} />}
      </div>
      <Confirm open={removing !== null} title="Delete this alert?" confirmLabel="Delete alert" danger busy={busy} onConfirm={remove} onCancel={() => setRemoving(null)}>
        <p>{removing && `${metricWords(removing)} over ${removing.window_minutes} min`} will no longer be checked or delivered.</p>
      </Confirm>
    </Section>
  );
}

function NewAlert(p: { slug: string; onCreated: (secret: string | null) => Promise<void> }) {
  const [metric, setMetric] = useState<'error_rate' | 'latency_p95'>('error_rate');
  const [threshold, setThreshold] = useState('10');
  const [windowMinutes, setWindow] = useState('15');
  const [kind, setKind] = useState<'webhook' | 'email'>('webhook');
  const [target, setTarget] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    const t = Number(threshold);
    const w = Number(windowMinutes);
    if (threshold.trim() === '' || !Number.isFinite(t)) return setError(new Error('Enter the threshold as a number.'));
    if (!Number.isInteger(w)) return setError(new Error('Enter the window as a whole number of minutes, 1 to 1440.'));
    setBusy(true);
    setError(null);
    try {
      const made = await api.post<{ secret: string | null }>(`/me/collections/${seg(p.slug)}/alerts`, {
        metric, threshold: metric === 'error_rate' ? t / 100 : t, window_minutes: w, target: { [kind]: target.trim() },
      });
      setTarget('');
      await p.onCreated(made.secret);
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="form coll-alert-form" onSubmit={submit} noValidate>
      <h3>New alert</h3>
      <div class="form-row">
        <Select label="Metric" value={metric} onChange={(v) => { setMetric(v as typeof metric); setThreshold(v === 'error_rate' ? '10' : '5000'); }}
          options={[{ value: 'error_rate', label: 'Error rate' }, { value: 'latency_p95', label: 'p95 latency' }]} />
        <Field label={metric === 'error_rate' ? 'Fires above (%)' : 'Fires above (ms)'} type="number" inputMode="decimal" value={threshold} onInput={setThreshold}
          min={metric === 'error_rate' ? 0.1 : 1} max={metric === 'error_rate' ? 100 : 600000} step="any" />
        <Field label="Window (minutes)" type="number" inputMode="numeric" value={windowMinutes} onInput={setWindow} min={1} max={1440} />
      </div>
      <div class="form-row">
        <Select label="Deliver by" value={kind} onChange={(v) => setKind(v as typeof kind)}
          options={[{ value: 'webhook', label: 'Webhook (signed POST)' }, { value: 'email', label: 'Email' }]} />
        <Field label={kind === 'webhook' ? 'Webhook URL' : 'Email address'} type={kind === 'webhook' ? 'url' : 'email'} value={target} onInput={setTarget}
          placeholder={kind === 'webhook' ? 'https://example.com/hooks/gw' : 'oncall@example.com'} />
      </div>
      <ErrorNotice error={error} />
      <div class="actions"><button type="submit" class="btn btn-primary" disabled={busy}>{busy ? 'Creating…' : 'Create alert'}</button></div>
    </form>
  );
}
