import type { Route } from '../catalog/catalog.js';
import type { TokenUsage } from '../lib/usage-scan.js';
import { tokensForBytes } from './token-estimate.js';

/**
 * Cost of one request in integer micro-rupees: tokens × (₹ per 1M tokens), which is exactly
 * micro-rupees per token, rounded half up once per request (DESIGN.md, Money).
 */
export function costMicros(route: Route, usage: TokenUsage): number {
  return Math.round(usage.promptTokens * route.inputMicrosPerUnit + usage.completionTokens * route.outputMicrosPerUnit);
}

/**
 * The most a request can cost before it runs: the prompt estimated at 4 bytes a token plus
 * max_tokens of output (when absent, up to outputCap) at the dearest route's prices, neither
 * past the route's context window (a max_tokens of 1e15 would otherwise hold more micro-rupees
 * than a double counts exactly). Routes on the caller's own key cost nothing.
 */
export function maxCostMicros(routes: readonly { route: Route; byok: boolean }[], promptBytes: number, maxTokens: number | null, outputCap: number): number {
  const promptTokens = tokensForBytes(promptBytes);
  const outTokens = maxTokens ?? outputCap;
  let worst = 0;
  for (const { route: r, byok } of routes) {
    if (byok) continue;
    const ctx = r.contextLength;
    const c = (promptTokens < ctx ? promptTokens : ctx) * r.inputMicrosPerUnit + (outTokens < ctx ? outTokens : ctx) * r.outputMicrosPerUnit;
    if (c > worst) worst = c;
  }
  return Math.ceil(worst);
}
