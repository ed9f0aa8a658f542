import { useState } from 'preact/hooks';
import { api } from './lib/api';
import { Dialog } from './components/dialog';
import { TextArea } from './components/field';

const SOURCES = ['Search engine', 'A friend or colleague', 'Social media', 'A blog or newsletter', 'GitHub', 'Other'];

/** The one-time signup survey (POST /me/attribution); skipping answers it too, so it never returns. */
export function Attribution(p: { onDone: () => void }) {
  const [source, setSource] = useState('');
  const [details, setDetails] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const send = async (answer: { source: string; details?: string }) => {
    setBusy(true);
    setError('');
    try {
      await api.post('/me/attribution', answer);
      p.onDone();
    } catch (e) {
      if ((e as { code?: string }).code === 'already_answered') p.onDone();
      else setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog open title="How did you hear about us?" onClose={() => void send({ source: 'skipped' })} actions={
      <>
        <button type="button" class="btn" disabled={busy} onClick={() => send({ source: 'skipped' })}>Skip</button>
        <button type="button" class="btn btn-primary" disabled={busy || !source} onClick={() => send({ source, ...(details.trim() ? { details: details.trim() } : {}) })}>Send</button>
      </>
    }>
      <p>One question, once. It helps the people running this gateway.</p>
      <fieldset class="choices">
        <legend>Where did you find this gateway?</legend>
        {SOURCES.map((s) => (
          <label key={s} class="choice"><input type="radio" name="source" value={s} checked={source === s} onChange={() => setSource(s)} /> {s}</label>
        ))}
      </fieldset>
      <TextArea label="Anything to add (optional)" value={details} onInput={setDetails} rows={2} />
      {error && <p role="alert" class="error-text">{error}</p>}
    </Dialog>
  );
}
