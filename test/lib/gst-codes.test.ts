import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GST_STATES, gstinValid, stateCodeOf } from '../../src/lib/gst-codes.js';

test('states are found by GST code, name, case, & and old spellings', () => {
  assert.is(stateCodeOf('29'), '29');
  assert.is(stateCodeOf('Karnataka'), '29');
  assert.is(stateCodeOf('  tamil NADU '), '33');
  assert.is(stateCodeOf('Jammu & Kashmir'), '01');
  assert.is(stateCodeOf('Orissa'), '21');
  assert.is(stateCodeOf('Pondicherry'), '34');
  assert.is(stateCodeOf('Andaman & Nicobar Islands'), '35');
  assert.is(stateCodeOf('Daman and Diu'), '26');
  for (const bad of ['28', '25', '99', 'KA', 'Atlantis', '']) assert.is(stateCodeOf(bad), null, bad);
  assert.is(GST_STATES.size, 36);
});

test('GSTINs: shape and check character', () => {
  assert.ok(gstinValid('27AAPFU0939F1ZV'));
  assert.ok(gstinValid('29AAGCB7383J1Z4'));
  assert.not.ok(gstinValid('27AAPFU0939F1ZW'), 'wrong check character');
  assert.not.ok(gstinValid('27aapfu0939f1zv'), 'lower case is normalised by the caller');
  assert.not.ok(gstinValid('27AAPFU0939F1Z'), 'short');
  assert.not.ok(gstinValid('27AAPF10939F1ZV'), 'PAN shape');
});

test.run();
