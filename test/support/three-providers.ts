// The gateway with the three providers of llama-3.3-70b-instruct (groq, together, deepinfra,
// tried in that catalog order) each played by its own mock: the set-up of the routing tests.
import { startGateway, type GatewayProcess } from './gateway-process.js';
import { startMockProvider, type MockProvider } from './mock-provider.js';
import { bearer } from './wait.js';

export interface ThreeProviders {
  gw: GatewayProcess;
  groq: MockProvider;
  together: MockProvider;
  deepinfra: MockProvider;
  key: string;
  /** POST /v1/chat/completions with the key. */
  post(body: string, signal?: AbortSignal): Promise<Response>;
  /** Forgets recorded requests and queued behaviours on every mock. */
  reset(): void;
  close(): Promise<void>;
}

/** `config` is merged into the gateway config; `providers` is filled in here. */
export async function startThreeProviders(config: Record<string, unknown>): Promise<ThreeProviders> {
  const groq = await startMockProvider();
  const together = await startMockProvider();
  const deepinfra = await startMockProvider();
  const mocks = [groq, together, deepinfra];
  const gw = await startGateway({
    ...config,
    providers: {
      groq: { baseUrl: groq.url, apiKey: 'k1' },
      together: { baseUrl: together.url, apiKey: 'k2' },
      deepinfra: { baseUrl: deepinfra.url, apiKey: 'k3' },
    },
  });
  const { key } = await gw.orgAndKey();
  return {
    gw, groq, together, deepinfra, key,
    post: (body, signal) => fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: bearer(key), body, signal }),
    reset: () => {
      for (const m of mocks) m.reset();
    },
    close: async () => {
      await gw.cleanup();
      for (const m of mocks) await m.close();
    },
  };
}
