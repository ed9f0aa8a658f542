import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  IST_OFFSET_MS, istDay, istDayLabel, istDayNumber, istDayNumberStart, istDaysBetween, istDayStart, istMonth, nextIstMidnight, nextIstMonthStart, secondsUntil,
} from '../../src/lib/ist.js';

const at = (iso: string) => Date.parse(iso);

test('IST is a fixed +05:30 offset with no daylight saving in any season', () => {
  assert.is(IST_OFFSET_MS, 19_800_000);
  // 18:30 UTC is midnight IST in January and in July alike.
  assert.is(nextIstMidnight(at('2026-01-15T12:00:00Z')), at('2026-01-15T18:30:00Z'));
  assert.is(nextIstMidnight(at('2026-07-15T12:00:00Z')), at('2026-07-15T18:30:00Z'));
});

test('18:29:59.999Z is still the old IST day and 18:30:00.000Z is the next one', () => {
  assert.is(istDay(at('2026-11-14T18:29:59.999Z')), '2026-11-14');
  assert.is(istDay(at('2026-11-14T18:30:00.000Z')), '2026-11-15');
  // The UTC date changes five and a half hours later; the IST day does not.
  assert.is(istDay(at('2026-11-14T23:59:59.999Z')), '2026-11-15');
  assert.is(istDay(at('2026-11-15T00:00:00.000Z')), '2026-11-15');
});

test('the IST month turns at 18:30 UTC on the last day of the UTC month', () => {
  assert.is(istMonth(at('2026-11-30T18:29:59.999Z')), '2026-11');
  assert.is(istMonth(at('2026-11-30T18:30:00.000Z')), '2026-12');
  // A UTC instant still in November's last evening is already December in India.
  assert.is(istMonth(at('2026-11-30T20:00:00Z')), '2026-12');
});

test('the December to January boundary changes day, month and year together', () => {
  const before = at('2026-12-31T18:29:59.999Z');
  const after = at('2026-12-31T18:30:00.000Z');
  assert.is(istDay(before), '2026-12-31');
  assert.is(istMonth(before), '2026-12');
  assert.is(istDay(after), '2027-01-01');
  assert.is(istMonth(after), '2027-01');
  assert.is(nextIstMonthStart(before), after);
  assert.is(nextIstMidnight(before), after);
});

test('nextIstMidnight is strictly after the instant, even exactly at a midnight', () => {
  const midnight = at('2026-03-09T18:30:00.000Z');
  assert.is(nextIstMidnight(midnight - 1), midnight);
  assert.is(nextIstMidnight(midnight), midnight + 86_400_000);
  assert.is(nextIstMidnight(at('2026-03-09T00:00:00Z')), midnight, 'early UTC morning is mid-day IST');
  // Between 18:30 and 24:00 UTC the next IST midnight is on the next UTC date.
  assert.is(nextIstMidnight(at('2026-03-09T20:00:00Z')), at('2026-03-10T18:30:00Z'));
});

test('nextIstMonthStart handles 28, 29, 30 and 31 day months and is strictly after a month start', () => {
  assert.is(nextIstMonthStart(at('2026-02-10T00:00:00Z')), at('2026-02-28T18:30:00Z'));
  assert.is(nextIstMonthStart(at('2028-02-10T00:00:00Z')), at('2028-02-29T18:30:00Z'), 'leap February');
  assert.is(nextIstMonthStart(at('2026-04-30T18:29:59.999Z')), at('2026-04-30T18:30:00Z'));
  assert.is(nextIstMonthStart(at('2026-05-01T00:00:00Z')), at('2026-05-31T18:30:00Z'));
  const juneStart = at('2026-05-31T18:30:00.000Z');
  assert.is(nextIstMonthStart(juneStart), at('2026-06-30T18:30:00Z'));
  assert.is(nextIstMonthStart(juneStart - 1), juneStart);
});

test('istDayStart is the UTC instant of that IST midnight and inverts istDay', () => {
  assert.is(istDayStart('2027-01-01'), at('2026-12-31T18:30:00Z'));
  for (const day of ['2026-01-01', '2026-02-28', '2028-02-29', '2026-12-31']) {
    const start = istDayStart(day);
    assert.is(istDay(start), day);
    assert.is(istDay(start - 1) < day, true, `the millisecond before ${day} is the day before`);
    assert.is(nextIstMidnight(start - 1), start);
  }
});

test('secondsUntil rounds up to whole seconds and is never below 1', () => {
  const now = at('2026-06-01T00:00:00Z');
  assert.is(secondsUntil(now, now + 1), 1);
  assert.is(secondsUntil(now, now + 1000), 1);
  assert.is(secondsUntil(now, now + 1001), 2);
  assert.is(secondsUntil(now, now + 59_999), 60);
  assert.is(secondsUntil(now, now), 1);
  assert.is(secondsUntil(now, now - 5000), 1, 'a moment already past still tells the client to wait a second');
  // From 23:59:58.5 IST to midnight: 1.5 s, so 2.
  assert.is(secondsUntil(at('2026-11-30T18:29:58.500Z'), nextIstMidnight(at('2026-11-30T18:29:58.500Z'))), 2);
});

test('IST day numbers turn at 18:30 UTC, and each names its day and the instant it begins', () => {
  const midnight = Date.parse('2025-03-01T18:30:00.000Z');
  assert.is(istDayLabel(istDayNumber(midnight - 1)), '2025-03-01');
  assert.is(istDayLabel(istDayNumber(midnight)), '2025-03-02');
  assert.is(istDayLabel(istDayNumber(istDayStart('2025-03-02'))), '2025-03-02');
  assert.is(istDayNumberStart(istDayNumber(midnight + 3_600_000)), midnight);
  assert.is(istDayNumberStart(istDayNumber(midnight - 1)), istDayStart('2025-03-01'));
});

test('the IST days between two instants include both ends\' days', () => {
  assert.equal(istDaysBetween(at('2025-03-01T18:29:00Z'), at('2025-03-03T18:30:00Z')), ['2025-03-01', '2025-03-02', '2025-03-03', '2025-03-04']);
  assert.equal(istDaysBetween(at('2025-03-01T19:00:00Z'), at('2025-03-01T20:00:00Z')), ['2025-03-02']);
});

test.run();
