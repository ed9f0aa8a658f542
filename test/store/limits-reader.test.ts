// The durable figures the limits start from, over SQLite and over PostgreSQL: the same numbers from
// the same rows, and an org's balance read with the money-event mark it includes in one snapshot,
// also while credits commit beside the read.
import * as assert from 'uvu/assert';
import { bonusStands } from '../../src/control/billing/billing-rules.js';
import type { AsyncLimitsReader, LimitsReader } from '../../src/domain/limits-reader.js';
import { newId } from '../../src/lib/ids.js';
import { sqliteBillingStore } from '../../src/store/billing.js';
import { postgresBillingStore } from '../../src/store/postgres/pg-billing.js';
import { postgresLimitsReader } from '../../src/store/postgres/pg-limits-reader.js';
import { limitsReader } from '../../src/store/usage.js';
import { eachBackend } from '../support/store-backends.js';
import { exec, rows } from '../support/seed-sql.js';

const NOW = Date.UTC(2026, 5, 1, 6);

/** The SQLite reader behind the async interface, so one suite reads both. */
function async(r: LimitsReader): AsyncLimitsReader {
  return {
    keyDailyCount: async (...a) => r.keyDailyCount(...a),
    orgTrialDailyCount: async (...a) => r.orgTrialDailyCount(...a),
    monthlySpend: async (...a) => r.monthlySpend(...a),
    orgBalance: async (...a) => r.orgBalance(...a),
    workspaceBudget: async (...a) => r.workspaceBudget(...a),
    moneyEventsSince: async (...a) => r.moneyEventsSince(...a),
    latestMoneyEventId: async () => r.latestMoneyEventId(),
  };
}

eachBackend('limits reader', (test, be) => {
  let reader: AsyncLimitsReader;
  test.before(() => {
    reader = be().pick((db) => async(limitsReader(db)), postgresLimitsReader);
  });

  const key = async (orgId: string, workspaceId: string, tier: 'trial' | 'standard', revoked = false) => {
    const id = newId('key');
    await exec(be(), `INSERT INTO api_keys (id, org_id, workspace_id, name, hash, prefix, tier, created_at, revoked_at)
      VALUES (?, ?, ?, 'k', ?, 'gw-x', ?, ?, ?)`, id, orgId, workspaceId, newId('h'), tier, NOW, revoked ? NOW : null);
    return id;
  };
  const requests = (keyId: string, day: string, n: number) =>
    exec(be(), 'INSERT INTO key_daily_counts (key_id, ist_day, requests) VALUES (?, ?, ?)', keyId, day, n);
  const moneyEvent = (orgId: string, amount: number) => exec(be(), `INSERT INTO money_events (org_id, at, kind, amount_micros)
    VALUES (?, ?, 'operator_credit', ?)`, orgId, NOW, amount);

  test('key and trial daily counts, monthly spend and workspace budgets read as stored; absent rows read as zero or null', async () => {
    const { orgId, workspaceId } = await be().org('Figures');
    const trial = await key(orgId, workspaceId, 'trial');
    const revokedTrial = await key(orgId, workspaceId, 'trial', true);
    const standard = await key(orgId, workspaceId, 'standard');
    await requests(trial, '2026-06-01', 7);
    await requests(revokedTrial, '2026-06-01', 5);
    await requests(standard, '2026-06-01', 100);
    await requests(trial, '2026-05-31', 3);
    await exec(be(), 'INSERT INTO monthly_spend (scope_id, ist_month, spent_micros) VALUES (?, ?, ?)', workspaceId, '2026-06', 1_234_567);
    await exec(be(), 'UPDATE workspaces SET monthly_budget_micros = ? WHERE id = ?', 5_000_000, workspaceId);
    const archived = newId('ws');
    await exec(be(), `INSERT INTO workspaces (id, org_id, name, is_default, monthly_budget_micros, archived_at, created_at)
      VALUES (?, ?, 'gone', 0, 9, ?, ?)`, archived, orgId, NOW, NOW);

    assert.is(await reader.keyDailyCount(trial, '2026-06-01'), 7);
    assert.is(await reader.keyDailyCount(trial, '2026-06-02'), 0);
    assert.is(await reader.orgTrialDailyCount(orgId, '2026-06-01'), 12, 'a revoked trial key still counts; a standard one never');
    assert.is(await reader.orgTrialDailyCount(orgId, '2026-06-02'), 0);
    assert.is(await reader.monthlySpend(workspaceId, '2026-06'), 1_234_567);
    assert.is(await reader.monthlySpend(workspaceId, '2026-07'), 0);
    assert.is(await reader.workspaceBudget(workspaceId), 5_000_000);
    assert.is(await reader.workspaceBudget(archived), null);
    assert.is(await reader.workspaceBudget('ws_none'), null);
  });

  test('money events are read after a mark in id order; the balance comes with the mark it includes', async () => {
    const { orgId } = await be().org('Money');
    const mark = await reader.latestMoneyEventId();
    await moneyEvent(orgId, 10);
    await moneyEvent(orgId, -3);
    await exec(be(), 'UPDATE orgs SET balance_micros = 7 WHERE id = ?', orgId);
    const events = await reader.moneyEventsSince(mark);
    assert.equal(events.map((e) => [e.org_id, e.amount_micros]), [[orgId, 10], [orgId, -3]]);
    assert.ok(events[0].id > mark && events[1].id > events[0].id);
    assert.is(await reader.latestMoneyEventId(), events[1].id);
    assert.equal(await reader.orgBalance(orgId), { balanceMicros: 7, moneyEventId: events[1].id });
    assert.is(await reader.orgBalance('org_none'), null);
    assert.equal(await reader.moneyEventsSince(events[1].id), []);
  });

  test('a balance read while credits commit always equals the money events up to its mark', async () => {
    const { orgId } = await be().org('Snapshot');
    const billing = be().pick(sqliteBillingStore, postgresBillingStore);
    const orders: string[] = [];
    for (let i = 0; i < 30; i++) {
      const id = newId('order');
      orders.push(id);
      await billing.createOrder({
        id, orgId, createdBy: null, creditMicros: 1_000_000 + i, cgstMicros: 0, sgstMicros: 0, igstMicros: 0, totalMicros: 1_000_000 + i,
        placeOfSupply: '29', billTo: { name: 'A', line1: 'l', line2: null, city: 'c', stateCode: '29', pincode: '560001', gstin: null },
        promoCode: null, promoBonusMicros: 0, createdAt: NOW,
      });
    }
    let done = false;
    const credits = Promise.all(orders.map((id) => billing.creditOrder(id, { id: `pay_${id}`, method: null, via: 'webhook' }, NOW, bonusStands)))
      .finally(() => { done = true; });
    const seen: { balanceMicros: number; moneyEventId: number }[] = [];
    while (!done) {
      seen.push((await reader.orgBalance(orgId))!);
    }
    await credits;
    seen.push((await reader.orgBalance(orgId))!);
    const events = await rows<{ id: number; amount: number }>(be(), 'SELECT id, amount_micros AS amount FROM money_events WHERE org_id = ? ORDER BY id', orgId);
    for (const s of seen) {
      const sum = events.filter((e) => e.id <= s.moneyEventId).reduce((t, e) => t + e.amount, 0);
      assert.is(s.balanceMicros, sum, `balance ${s.balanceMicros} at mark ${s.moneyEventId}`);
    }
    assert.is(seen[seen.length - 1].balanceMicros, orders.reduce((t, _, i) => t + 1_000_000 + i, 0));
  });
});
