// What /openapi.json says about the inference routes beyond what the router checks: the answers
// (the router never serialises them: the provider's bytes pass through) and the request fields
// the gateway passes on or consumes. Plain JSON Schema, documentation only: validation stays
// with the route table's typebox schemas, which check only what the gateway relies on.

const REF = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The gateway's request extensions, read and removed before the request leaves. */
const EXTENSIONS = {
  optimize: { type: 'string', enum: ['price', 'latency', 'throughput'], description: 'gateway extension: order the routes by price, recent p95 latency or recent tokens/s' },
  provider: {
    description: 'gateway extension: a provider id pins the request to it; a list means only these, in this order (400 no_route when none is usable)',
    oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, minItems: 1 }],
  },
  data_policy: { type: 'string', enum: ['india_only', 'no_training', 'zero_retention'], description: 'gateway extension: only routes that satisfy it' },
  upstream_key: { type: 'string', description: 'gateway extension: your own provider key for this request (BYOK, not debited for tokens); the request must resolve to one provider' },
};

const Usage = {
  type: 'object',
  required: ['prompt_tokens', 'completion_tokens', 'total_tokens'],
  properties: {
    prompt_tokens: { type: 'integer' },
    completion_tokens: { type: 'integer' },
    total_tokens: { type: 'integer' },
    prompt_tokens_details: { type: 'object', properties: { cached_tokens: { type: 'integer' }, cache_write_tokens: { type: 'integer', description: 'input tokens written to the provider\'s prompt cache (Anthropic), part of prompt_tokens' } } },
    completion_tokens_details: { type: 'object', properties: { reasoning_tokens: { type: 'integer' } } },
  },
};

const ToolCall = {
  type: 'object',
  required: ['id', 'type', 'function'],
  properties: {
    id: { type: 'string' },
    type: { type: 'string', const: 'function' },
    function: { type: 'object', required: ['name', 'arguments'], properties: { name: { type: 'string' }, arguments: { type: 'string' } } },
  },
};

const ChatCompletion = {
  type: 'object',
  required: ['id', 'object', 'created', 'model', 'choices'],
  properties: {
    id: { type: 'string' },
    object: { type: 'string', const: 'chat.completion' },
    created: { type: 'integer' },
    model: { type: 'string' },
    system_fingerprint: { type: ['string', 'null'] },
    choices: {
      type: 'array',
      items: {
        type: 'object',
        required: ['index', 'message', 'finish_reason'],
        properties: {
          index: { type: 'integer' },
          message: {
            type: 'object',
            required: ['role', 'content'],
            properties: {
              role: { type: 'string', const: 'assistant' },
              content: { type: ['string', 'null'] },
              refusal: { type: ['string', 'null'] },
              reasoning_content: { type: ['string', 'null'], description: 'reasoning text, from providers that return it' },
              tool_calls: { type: 'array', items: ToolCall },
            },
          },
          finish_reason: { type: ['string', 'null'], description: 'stop, length, tool_calls, content_filter' },
          logprobs: { type: ['object', 'null'] },
        },
      },
    },
    usage: { ...Usage, description: 'always present: estimated (x-gw-usage header) when the provider gave none' },
  },
};

const ChatCompletionChunk = {
  type: 'object',
  required: ['id', 'object', 'created', 'model', 'choices'],
  description: 'one `data:` event of a streamed chat answer; the stream ends with `data: [DONE]`',
  properties: {
    id: { type: 'string' },
    object: { type: 'string', const: 'chat.completion.chunk' },
    created: { type: 'integer' },
    model: { type: 'string' },
    choices: {
      type: 'array',
      items: {
        type: 'object',
        required: ['index', 'delta'],
        properties: {
          index: { type: 'integer' },
          delta: {
            type: 'object',
            properties: { role: { type: 'string' }, content: { type: ['string', 'null'] }, reasoning_content: { type: ['string', 'null'] }, tool_calls: { type: 'array', items: { type: 'object' } } },
          },
          finish_reason: { type: ['string', 'null'] },
        },
      },
    },
    usage: { oneOf: [Usage, { type: 'null' }], description: 'on the last chunk when stream_options.include_usage is true' },
  },
};

const Message = {
  type: 'object',
  required: ['role'],
  properties: {
    role: { type: 'string', description: 'system, developer, user, assistant or tool' },
    content: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'object' } }, { type: 'null' }] },
    name: { type: 'string' },
    tool_calls: { type: 'array', items: ToolCall },
    tool_call_id: { type: 'string' },
  },
};

const ChatRequest = {
  type: 'object',
  required: ['model', 'messages'],
  description: 'The OpenAI chat request: fields not named here pass to the provider untouched.',
  properties: {
    model: { type: 'string', description: 'a catalog id (GET /v1/models), or provider/model-id with upstream_key' },
    messages: { type: 'array', items: Message, minItems: 1 },
    stream: { type: 'boolean' },
    stream_options: { type: 'object', properties: { include_usage: { type: 'boolean' } } },
    max_tokens: { type: ['integer', 'null'], minimum: 1 },
    max_completion_tokens: { type: ['integer', 'null'], minimum: 1 },
    temperature: { type: 'number' },
    top_p: { type: 'number' },
    n: { type: 'integer' },
    stop: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
    seed: { type: 'integer' },
    tools: { type: 'array', items: { type: 'object' } },
    tool_choice: { oneOf: [{ type: 'string' }, { type: 'object' }] },
    response_format: { type: 'object' },
    user: { type: 'string' },
    ...EXTENSIONS,
  },
  additionalProperties: true,
};

const EmbeddingsRequest = {
  type: 'object',
  required: ['model', 'input'],
  properties: {
    model: { type: 'string' },
    input: { oneOf: [{ type: 'string' }, { type: 'array', minItems: 1 }] },
    encoding_format: { type: 'string', enum: ['float', 'base64'] },
    dimensions: { type: 'integer' },
    user: { type: 'string' },
    ...EXTENSIONS,
  },
  additionalProperties: true,
};

const Embeddings = {
  type: 'object',
  required: ['object', 'data', 'model', 'usage'],
  properties: {
    object: { type: 'string', const: 'list' },
    data: {
      type: 'array',
      items: {
        type: 'object',
        required: ['object', 'index', 'embedding'],
        properties: {
          object: { type: 'string', const: 'embedding' },
          index: { type: 'integer' },
          embedding: { oneOf: [{ type: 'array', items: { type: 'number' } }, { type: 'string', description: 'base64 of float32s' }] },
        },
      },
    },
    model: { type: 'string' },
    usage: { type: 'object', required: ['prompt_tokens', 'total_tokens'], properties: { prompt_tokens: { type: 'integer' }, total_tokens: { type: 'integer' } } },
  },
};

const Transcription = {
  type: 'object',
  required: ['text'],
  description: 'response_format json; verbose_json adds language, duration and segments',
  properties: { text: { type: 'string' }, language: { type: 'string' }, duration: { type: 'number' }, segments: { type: 'array', items: { type: 'object' } } },
};

const TEXT_FORMATS = { 'text/plain': { schema: { type: 'string', description: 'response_format text, srt or vtt' } } };
const AUDIO = { schema: { type: 'string', format: 'binary' } };

/** Schemas the inference routes refer to, for components.schemas. */
export const INFERENCE_SCHEMAS: Record<string, unknown> = {
  ChatCompletionRequest: ChatRequest, ChatCompletion, ChatCompletionChunk, EmbeddingsRequest, Embeddings, Transcription,
};

/** A route's documented 200 answer content, by path; undefined for routes the table describes. */
export const INFERENCE_ANSWERS: Record<string, Record<string, unknown>> = {
  '/v1/chat/completions': {
    'application/json': { schema: REF('ChatCompletion') },
    'text/event-stream': { schema: { type: 'string', description: 'when stream is true: `data: {ChatCompletionChunk}` events, then `data: [DONE]`' }, 'x-gw-event': REF('ChatCompletionChunk') },
  },
  '/v1/embeddings': { 'application/json': { schema: REF('Embeddings') } },
  '/v1/audio/transcriptions': { 'application/json': { schema: REF('Transcription') }, ...TEXT_FORMATS },
  '/v1/audio/translations': { 'application/json': { schema: REF('Transcription') }, ...TEXT_FORMATS },
  '/v1/audio/speech': { 'audio/mpeg': AUDIO, 'audio/opus': AUDIO, 'audio/aac': AUDIO, 'audio/flac': AUDIO, 'audio/wav': AUDIO, 'audio/pcm': AUDIO },
  '/mcp': { 'application/json': { schema: { type: 'object', required: ['jsonrpc'], description: 'a JSON-RPC 2.0 response', properties: { jsonrpc: { const: '2.0' } } } } },
};

/** Documented request bodies that replace the route table's (which checks only what the gateway reads). */
export const INFERENCE_REQUESTS: Record<string, Record<string, unknown>> = {
  '/v1/chat/completions': { 'application/json': { schema: REF('ChatCompletionRequest') } },
  '/v1/embeddings': { 'application/json': { schema: REF('EmbeddingsRequest') } },
};

/** Extension fields for the request bodies the table does describe (speech JSON, upload forms). */
export const EXTENSION_PROPERTIES = EXTENSIONS;

/** OpenAI's operation names where the route is OpenAI's, so generated clients read alike. */
export const OPERATION_IDS: Record<string, string> = {
  'post /v1/chat/completions': 'createChatCompletion',
  'post /v1/embeddings': 'createEmbedding',
  'post /v1/audio/transcriptions': 'createTranscription',
  'post /v1/audio/translations': 'createTranslation',
  'post /v1/audio/speech': 'createSpeech',
  'get /v1/models': 'listModels',
  'get /v1/models/:id': 'retrieveModel',
  'get /v1/models/:owner/:name': 'retrieveModelWithSlash',
};
