/**
 * The Lua run by RedisLimitsGate: each decision is one script, so it is atomic across every
 * gateway instance on the Redis server (Redis runs one script at a time).
 *
 * Keys (prefix P): P m:<key> and P tm:<org> rolling-minute sorted sets (score = admission time
 * in ms, member = ticket id); P d:<key>:<day> and P td:<org>:<day> IST-day counts; P s:<scope>:<month>
 * monthly spend of a key or workspace; P wb:<workspace> its budget ('n' for none); P b:<org> the
 * balance hash {b = micros, e = the money-event id its seed included}; P me:<org> money events
 * applied (event id -> micros); P h:<org> holds by expiry and P ha:<org> hold amounts plus the
 * running totals 'o' (org), 'k:<key>' and 'w:<workspace>'.
 *
 * A counter Redis does not have (first sight, a new day or month, Redis lost its data) is never
 * created by an increment: a script that needs one changes nothing and answers
 * {SEED, indices of the KEYS missing}, the gate reads the figures from the database and sets them
 * only if still absent (seed.lua), then runs the script again.
 */

/** Answers, first element of the reply. */
export const OK = 0;
export const SEED = 1;
export const RPM = 2;
export const DAILY = 3;
export const TRIAL_RPM_HIT = 4;
export const TRIAL_DAILY_HIT = 5;
export const CREDITS = 6;
export const KEY_BUDGET = 7;
export const WS_BUDGET = 8;

/** Shared functions, prefixed to each script (and to the lease scripts, redis-lease-scripts.ts). */
export const LIB = `
local function missing(idx)
  local out = {}
  for _, i in ipairs(idx) do
    if redis.call('EXISTS', KEYS[i]) == 0 then out[#out + 1] = i end
  end
  return out
end

-- Expired holds (a crashed or partitioned instance's) stop counting.
local function purge(hz, hh, now)
  local gone = redis.call('ZRANGEBYSCORE', hz, '-inf', now, 'LIMIT', 0, 200)
  for _, id in ipairs(gone) do
    local v = redis.call('HGET', hh, 'h:' .. id)
    if v then
      local amt, k, w = string.match(v, '^(%d+)|([^|]*)|(.*)$')
      amt = tonumber(amt)
      if redis.call('HINCRBY', hh, 'o', -amt) == 0 then redis.call('HDEL', hh, 'o') end
      if redis.call('HINCRBY', hh, 'k:' .. k, -amt) == 0 then redis.call('HDEL', hh, 'k:' .. k) end
      if redis.call('HINCRBY', hh, 'w:' .. w, -amt) == 0 then redis.call('HDEL', hh, 'w:' .. w) end
      redis.call('HDEL', hh, 'h:' .. id)
    end
    redis.call('ZREM', hz, id)
  end
end

local function hold(hz, hh, expiry, id, amt, keyId, wsId)
  redis.call('ZADD', hz, expiry, id)
  redis.call('HSET', hh, 'h:' .. id, amt .. '|' .. keyId .. '|' .. wsId)
  redis.call('HINCRBY', hh, 'o', amt)
  redis.call('HINCRBY', hh, 'k:' .. keyId, amt)
  redis.call('HINCRBY', hh, 'w:' .. wsId, amt)
end

local function num(key)
  return tonumber(redis.call('GET', key) or '0')
end

local function held(hh, field)
  return tonumber(redis.call('HGET', hh, field) or '0')
end

-- The rolling minute, as LimitsGate's one-second buckets count it: an admission made in second s
-- counts until second s + 60, so retry-after matches the in-process gate to the second.
local function windowCount(z, now)
  local sec = math.floor(now / 1000)
  redis.call('ZREMRANGEBYSCORE', z, '-inf', '(' .. ((sec - 59) * 1000))
  return redis.call('ZCARD', z)
end

local function retryMs(z, count, limit, now)
  local oldest = redis.call('ZRANGE', z, count - limit, count - limit, 'WITHSCORES')
  local leaves = (math.floor(tonumber(oldest[2]) / 1000) + 60) * 1000
  return leaves - now
end

-- Balance, key budget and workspace budget against spend plus holds; 0 when all pass.
-- K: balance, key spend, holds hash, workspace budget, workspace spend (KEYS indices).
local function money(K, keyId, wsId, keyBudget)
  local bal = tonumber(redis.call('HGET', KEYS[K[1]], 'b'))
  if bal - held(KEYS[K[3]], 'o') <= 0 then return ${CREDITS} end
  if keyBudget >= 0 and num(KEYS[K[2]]) + held(KEYS[K[3]], 'k:' .. keyId) >= keyBudget then return ${KEY_BUDGET} end
  local wb = redis.call('GET', KEYS[K[4]])
  if wb ~= 'n' and num(KEYS[K[5]]) + held(KEYS[K[3]], 'w:' .. wsId) >= tonumber(wb) then return ${WS_BUDGET} end
  return 0
end
`;

/**
 * enter, standard key. KEYS: 1 minute, 2 day count, 3 balance, 4 key month spend, 5 holds zset,
 * 6 holds hash, 7 workspace budget, 8 workspace month spend.
 * ARGV: now, ticket id, rpm, daily (-1 none), key budget (-1 none), key id, workspace id, minute ttl ms,
 * and, to admit in the same decision, the micros to hold (0: none) and the hold's expiry.
 * Counts the request in the minute and for the day (the day count is taken back if the request
 * is never admitted), so two instances cannot both pass the last slot.
 */
export const ENTER_STANDARD = `${LIB}
local now = tonumber(ARGV[1])
local need = missing({2, 3, 4, 7, 8})
if #need > 0 then return {${SEED}, need} end
local rpm = tonumber(ARGV[3])
local count = windowCount(KEYS[1], now)
if count >= rpm then return {${RPM}, retryMs(KEYS[1], count, rpm, now)} end
local daily = tonumber(ARGV[4])
if daily >= 0 and num(KEYS[2]) >= daily then return {${DAILY}} end
purge(KEYS[5], KEYS[6], now)
local m = money({3, 4, 6, 7, 8}, ARGV[6], ARGV[7], tonumber(ARGV[5]))
if m ~= 0 then return {m} end
redis.call('ZADD', KEYS[1], now, ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[8])
redis.call('INCR', KEYS[2])
local amt = tonumber(ARGV[9] or '0')
if amt > 0 then hold(KEYS[5], KEYS[6], ARGV[10], ARGV[2], amt, ARGV[6], ARGV[7]) end
return {${OK}}
`;

/**
 * enter, trial key. KEYS: 1 minute, 2 day count, 3 org trial minute, 4 org trial day count.
 * ARGV: now, ticket id, rpm, daily, trial rpm, trial daily, minute ttl ms.
 */
export const ENTER_TRIAL = `${LIB}
local now = tonumber(ARGV[1])
local need = missing({2, 4})
if #need > 0 then return {${SEED}, need} end
local rpm = tonumber(ARGV[3])
local count = windowCount(KEYS[1], now)
if count >= rpm then return {${RPM}, retryMs(KEYS[1], count, rpm, now)} end
if num(KEYS[2]) >= tonumber(ARGV[4]) then return {${DAILY}} end
local trpm = tonumber(ARGV[5])
local tcount = windowCount(KEYS[3], now)
if tcount >= trpm then return {${TRIAL_RPM_HIT}, retryMs(KEYS[3], tcount, trpm, now)} end
if num(KEYS[4]) >= tonumber(ARGV[6]) then return {${TRIAL_DAILY_HIT}} end
redis.call('ZADD', KEYS[1], now, ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[7])
redis.call('ZADD', KEYS[3], now, ARGV[2])
redis.call('PEXPIRE', KEYS[3], ARGV[7])
redis.call('INCR', KEYS[2])
redis.call('INCR', KEYS[4])
return {${OK}}
`;

/**
 * admit, standard key with a cost to hold. KEYS: 1 balance, 2 key month spend, 3 holds zset,
 * 4 holds hash, 5 workspace budget, 6 workspace month spend, 7 minute, 8 day count.
 * ARGV: now, ticket id, micros, hold expiry (ms), key id, workspace id, key budget (-1 none).
 * Money is checked again with the hold: requests that entered together cannot all take the last
 * of a balance. A refusal takes the request back out of the minute and the day, as if refused at enter.
 */
export const ADMIT = `${LIB}
local now = tonumber(ARGV[1])
local need = missing({1, 2, 5, 6})
if #need > 0 then return {${SEED}, need} end
purge(KEYS[3], KEYS[4], now)
local m = money({1, 2, 4, 5, 6}, ARGV[5], ARGV[6], tonumber(ARGV[7]))
if m ~= 0 then
  redis.call('ZREM', KEYS[7], ARGV[2])
  if redis.call('EXISTS', KEYS[8]) == 1 then redis.call('DECR', KEYS[8]) end
  return {m}
end
hold(KEYS[3], KEYS[4], ARGV[4], ARGV[2], tonumber(ARGV[3]), ARGV[5], ARGV[6])
return {${OK}}
`;

/**
 * settle, standard key. KEYS: 1 balance, 2 key month spend, 3 holds zset, 4 holds hash,
 * 5 workspace month spend. ARGV: ticket id ('' when nothing was held), cost, key id, workspace id,
 * '1' to add the cost only to figures Redis still has (a cost served on local limits during an
 * outage: if Redis lost its data, the figures it seeds again come from the ledger, which has it).
 * Releasing a hold that has expired (and was purged) releases nothing: never twice.
 */
export const SETTLE = `${LIB}
local cost = tonumber(ARGV[2])
if ARGV[5] == '1' then
  if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HINCRBY', KEYS[1], 'b', -cost) end
  if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('INCRBY', KEYS[2], cost) end
  if redis.call('EXISTS', KEYS[5]) == 1 then redis.call('INCRBY', KEYS[5], cost) end
  return {${OK}}
end
if cost > 0 then
  local need = missing({1, 2, 5})
  if #need > 0 then return {${SEED}, need} end
end
if ARGV[1] ~= '' then
  local v = redis.call('HGET', KEYS[4], 'h:' .. ARGV[1])
  if v then
    local amt = tonumber(string.match(v, '^(%d+)|'))
    if redis.call('HINCRBY', KEYS[4], 'o', -amt) == 0 then redis.call('HDEL', KEYS[4], 'o') end
    if redis.call('HINCRBY', KEYS[4], 'k:' .. ARGV[3], -amt) == 0 then redis.call('HDEL', KEYS[4], 'k:' .. ARGV[3]) end
    if redis.call('HINCRBY', KEYS[4], 'w:' .. ARGV[4], -amt) == 0 then redis.call('HDEL', KEYS[4], 'w:' .. ARGV[4]) end
    redis.call('HDEL', KEYS[4], 'h:' .. ARGV[1])
    redis.call('ZREM', KEYS[3], ARGV[1])
  end
end
if cost > 0 then
  redis.call('HINCRBY', KEYS[1], 'b', -cost)
  redis.call('INCRBY', KEYS[2], cost)
  redis.call('INCRBY', KEYS[5], cost)
end
return {${OK}}
`;

/** A request that entered but was never admitted: its day counts (KEYS) are taken back. */
export const UNCOUNT = `
for _, k in ipairs(KEYS) do
  if redis.call('EXISTS', k) == 1 then redis.call('DECR', k) end
end
return {${OK}}
`;

/**
 * Seeds. ARGV[1] = n: KEYS 1..n are counters or budgets set only if absent, from the ARGV pairs
 * (value, ttl ms; 0 = none) that follow. KEYS n+1 and n+2, when given, are a balance and its
 * money-event log, and the last two ARGV the balance and the money-event id it includes: events
 * logged after that id (applied while the balance was absent) are added to it.
 */
export const SEED_IF_ABSENT = `
local n = tonumber(ARGV[1])
for i = 1, n do
  local ttl = tonumber(ARGV[i * 2 + 1])
  if ttl > 0 then
    redis.call('SET', KEYS[i], ARGV[i * 2], 'NX', 'PX', ttl)
  else
    redis.call('SET', KEYS[i], ARGV[i * 2], 'NX')
  end
end
if #KEYS > n and redis.call('EXISTS', KEYS[n + 1]) == 0 then
  local b = tonumber(ARGV[n * 2 + 2])
  local e = tonumber(ARGV[n * 2 + 3])
  local log = redis.call('HGETALL', KEYS[n + 2])
  for i = 1, #log, 2 do
    if tonumber(log[i]) > e then b = b + tonumber(log[i + 1]) end
  end
  redis.call('HSET', KEYS[n + 1], 'b', b, 'e', e)
end
return {${OK}}
`;

/**
 * A credit or payment (money event). KEYS: 1 balance, 2 money-event log. ARGV: event id, micros,
 * log ttl ms. Applied once per event id whichever instances deliver it, and not at all to a
 * balance whose seed already included it. Answers 1 when this call applied it, 0 otherwise.
 */
export const MONEY_EVENT = `
if redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('PEXPIRE', KEYS[2], ARGV[3])
local e = redis.call('HGET', KEYS[1], 'e')
if e and tonumber(ARGV[1]) > tonumber(e) then
  redis.call('HINCRBY', KEYS[1], 'b', ARGV[2])
  return 1
end
return e and 0 or 1
`;
