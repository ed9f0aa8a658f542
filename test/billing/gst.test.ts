import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GST_STATES, gstinValid, stateCodeOf, topupTax } from '../../src/billing/gst.js';

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

test('18% GST on whole rupees is exact: CGST+SGST within the state, IGST across', () => {
  for (let inr = 100; inr <= 1000; inr++) {
    const credit = inr * 1_000_000;
    const local = topupTax(credit, '29', '29');
    const away = topupTax(credit, '27', '29');
    assert.ok(Number.isInteger(local.cgstMicros / 10_000) && Number.isInteger(away.igstMicros / 10_000), `${inr}: whole paise`);
    assert.is(local.cgstMicros, local.sgstMicros);
    assert.is(local.igstMicros, 0);
    assert.equal([away.cgstMicros, away.sgstMicros], [0, 0]);
    assert.is(local.totalMicros, inr * 1_180_000);
    assert.is(away.totalMicros, inr * 1_180_000);
  }
  assert.equal(topupTax(137_000_000, '29', '29'), { cgstMicros: 12_330_000, sgstMicros: 12_330_000, igstMicros: 0, totalMicros: 161_660_000 });
});

test.run();
