/**
 * The Lua of local leases (lease-keeper.ts): an instance takes a slice of a key's rolling minute,
 * day count and money in one script, admits from it without a round trip, and gives back what it
 * did not use. Same keys and seeding as redis-limits-scripts.ts; a lease's money is one hold
 * (member id 'L:<instance>:<key>') that grows when the lease is refilled and shrinks as its
 * requests' costs are added to spend, so the other instances always see it counted.
 */
import { LIB, OK, SEED } from './redis-limits-scripts.js';

/** Grows (or makes) the hold `id` by amt micros and pushes its expiry out. */
const GROW = `
local function holdAmount(hh, id)
  local v = redis.call('HGET', hh, 'h:' .. id)
  return v and tonumber(string.match(v, '^(%d+)|')) or 0
end

local function setHold(hz, hh, expiry, id, amt, keyId, wsId)
  if amt <= 0 then
    redis.call('HDEL', hh, 'h:' .. id)
    redis.call('ZREM', hz, id)
    return
  end
  redis.call('ZADD', hz, expiry, id)
  redis.call('HSET', hh, 'h:' .. id, string.format('%d', amt) .. '|' .. keyId .. '|' .. wsId)
end

local function addHeld(hh, d, keyId, wsId)
  for _, f in ipairs({'o', 'k:' .. keyId, 'w:' .. wsId}) do
    if redis.call('HINCRBY', hh, f, d) == 0 then redis.call('HDEL', hh, f) end
  end
end
`;

/**
 * Claim. KEYS as ENTER_STANDARD: 1 minute, 2 day count, 3 balance, 4 key month spend, 5 holds
 * zset, 6 holds hash, 7 workspace budget, 8 workspace month spend.
 * ARGV: 1 now, 2 slot batch id, 3 slots wanted, 4 the slots' score, 5 rpm, 6 daily (-1 none),
 * 7 key budget (-1 none), 8 key id, 9 workspace id, 10 minute ttl ms, 11 micros wanted,
 * 12 fewest micros worth holding, 13 hold id, 14 hold expiry.
 *
 * Slots are granted only while the minute stays at or below half its limit (past that, every
 * decision is a round trip and retry-after stays exact) and never past the day's limit; each is a
 * member '<batch>:<i>' scored at the end of the lease period, so it counts in the window for a
 * full minute after any moment it may be used. Money is granted only as far as balance and both
 * budgets have it free, never below the one request the claim is for: what a lease admits always
 * fits in what it holds. Answers {OK, slots granted, micros granted, the hold's micros now}
 * (a hold that lapsed while its instance was away is counted afresh).
 */
export const LEASE_CLAIM = `${LIB}${GROW}
local now = tonumber(ARGV[1])
local need = missing({2, 3, 4, 7, 8})
if #need > 0 then return {${SEED}, need} end
local slots = tonumber(ARGV[3])
if slots > 0 then
  slots = math.min(slots, math.floor(tonumber(ARGV[5]) / 2) - windowCount(KEYS[1], now))
  local daily = tonumber(ARGV[6])
  if daily >= 0 then slots = math.min(slots, daily - num(KEYS[2])) end
  if slots > 0 then
    for i = 0, slots - 1 do redis.call('ZADD', KEYS[1], ARGV[4], ARGV[2] .. ':' .. i) end
    redis.call('PEXPIRE', KEYS[1], ARGV[10])
    redis.call('INCRBY', KEYS[2], slots)
  else
    slots = 0
  end
end
local grant = tonumber(ARGV[11])
if grant > 0 then
  purge(KEYS[5], KEYS[6], now)
  local free = tonumber(redis.call('HGET', KEYS[3], 'b')) - held(KEYS[6], 'o')
  local kb = tonumber(ARGV[7])
  if kb >= 0 then free = math.min(free, kb - num(KEYS[4]) - held(KEYS[6], 'k:' .. ARGV[8])) end
  local wb = redis.call('GET', KEYS[7])
  if wb ~= 'n' then free = math.min(free, tonumber(wb) - num(KEYS[8]) - held(KEYS[6], 'w:' .. ARGV[9])) end
  -- Whole requests only: a remainder no request of this size could use stays free for the others.
  local fewest = tonumber(ARGV[12])
  grant = math.floor(math.min(grant, free) / fewest) * fewest
  if grant >= fewest then
    setHold(KEYS[5], KEYS[6], ARGV[14], ARGV[13], holdAmount(KEYS[6], ARGV[13]) + grant, ARGV[8], ARGV[9])
    addHeld(KEYS[6], grant, ARGV[8], ARGV[9])
  else
    grant = 0
  end
end
return {${OK}, slots, grant, holdAmount(KEYS[6], ARGV[13])}
`;

/**
 * Spend: the costs of requests a lease admitted, added to balance and spend, and taken off the
 * lease's hold in the same step (the money moves from held to spent, never counted twice or not
 * at all). KEYS as SETTLE: 1 balance, 2 key month spend, 3 holds zset, 4 holds hash, 5 workspace
 * month spend. ARGV: 1 hold id, 2 cost, 3 key id, 4 workspace id, 5 the most the hold may keep
 * afterwards (-1: no cap; a lease given back keeps only its requests still in flight), 6 expiry.
 * Answers {OK, the hold's micros now}.
 */
export const LEASE_SPEND = `${LIB}${GROW}
local cost = tonumber(ARGV[2])
if cost > 0 then
  local need = missing({1, 2, 5})
  if #need > 0 then return {${SEED}, need} end
  redis.call('HINCRBY', KEYS[1], 'b', -cost)
  redis.call('INCRBY', KEYS[2], cost)
  redis.call('INCRBY', KEYS[5], cost)
end
local have = holdAmount(KEYS[4], ARGV[1])
if have > 0 then
  local left = math.max(0, have - cost)
  local keep = tonumber(ARGV[5])
  if keep >= 0 and keep < left then left = keep end
  setHold(KEYS[3], KEYS[4], ARGV[6], ARGV[1], left, ARGV[3], ARGV[4])
  if have > left then addHeld(KEYS[4], left - have, ARGV[3], ARGV[4]) end
  return {${OK}, left}
end
return {${OK}, 0}
`;

/** Slots a lease did not use, given back. KEYS: 1 minute, 2 day count. ARGV: batch id, first unused, end. */
export const LEASE_RETURN = `
local from = tonumber(ARGV[2])
local to = tonumber(ARGV[3])
for i = from, to - 1 do redis.call('ZREM', KEYS[1], ARGV[1] .. ':' .. i) end
if to > from and redis.call('EXISTS', KEYS[2]) == 1 then redis.call('DECRBY', KEYS[2], to - from) end
return {${OK}}
`;
