import { errors } from '../../errors/catalog.js';

export type Block = Record<string, unknown>;

// data:<media type>;base64,<data>
const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

/**
 * One message's OpenAI `content` (a string, or text and image parts) → Anthropic content blocks.
 * Empty text is left out: Anthropic refuses empty text blocks. A part's `cache_control` (prompt
 * caching, as Anthropic-aware OpenAI clients send it) goes on with the block it marks.
 */
export function contentBlocks(content: unknown, where: string): Block[] {
  if (content === null || content === undefined) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content)) throw errors.badRequest(`Invalid '${where}.content': expected a string or an array of content parts`);
  const out: Block[] = [];
  for (let i = 0; i < content.length; i++) {
    const block = partBlock(content[i], `${where}.content[${i}]`);
    if (block !== null) out.push(block);
  }
  return out;
}

function partBlock(part: unknown, where: string): Block | null {
  if (typeof part !== 'object' || part === null) throw errors.badRequest(`Invalid '${where}': expected a content part object`);
  const p = part as Record<string, unknown>;
  let block: Block;
  switch (p.type) {
    case 'text':
    case 'refusal': {
      const text = p.type === 'text' ? p.text : p.refusal;
      if (typeof text !== 'string') throw errors.badRequest(`Invalid '${where}.${p.type}': expected a string`);
      if (text === '') return null;
      block = { type: 'text', text };
      break;
    }
    case 'image_url':
      block = { type: 'image', source: imageSource(p.image_url, where) };
      break;
    default:
      throw errors.badRequest(`Invalid '${where}.type': Anthropic models take text and image_url parts, not '${String(p.type)}'`);
  }
  if (p.cache_control !== undefined) block.cache_control = p.cache_control;
  return block;
}

function imageSource(image: unknown, where: string): Block {
  const url = typeof image === 'string' ? image : (image as { url?: unknown } | null)?.url;
  if (typeof url !== 'string' || url === '') throw errors.badRequest(`Invalid '${where}.image_url.url': expected a URL or a base64 data URL`);
  if (url.startsWith('data:')) {
    const m = DATA_URL.exec(url);
    if (m === null) throw errors.badRequest(`Invalid '${where}.image_url.url': a data URL must be base64 (data:<type>;base64,…)`);
    return { type: 'base64', media_type: m[1], data: m[2] };
  }
  return { type: 'url', url };
}

/** The text of a system message, or of a tool result, as blocks (they take text only). */
export function textBlocks(content: unknown, where: string): Block[] {
  const blocks = contentBlocks(content, where);
  for (const b of blocks) {
    if (b.type !== 'text') throw errors.badRequest(`Invalid '${where}.content': only text is accepted here`);
  }
  return blocks;
}
