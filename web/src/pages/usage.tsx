import { useMemo, useState } from 'preact/hooks';
import { api } from '../lib/api';
import { money, num } from '../lib/format';
import { useLocation } from '../lib/router';
import { useSession } from '../lib/session';
import { useData } from '../lib/use-data';
import type { Activity } from '../lib/usage-types';
import { Page, Section } from '../components/page';
import { Stat } from '../components/stat';
import { Empty, ErrorNotice, Loading } from '../components/notice';
import { DailyChart, ModelChart, type ModelMetric } from './usage/charts';
import { Events, ExportLink } from './usage/events';
import { RangePicker, rangeOf } from './usage/range';
import { KeysUsage, Providers, TopKeys, TopModels, type UsageBody } from './usage/tables';
import './usage.css';

const dayLabel = new Intl.DateTimeFormat('en-IN', { timeZone: 'UTC', day: 'numeric', month: 'short', year: 'numeric' });
const shown = (date: string): string => (/^\d{4}-\d{2}-\d{2}$/.test(date) ? dayLabel.format(new Date(date + 'T00:00:00Z')) : date);

/**
 * Usage and activity over a range of IST days (in the URL): spend and requests per day and per
 * model, top models and keys, the cost per provider, every key today and over 30 days, and the
 * per-request events with filters, paging and a CSV export.
 */
export function Usage(_p: { params: Record<string, string> }) {
  const { me } = useSession();
  const loc = useLocation();
  const range = rangeOf(loc);
  const { from, to } = range;
  const activity = useData(() => api.get<Activity>(`/me/activity?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`), [me.org.id, from, to]);
  const usage = useData(() => api.get<UsageBody>('/me/usage'), [me.org.id]);
  const [metric, setMetric] = useState<ModelMetric>('cost');

  const a = activity.data;
  const models = useMemo(() => (a ? [...new Set(a.daily.map((r) => r.model))].sort() : []), [a]);
  const fresh = a && a.from === from && a.to === to ? a : null;

  return (
    <Page title="Usage and activity" lead={<>Spend and requests of <strong>{me.org.name}</strong> by IST day, {shown(from)} to {shown(to)}.</>}>
      <RangePicker loc={loc} range={range} />
      <ErrorNotice error={activity.error} />
      {!a && activity.loading && <Loading label="Loading usage…" />}
      {a && (
        <>
          <div class="stats usage-stats" aria-busy={!fresh}>
            <Stat label="Spend" value={money(a.totals.cost)} note={`${shown(a.from)} to ${shown(a.to)}`} />
            <Stat label="Requests" value={num(a.totals.requests)} />
            <Stat label="Input tokens" value={num(a.totals.prompt_tokens)} note={a.totals.cached_tokens > 0 ? `${num(a.totals.cached_tokens)} from cache` : undefined} />
            <Stat label="Output tokens" value={num(a.totals.completion_tokens)} />
          </div>
          <Section title="Per day">
            {a.totals.requests === 0 ? <Empty>No requests in this range.</Empty> : <DailyChart a={a} />}
          </Section>
          <Section title="By model" actions={a.totals.requests > 0 && (
            <div class="usage-presets" role="group" aria-label="Chart by">
              {(['cost', 'requests'] as const).map((m) => (
                <button key={m} type="button" class={metric === m ? 'btn btn-small btn-primary' : 'btn btn-small'} aria-pressed={metric === m}
                  onClick={() => setMetric(m)}>{m === 'cost' ? 'Spend' : 'Requests'}</button>
              ))}
            </div>
          )}>
            {a.totals.requests > 0 && <ModelChart a={a} metric={metric} />}
            <h3>Top models</h3>
            <TopModels a={a} />
          </Section>
          <div class="grid-2">
            <Section title="Top keys"><TopKeys a={a} /></Section>
            <Section title="Cost by provider"><Providers a={a} /></Section>
          </div>
        </>
      )}
      <Section title="Keys: today and the last 30 days">
        <ErrorNotice error={usage.error} />
        {!usage.data && usage.loading && <Loading />}
        {usage.data && <KeysUsage u={usage.data} />}
      </Section>
      <Section title="Events" id="events" actions={<ExportLink loc={loc} from={from} to={to} events={fresh ? fresh.events : null} />}>
        <Events loc={loc} from={from} to={to} models={models} keys={usage.data?.data ?? []} />
      </Section>
    </Page>
  );
}
