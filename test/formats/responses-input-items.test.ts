// Input items as a stored response keeps them: each given an id by its type's prefix where the
// client gave none, a message's string content as one text part.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { storedItems } from '../../src/formats/responses/input-items.js';

test('an item without an id gets one prefixed by its type; a type named like a member of every object gets the plain prefix', () => {
  const items = storedItems([
    { type: 'message', role: 'user', content: 'hi' },
    { type: 'function_call_output', call_id: 'c1', output: '1' },
    { type: 'constructor' },
    { type: 'toString' },
    { type: 'web_search_call', id: 'ws_1' },
  ]);
  assert.equal(items.map((it) => String(it.id).replace(/_[0-9a-f]{48}$/, '_…')), ['msg_…', 'fco_…', 'item_…', 'item_…', 'ws_1']);
  assert.equal(items[0].content, [{ type: 'input_text', text: 'hi' }]);
});

test.run();
