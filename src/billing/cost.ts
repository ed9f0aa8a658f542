import type { Route } from '../catalog/catalog.js';
import type { TokenUsage } from '../lib/usage-scan.js';
import { tokensForBytes } from './token-estimate.js';

/**
 * Cost of one request in integer micro-rupees: each class of tokens × its ₹ per 1M tokens, which
 * is exactly micro-rupees per token, rounded half up once per request (DESIGN.md, Money). Usage is
 * canonical: cache reads and writes are parts of the prompt, so the uncached input is what is
 * left of it; reasoning is part of the completion, billed at the output price. Parts beyond the
 * prompt (a provider's bug, which clampUsage marks) never make the uncached input negative.
 */
export function costMicros(route: Route, usage: TokenUsage): number {
  const prompt = usage.promptTokens;
  const cached = usage.cachedTokens < prompt ? usage.cachedTokens : prompt;
  const written = usage.cacheWriteTokens < prompt - cached ? usage.cacheWriteTokens : prompt - cached;
  return Math.round((prompt - cached - written) * route.inputMicrosPerUnit + cached * route.cachedInputMicrosPerUnit
    + written * route.cacheWriteMicrosPerUnit + usage.completionTokens * route.outputMicrosPerUnit);
}

/**
 * The most a request can cost before it runs: the prompt estimated at 4 bytes a token plus
 * max_tokens of output (when absent, up to outputCap) at the dearest route's prices, neither
 * past the route's context window (a max_tokens of 1e15 would otherwise hold more micro-rupees
 * than a double counts exactly). The prompt is held at the dearer of the input and cache-write
 * prices, since a provider may write all of it to its cache (Anthropic charges 1.25x input).
 * Routes on the caller's own key cost nothing.
 */
export function maxCostMicros(routes: readonly { route: Route; byok: boolean }[], promptBytes: number, maxTokens: number | null, outputCap: number): number {
  const promptTokens = tokensForBytes(promptBytes);
  const outTokens = maxTokens ?? outputCap;
  let worst = 0;
  for (const { route: r, byok } of routes) {
    if (byok) continue;
    const ctx = r.contextLength;
    const input = r.cacheWriteMicrosPerUnit > r.inputMicrosPerUnit ? r.cacheWriteMicrosPerUnit : r.inputMicrosPerUnit;
    const c = (promptTokens < ctx ? promptTokens : ctx) * input + (outTokens < ctx ? outTokens : ctx) * r.outputMicrosPerUnit;
    if (c > worst) worst = c;
  }
  return Math.ceil(worst);
}
