import { useState } from 'preact/hooks';
import { api, seg } from '../../lib/api';
import { useData } from '../../lib/use-data';
import { CopyButton } from '../../components/copy-button';
import { Field } from '../../components/field';
import { Empty, ErrorNotice, Loading } from '../../components/notice';
import type { ByokProvider, DiscoveredModels } from './types';

/** The models a saved key reaches, each as the id to send (provider/model-id), with a copy button; filterable when long. */
export function DiscoveredList(p: { id: string; provider: ByokProvider }) {
  const models = useData(() => api.get<DiscoveredModels>(`/me/byok/${seg(p.provider.provider)}/models`), [p.provider.provider, p.provider.saved?.verified_at]);
  const [filter, setFilter] = useState('');
  const all = models.data?.data ?? [];
  const shown = filter ? all.filter((m) => m.model.toLowerCase().includes(filter.toLowerCase())) : all;
  return (
    <section id={p.id} class="discovered" aria-label={`Models of the ${p.provider.name} key`}>
      <h3>Models this key reaches</h3>
      <p class="hint">Send one of these ids as <code>model</code>: the request goes to {p.provider.name} on your key.</p>
      <ErrorNotice error={models.error} />
      {!models.data && models.loading && <Loading />}
      {models.data && all.length === 0 && <Empty>{p.provider.name} listed no models for this key.</Empty>}
      {all.length > 8 && <Field label="Filter models" type="search" value={filter} onInput={setFilter} />}
      {shown.length > 0 && (
        <div class="table-wrap model-ids">
          <table>
            <thead><tr><th scope="col">Model id to send</th><th scope="col"><span class="sr-only">Copy</span></th></tr></thead>
            <tbody>
              {shown.map((m) => (
                <tr key={m.id}><th scope="row"><code>{m.model}</code></th><td class="num"><CopyButton text={m.model} /></td></tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
