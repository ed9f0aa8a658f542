import type { Endpoint, ProviderAdapter } from '../types.js';
import { openAiCompatibleAdapter } from '../openai-compatible/adapter.js';
import { sandboxRespond } from './sandbox-upstream.js';

/**
 * The built-in sandbox: the OpenAI format, answered in process with no key. Chat and embeddings
 * only, so the catalog loader keeps audio models off it.
 */
export const sandboxAdapter: ProviderAdapter = {
  ...openAiCompatibleAdapter,
  endpoints: new Set<Endpoint>(['chat', 'embeddings']),
  keyless: true,
  answerInProcess: sandboxRespond,
};
