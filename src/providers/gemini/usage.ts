/** Gemini's `usageMetadata` (GenerateContentResponse.UsageMetadata). */
export interface GeminiUsage {
  promptTokenCount?: number;
  cachedContentTokenCount?: number;
  candidatesTokenCount?: number;
  thoughtsTokenCount?: number;
  toolUsePromptTokenCount?: number;
  totalTokenCount?: number;
}

/** The gateway's canonical (OpenAI) usage block. */
export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
  completion_tokens_details: { reasoning_tokens: number };
}

/**
 * Gemini's counts in OpenAI's convention, the one place they are mapped. `promptTokenCount`
 * already includes `cachedContentTokenCount` (as OpenAI's prompt_tokens includes cached_tokens),
 * so it is taken as it is; the results of Gemini's own tools (search grounding) are input too.
 * Output is the answer plus the model's thinking (`thoughtsTokenCount`, billed at the output
 * price), which OpenAI counts in completion_tokens and details as reasoning_tokens.
 */
export function chatUsage(u: GeminiUsage): ChatUsage {
  const prompt = count(u.promptTokenCount) + count(u.toolUsePromptTokenCount);
  const reasoning = count(u.thoughtsTokenCount);
  const completion = count(u.candidatesTokenCount) + reasoning;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: count(u.cachedContentTokenCount) },
    completion_tokens_details: { reasoning_tokens: reasoning },
  };
}

function count(n: unknown): number {
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;
}
