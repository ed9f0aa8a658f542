import type { Behavior } from '../test/support/mock-provider.js';
import type { ChildServer } from './child-server.js';

/** Sets what the OpenAI-shaped mock (mock-server.ts) answers by default, once it says it has. */
export async function setMockDefault(mock: ChildServer, behavior: Behavior): Promise<void> {
  const ack = mock.waitForLine((line) => line.includes('"default"'), 5000);
  mock.send({ default: behavior });
  await ack;
}
