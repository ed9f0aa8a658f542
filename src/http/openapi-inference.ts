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
  cache: { type: 'string', enum: ['auto', 'off'], description: 'gateway extension: auto marks the long stable prefix (tools, system prompt) for the provider\'s prompt cache where it needs markers (Anthropic), off marks nothing; over the key\'s and org\'s prompt_cache and the config; cached tokens are billed at the cached price' },
  guardrails: {
    description: "gateway extension: this request's guardrail policy (docs/guardrails.md), over its key's, org's and the gateway's; " +
      "also as the x-gw-guardrails header. 400 guardrail_blocked when a blocking detector matches",
    oneOf: [
      { type: 'string', description: "'redact=aadhaar,pan;block=card;outputs', 'redact=india', 'off'" },
      { type: 'object', properties: { redact: { type: 'array', items: { type: 'string' } }, block: { type: 'array', items: { type: 'string' } },
        outputs: { type: 'boolean' } }, additionalProperties: false },
      { type: 'boolean', const: false },
    ],
  },
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

const AnthropicMessage = {
  type: 'object',
  required: ['id', 'type', 'role', 'model', 'content', 'stop_reason', 'stop_sequence', 'usage'],
  description: "Anthropic's `message` object, translated from the route's answer (docs/formats/messages.md)",
  properties: {
    id: { type: 'string', description: 'msg_…' },
    type: { const: 'message' },
    role: { const: 'assistant' },
    model: { type: 'string', description: 'the catalog id asked for' },
    content: {
      type: 'array',
      items: {
        oneOf: [
          { type: 'object', required: ['type', 'text'], properties: { type: { const: 'text' }, text: { type: 'string' } } },
          {
            type: 'object', required: ['type', 'id', 'name', 'input'],
            properties: { type: { const: 'tool_use' }, id: { type: 'string', description: 'toolu_…' }, name: { type: 'string' }, input: { type: 'object' } },
          },
        ],
      },
    },
    stop_reason: { type: ['string', 'null'], enum: ['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'refusal', null] },
    stop_sequence: { type: ['string', 'null'] },
    usage: {
      type: 'object',
      required: ['input_tokens', 'output_tokens'],
      description: "Anthropic's convention: input_tokens excludes the cache reads and writes counted beside it",
      properties: {
        input_tokens: { type: 'integer' },
        output_tokens: { type: 'integer' },
        cache_read_input_tokens: { type: 'integer' },
        cache_creation_input_tokens: { type: 'integer' },
      },
    },
  },
};

const ResponseUsage = {
  type: 'object',
  required: ['input_tokens', 'output_tokens', 'total_tokens', 'input_tokens_details', 'output_tokens_details'],
  properties: {
    input_tokens: { type: 'integer', description: 'all input tokens, cached ones included' },
    input_tokens_details: { type: 'object', properties: { cached_tokens: { type: 'integer' } } },
    output_tokens: { type: 'integer', description: 'all output tokens, reasoning included' },
    output_tokens_details: { type: 'object', properties: { reasoning_tokens: { type: 'integer' } } },
    total_tokens: { type: 'integer' },
  },
};

const ResponseObject = {
  type: 'object',
  required: ['id', 'object', 'created_at', 'status', 'model', 'output'],
  description: 'The OpenAI Responses API response object (docs/formats/responses.md)',
  properties: {
    id: { type: 'string', description: 'resp_…' },
    object: { type: 'string', const: 'response' },
    created_at: { type: 'integer' },
    status: { type: 'string', enum: ['completed', 'incomplete', 'failed', 'in_progress'] },
    error: { type: ['object', 'null'], properties: { code: { type: 'string' }, message: { type: 'string' } } },
    incomplete_details: { type: ['object', 'null'], properties: { reason: { type: 'string', enum: ['max_output_tokens', 'content_filter'] } } },
    instructions: { type: ['string', 'null'] },
    model: { type: 'string', description: 'the catalog id asked for' },
    output: {
      type: 'array',
      description: 'items: message (content output_text / refusal), function_call (call_id, name, arguments), reasoning',
      items: { type: 'object', required: ['type'], properties: { type: { type: 'string', enum: ['message', 'function_call', 'reasoning'] }, id: { type: 'string' } } },
    },
    previous_response_id: { type: ['string', 'null'] },
    store: { type: 'boolean' },
    metadata: { type: 'object', additionalProperties: { type: 'string' } },
    tools: { type: 'array', items: { type: 'object' } },
    usage: { oneOf: [ResponseUsage, { type: 'null' }] },
  },
  additionalProperties: true,
};

const ResponseEvent = {
  type: 'object',
  required: ['type', 'sequence_number'],
  description: 'one `event:`/`data:` pair of a streamed response',
  properties: {
    type: {
      type: 'string',
      enum: ['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added', 'response.output_text.delta',
        'response.output_text.done', 'response.content_part.done', 'response.reasoning_text.delta', 'response.reasoning_text.done',
        'response.function_call_arguments.delta', 'response.function_call_arguments.done', 'response.output_item.done',
        'response.completed', 'response.incomplete', 'error', 'response.failed'],
    },
    sequence_number: { type: 'integer' },
    response: REF('Response'),
  },
  additionalProperties: true,
};

const ResponsesRequest = {
  type: 'object',
  required: ['model'],
  description: 'The OpenAI Responses request, translated to chat completions for every provider (docs/formats/responses.md says what is not supported)',
  properties: {
    model: { type: 'string' },
    input: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'object', description: 'message (input_text, output_text, input_image parts), function_call, function_call_output' } }] },
    instructions: { type: ['string', 'null'] },
    previous_response_id: { type: ['string', 'null'], description: 'continue a stored response of this org' },
    store: { type: ['boolean', 'null'], description: 'default true: kept responses.retentionDays (30) days' },
    stream: { type: ['boolean', 'null'] },
    max_output_tokens: { type: ['integer', 'null'], minimum: 1 },
    temperature: { type: ['number', 'null'] },
    top_p: { type: ['number', 'null'] },
    tools: { type: 'array', items: { type: 'object', description: 'type function (name, description, parameters, strict); hosted tools are left out' } },
    tool_choice: { oneOf: [{ type: 'string', enum: ['auto', 'none', 'required'] }, { type: 'object' }] },
    parallel_tool_calls: { type: ['boolean', 'null'] },
    text: { type: 'object', properties: { format: { type: 'object', description: 'text, json_object, or json_schema (name, schema, strict)' } } },
    reasoning: { type: ['object', 'null'], properties: { effort: { type: 'string' } } },
    metadata: { type: ['object', 'null'], additionalProperties: { type: 'string' } },
    user: { type: 'string' },
    ...EXTENSIONS,
  },
  additionalProperties: true,
};

const ResponseDeleted = {
  type: 'object',
  required: ['id', 'object', 'deleted'],
  properties: { id: { type: 'string' }, object: { type: 'string', const: 'response.deleted' }, deleted: { type: 'boolean', const: true } },
};

/** Schemas the inference routes refer to, for components.schemas. */
export const INFERENCE_SCHEMAS: Record<string, unknown> = {
  ChatCompletionRequest: ChatRequest, ChatCompletion, ChatCompletionChunk, EmbeddingsRequest, Embeddings, Transcription,
  ResponsesRequest, Response: ResponseObject, ResponseStreamEvent: ResponseEvent, ResponseDeleted, AnthropicMessage,
};

/** A route's documented 200 answer content, by path; undefined for routes the table describes. */
export const INFERENCE_ANSWERS: Record<string, Record<string, unknown>> = {
  '/v1/chat/completions': {
    'application/json': { schema: REF('ChatCompletion') },
    'text/event-stream': { schema: { type: 'string', description: 'when stream is true: `data: {ChatCompletionChunk}` events, then `data: [DONE]`' }, 'x-gw-event': REF('ChatCompletionChunk') },
  },
  '/v1/embeddings': { 'application/json': { schema: REF('Embeddings') } },
  '/v1/messages': {
    'application/json': { schema: REF('AnthropicMessage') },
    'text/event-stream': {
      schema: {
        type: 'string',
        description: 'when stream is true, `event: <type>` + `data: {…}` events: message_start, content_block_start, content_block_delta ' +
          '(text_delta, input_json_delta), content_block_stop, message_delta (stop_reason, usage), message_stop; `event: error` if the stream breaks',
      },
    },
  },
  '/v1/messages/count_tokens': {
    'application/json': { schema: { type: 'object', required: ['input_tokens'], properties: { input_tokens: { type: 'integer', description: "the gateway's estimate" } } } },
  },
  '/v1/responses': {
    'application/json': { schema: REF('Response') },
    'text/event-stream': { schema: { type: 'string', description: 'when stream is true: `event: <type>` + `data: {ResponseStreamEvent}` pairs, ending with response.completed, response.incomplete or response.failed' }, 'x-gw-event': REF('ResponseStreamEvent') },
  },
  'get /v1/responses/:id': { 'application/json': { schema: REF('Response') } },
  'delete /v1/responses/:id': { 'application/json': { schema: REF('ResponseDeleted') } },
  '/v1/responses/:id/input_items': {
    'application/json': { schema: { type: 'object', required: ['object', 'data', 'has_more'], properties: {
      object: { const: 'list' }, data: { type: 'array', items: { type: 'object' } }, first_id: { type: ['string', 'null'] },
      last_id: { type: ['string', 'null'] }, has_more: { type: 'boolean' } } } },
  },
  '/v1/audio/transcriptions': { 'application/json': { schema: REF('Transcription') }, ...TEXT_FORMATS },
  '/v1/audio/translations': { 'application/json': { schema: REF('Transcription') }, ...TEXT_FORMATS },
  '/v1/audio/speech': { 'audio/mpeg': AUDIO, 'audio/opus': AUDIO, 'audio/aac': AUDIO, 'audio/flac': AUDIO, 'audio/wav': AUDIO, 'audio/pcm': AUDIO },
  '/mcp': { 'application/json': { schema: { type: 'object', required: ['jsonrpc'], description: 'a JSON-RPC 2.0 response', properties: { jsonrpc: { const: '2.0' } } } } },
};

/** Documented request bodies that replace the route table's (which checks only what the gateway reads). */
export const INFERENCE_REQUESTS: Record<string, Record<string, unknown>> = {
  '/v1/chat/completions': { 'application/json': { schema: REF('ChatCompletionRequest') } },
  '/v1/embeddings': { 'application/json': { schema: REF('EmbeddingsRequest') } },
  '/v1/responses': { 'application/json': { schema: REF('ResponsesRequest') } },
};

/** Extension fields for the request bodies the table does describe (speech JSON, upload forms). */
export const EXTENSION_PROPERTIES = EXTENSIONS;

/** OpenAI's operation names where the route is OpenAI's, so generated clients read alike. */
export const OPERATION_IDS: Record<string, string> = {
  'post /v1/chat/completions': 'createChatCompletion',
  'post /v1/embeddings': 'createEmbedding',
  'post /v1/messages': 'createMessage',
  'post /v1/messages/count_tokens': 'countMessageTokens',
  'post /v1/responses': 'createResponse',
  'get /v1/responses/:id': 'getResponse',
  'del /v1/responses/:id': 'deleteResponse',
  'get /v1/responses/:id/input_items': 'listInputItems',
  'post /v1/audio/transcriptions': 'createTranscription',
  'post /v1/audio/translations': 'createTranslation',
  'post /v1/audio/speech': 'createSpeech',
  'get /v1/models': 'listModels',
  'get /v1/models/:id': 'retrieveModel',
  'get /v1/models/:owner/:name': 'retrieveModelWithSlash',
};
