// The guardrail policy's text and object forms (x-gw-guardrails, the body extension, /me settings).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parsePolicyText, parsePolicyValue } from '../../src/lib/guardrail-policy.js';

test('detector names and groups expand in the catalog\'s order; block wins over redact', () => {
  const p = parsePolicyText('redact=india,email; block=pan; outputs');
  assert.equal(p.policy && [p.policy.redact, p.policy.block, p.policy.outputs, p.policy.text],
    [['aadhaar', 'gstin', 'upi', 'ifsc', 'mobile', 'email'], ['pan'], true, 'redact=aadhaar,gstin,upi,ifsc,mobile,email;block=pan;outputs']);
  assert.equal(parsePolicyValue({ block: ['secrets'] }).policy?.block, ['secret']);
});

test('a name like a member of every object ("constructor") is an unknown detector, a clear error, not a crash', () => {
  for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
    const text = parsePolicyText(`block=${name}`);
    assert.is(text.policy, null, name);
    assert.match(String(text.error), `unknown detector '${name}'`);
    assert.is(parsePolicyValue({ redact: [name] }).policy, null, name);
  }
});

test.run();
