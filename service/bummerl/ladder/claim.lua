-- Claim the next planned game of a ladder (bummerl.ladder.driver.Scheduler.drive).
--
-- KEYS[1]  bm:ladder:{<id>}:pending  (list of game spec JSON, in play order)
-- KEYS[2]  bm:ladder:{<id>}:running  (hash: game number -> game spec JSON)
-- ARGV[1]  concurrency: games that may run at once
-- ARGV[2]  now, ms since the epoch (the claim's time: another process takes an unstarted claim
--          over only after the claim lease, driver.CLAIM_LEASE_MS)
-- ARGV[3]  how many pending games to look at: the first of them whose duplicate set ("pair") has
--          no game running is claimed
--
-- Returns the claimed spec (with "claimed_ms"), or false when the ladder is at its concurrency, has
-- no game left, or every game in the window belongs to a set with a leg running. Two legs of one
-- duplicate set never run at once (issue 38: a bot would hold its opponent's hand of one leg as
-- its own in the other). Atomic: the game moves from pending to running in one step, so a process
-- that dies after the claim leaves the game in running (unassigned), where another process starts
-- it once the lease has passed.

if redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[1]) then
  return false
end
local busy = {}
for _, raw in ipairs(redis.call('HVALS', KEYS[2])) do
  busy[tostring(cjson.decode(raw)['pair'])] = true
end
for _, spec in ipairs(redis.call('LRANGE', KEYS[1], 0, tonumber(ARGV[3]) - 1)) do
  local game = cjson.decode(spec)
  if not busy[tostring(game['pair'])] then
    redis.call('LREM', KEYS[1], 1, spec)
    -- the claim time is appended to the spec's text: re-encoding it with cjson would turn its 63-bit
    -- seed into a float (14 digits) and an empty suit_perm list into an object
    local claimed = string.sub(spec, 1, -2) .. ',"claimed_ms":' .. ARGV[2] .. '}'
    redis.call('HSET', KEYS[2], tostring(game['game']), claimed)
    return claimed
  end
end
return false
