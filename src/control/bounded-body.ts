import type { Response } from 'undici';

/**
 * Reads an outside service's answer up to `maxBytes`: a declared length over the limit is refused
 * unread, and a body that grows past it stops being read (its stream is cancelled), so a broken
 * or hostile server cannot make the gateway hold more than the limit.
 */
export async function readBounded(res: Response, maxBytes: number): Promise<Buffer> {
  const declared = Number(res.headers.get('content-length') ?? 0);
  if (declared > maxBytes) {
    await res.body?.cancel();
    throw new Error(`answer larger than ${maxBytes} bytes`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const c of res.body ?? []) {
    size += c.length;
    if (size > maxBytes) throw new Error(`answer larger than ${maxBytes} bytes`);
    chunks.push(c);
  }
  return Buffer.concat(chunks);
}
