import { useState } from 'preact/hooks';
import { api } from '../../lib/api';
import { Field } from '../../components/field';
import { Notice } from '../../components/notice';
import { endpointError, Report } from './compliance-report';
import type { ComplianceReport, Endpoint } from './types';

type Outcome = { kind: 'registered'; endpoint: Endpoint } | { kind: 'tested'; report: ComplianceReport };

/**
 * Register an endpoint (compliance-tested inline) or only test a config, writing nothing. The
 * report of either shows under the form. After registering, the fields clear, the key first.
 */
export function EndpointForm(p: { canSave: boolean; onRegistered: (ep: Endpoint) => void }) {
  const [name, setName] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState<'save' | 'test' | null>(null);
  const [error, setError] = useState('');
  const [outcome, setOutcome] = useState<Outcome | null>(null);

  const config = () => ({ base_url: baseUrl.trim(), api_key: key.trim() || null });
  const register = async (e: Event) => {
    e.preventDefault();
    if (!p.canSave) return testOnly();
    setBusy('save');
    setError('');
    setOutcome(null);
    try {
      const ep = await api.post<Endpoint>('/me/endpoints', { name: name.trim(), ...config() });
      setKey('');
      setName('');
      setBaseUrl('');
      setOutcome({ kind: 'registered', endpoint: ep });
      p.onRegistered(ep);
    } catch (err) {
      setError(endpointError(err as Error));
    } finally {
      setBusy(null);
    }
  };
  const testOnly = async () => {
    setBusy('test');
    setError('');
    setOutcome(null);
    try {
      setOutcome({ kind: 'tested', report: await api.post<ComplianceReport>('/me/endpoints/test', config()) });
    } catch (err) {
      setError(endpointError(err as Error));
    } finally {
      setBusy(null);
    }
  };

  return (
    <>
      <form class="form" onSubmit={register}>
        {p.canSave && (
          <Field label="Name" value={name} onInput={setName} required maxLength={32} autoComplete="off"
            hint={<>Lower-case letters, digits and dashes. Its models are called as <code>custom/{name.trim() || '<name>'}/&lt;model&gt;</code>.</>} />
        )}
        <Field label="Base URL" type="url" value={baseUrl} onInput={setBaseUrl} required placeholder="https://llm.example.com/v1" autoComplete="off"
          hint="The OpenAI-compatible API root, the part before /chat/completions. It must be a public address." />
        <Field label="API key (optional)" type="password" value={key} onInput={setKey} autoComplete="off"
          hint="Sent as a Bearer token. Stored encrypted; only a masked form is shown afterwards." />
        <div class="actions">
          {p.canSave && <button type="submit" class="btn btn-primary" disabled={busy !== null}>{busy === 'save' ? 'Testing and registering…' : 'Register and test'}</button>}
          <button type={p.canSave ? 'button' : 'submit'} class={p.canSave ? 'btn' : 'btn btn-primary'} disabled={busy !== null}
            onClick={p.canSave ? () => (baseUrl.trim() ? void testOnly() : setError('Enter the base URL to test.')) : undefined}>
            {busy === 'test' ? 'Testing…' : 'Test without saving'}
          </button>
        </div>
        {error && <Notice tone="error">{error}</Notice>}
      </form>
      {outcome?.kind === 'registered' && (
        <div class="report-after">
          <Notice tone="ok">Registered {outcome.endpoint.name}.</Notice>
          <h3>Compliance report of {outcome.endpoint.name}</h3>
          <Report report={outcome.endpoint.compliance} title={`Compliance report of ${outcome.endpoint.name}, just registered`} callAs={`custom/${outcome.endpoint.name}/`} />
        </div>
      )}
      {outcome?.kind === 'tested' && (
        <div class="report-after">
          <h3>Test report (nothing was saved)</h3>
          <Report report={outcome.report} title="Test report" />
        </div>
      )}
    </>
  );
}
