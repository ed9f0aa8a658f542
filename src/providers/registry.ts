import type { NativeFormat, ProviderAdapter } from './types.js';
import { anthropicAdapter } from './anthropic/adapter.js';
import { geminiAdapter } from './gemini/adapter.js';
import { openAiCompatibleAdapter } from './openai-compatible/adapter.js';
import { sandboxAdapter } from './sandbox/adapter.js';
import { sarvamAdapter } from './sarvam/adapter.js';

/** Adapters by provider kind. Adding a kind = one folder + one line here. */
const ADAPTERS: Record<string, ProviderAdapter> = {
  'openai-compatible': openAiCompatibleAdapter,
  sandbox: sandboxAdapter,
  sarvam: sarvamAdapter,
  anthropic: anthropicAdapter,
  gemini: geminiAdapter,
};

export function adapterFor(kind: string): ProviderAdapter {
  const a = ADAPTERS[kind];
  if (!a) throw new Error(`no adapter for provider kind '${kind}'`);
  return a;
}

/** The provider kinds whose adapter takes requests in `format` as its own. */
export function kindsSpeaking(format: NativeFormat): ReadonlySet<string> {
  return new Set(Object.keys(ADAPTERS).filter((k) => ADAPTERS[k].nativeFormat === format));
}
