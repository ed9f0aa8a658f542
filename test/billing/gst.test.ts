import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { topupTax } from '../../src/billing/gst.js';

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
