import { Fragment } from 'preact';
import { ApiError } from '../../lib/api';
import type { ComplianceReport } from './types';

const CHECK_NAME: Record<string, string> = { models: 'Model list', chat: 'Chat completion', stream: 'Streaming' };
const STATUS: Record<string, { label: string; tone: string; words: string }> = {
  compliant: { label: 'Compliant', tone: 'badge-ok', words: 'Every check passed: the gateway calls this endpoint.' },
  non_compliant: { label: 'Not compliant', tone: 'badge-danger', words: 'It answers, but not as the OpenAI API does: the gateway does not call it until a retest passes.' },
  unreachable: { label: 'Unreachable', tone: 'badge-warn', words: 'It did not answer: the gateway does not call it until a retest passes.' },
};

export function StatusBadge(p: { status: string }) {
  const s = STATUS[p.status];
  return <span class={`badge ${s?.tone ?? ''}`}>{s?.label ?? p.status}</span>;
}

/** A compliance test's report: the verdict in words, then each check with pass or fail and the gateway's reason. */
export function Report(p: { report: ComplianceReport; title: string; callAs?: string }) {
  const s = STATUS[p.report.status];
  return (
    <section class="report" aria-label={p.title}>
      <p><StatusBadge status={p.report.status} /> {s?.words}</p>
      <ul class="report-checks">
        {p.report.checks.map((c) => (
          <li key={c.name}>
            <span class={c.ok ? 'badge badge-ok' : 'badge badge-danger'}>{c.ok ? 'Pass' : 'Fail'}</span>
            <strong>{CHECK_NAME[c.name] ?? c.name}</strong>
            <span class="detail">{c.detail}</span>
          </li>
        ))}
      </ul>
      {p.report.models.length > 0 && (
        <p class="endpoint-models">
          {p.report.models.length === 1 ? 'Model' : `${p.report.models.length} models`}
          {p.callAs ? <>, called as </> : ': '}
          {p.report.models.slice(0, 12).map((m, i) => <Fragment key={m}>{i > 0 && ', '}<code>{p.callAs ? `${p.callAs}${m}` : m}</code></Fragment>)}
          {p.report.models.length > 12 && ` and ${p.report.models.length - 12} more`}
        </p>
      )}
    </section>
  );
}

/**
 * A refused endpoint config in words. The gateway answers 400 bad_request naming the field
 * ("Invalid 'base_url': … an internal address (server-side request forgery guard)").
 */
export function endpointError(e: Error): string {
  if (!(e instanceof ApiError) || e.code !== 'bad_request') return e.message;
  const m = /^Invalid '(name|base_url|api_key)': (.*)$/.exec(e.detail);
  if (!m) return e.message;
  const why = m[2].replace(/[.]$/, '');
  if (m[1] === 'base_url') {
    return /internal address|does not resolve/.test(why)
      ? `The gateway will not call that base URL: ${why}. Use the endpoint's public address.`
      : `That base URL cannot be used: ${why}.`;
  }
  if (m[1] === 'name') return `That name cannot be used: ${why}.`;
  return `That API key cannot be used: ${why}.`;
}
