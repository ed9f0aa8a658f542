import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../support/gateway-process.js';

/** A golden fixture of test/fixtures/messages/. */
export function fixture(name: string): any {
  return JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'messages', `${name}.json`), 'utf8'));
}

/** Anthropic SSE text → its events, message_start's random id replaced by msg_ID. */
export function events(sse: string): { event: string; data: any }[] {
  return sse.split('\n\n').filter((e) => e.length > 0).map((e) => {
    const [head, body] = e.split('\n');
    const data = JSON.parse(body.slice('data: '.length));
    if (data.type === 'message_start') data.message.id = data.message.id.startsWith('msg_') ? 'msg_ID' : data.message.id;
    return { event: head.slice('event: '.length), data };
  });
}
