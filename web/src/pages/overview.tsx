import { useMemo } from 'preact/hooks';
import { api } from '../lib/api';
import { useSession } from '../lib/session';
import { useData } from '../lib/use-data';
import { istDate, money, num } from '../lib/format';
import { perDay, type Activity } from '../lib/usage-types';
import { Page, Section } from '../components/page';
import { Stat } from '../components/stat';
import { ErrorNotice, Loading, Notice } from '../components/notice';
import { Chart, istDaySeconds } from '../components/chart';
import { CopyButton } from '../components/copy-button';

interface KeyList { data: { id: string }[] }
interface BillingHead { low_balance_inr: number | null }

/** Balance, this month's spend, today's requests, the last 30 days, and what to do next on a fresh org. */
export function Overview() {
  const { me, can } = useSession();
  const today = istDate();
  const monthStart = today.slice(0, 8) + '01';
  const from = monthStart < istDate(-29) ? monthStart : istDate(-29);
  const activity = useData(() => api.get<Activity>(`/me/activity?from=${from}&to=${today}`), [me.org.id, from, today]);
  const keys = useData(() => api.get<KeyList>('/me/keys'), [me.org.id]);
  const billing = useData(() => (can('owner') ? api.get<BillingHead>('/me/billing') : Promise.resolve(null)), [me.org.id]);

  const figures = useMemo(() => {
    const a = activity.data;
    if (!a) return null;
    const month = a.daily.filter((r) => r.day >= monthStart).reduce((s, r) => s + r.cost, 0);
    const todayRequests = a.daily.filter((r) => r.day === today).reduce((s, r) => s + r.requests, 0);
    const series = perDay(a, istDate(-29), today);
    return { month, todayRequests, series, x: series.days.map(istDaySeconds) };
  }, [activity.data]);

  const balance = me.org.balance_inr;
  const threshold = billing.data?.low_balance_inr ?? null;
  const low = me.org.tier === 'standard' && (balance <= 0 || (threshold !== null && balance < threshold));
  const fresh = keys.data !== null && keys.data.data.length === 0;

  return (
    <Page title="Overview" lead={<>Organisation <strong>{me.org.name}</strong>, signed in as {me.email} ({me.role}).</>}>
      {low && (
        <Notice tone="warn" title="Low balance.">
          {balance <= 0 ? 'Standard keys are refused with “insufficient credits” until you top up.' : `The balance is below your ${money(threshold)} alert.`}{' '}
          {can('owner') ? <a href="/billing">Top up now</a> : 'Ask an owner to top up.'}
        </Notice>
      )}
      <div class="stats">
        <Stat label="Balance" value={money(balance)} note={me.org.tier === 'trial' ? 'Trial keys are free' : 'Prepaid credit'} tone={low ? 'warn' : undefined} />
        <Stat label="Spent this month (IST)" value={figures ? money(figures.month) : '…'} />
        <Stat label="Requests today (IST)" value={figures ? num(figures.todayRequests) : '…'} />
        <Stat label="Key tier" value={me.org.tier === 'trial' ? 'Trial' : 'Standard'} note={me.org.tier === 'trial' ? '60/min, 200/day' : 'Billed per request'} />
      </div>
      {fresh && <NextSteps />}
      <Section title="Last 30 days">
        <ErrorNotice error={activity.error} />
        {!figures && activity.loading && <Loading />}
        {figures && (
          <Chart label="Spend and requests per day, last 30 days"
            summary={`${money(figures.series.cost.reduce((a, b) => a + b, 0))} and ${num(figures.series.requests.reduce((a, b) => a + b, 0))} requests`}
            x={figures.x}
            series={[
              { label: 'Spend (₹)', values: figures.series.cost, bars: true, format: money },
              { label: 'Requests', values: figures.series.requests, axis: 'right', format: num },
            ]}
            leftFormat={(v) => '₹' + v} rightFormat={(v) => String(v)} />
        )}
        <p><a href="/usage">See usage and activity</a></p>
      </Section>
    </Page>
  );
}

/** A fresh org: a key, then a request that works against this very gateway. */
function NextSteps() {
  const snippet = `curl ${location.origin}/v1/chat/completions \\
  -H "Authorization: Bearer $GW_KEY" \\
  -H "Content-Type: application/json" \\
  -d '{"model":"sandbox/echo","messages":[{"role":"user","content":"namaste"}]}'`;
  return (
    <Section title="Get started">
      <ol class="steps">
        <li><a href="/keys?new=1" class="btn btn-primary">Create an API key</a> and copy it: it is shown once.</li>
        <li>
          <p>Put it in <code>GW_KEY</code> and send a first request. <code>sandbox/echo</code> answers locally, free, with no provider account:</p>
          <pre class="snippet"><code>{snippet}</code></pre>
          <CopyButton text={snippet} label="Copy the command" />
        </li>
        <li>Point an OpenAI or Anthropic SDK at <code>{location.origin}/v1</code> with the same key.</li>
      </ol>
    </Section>
  );
}
