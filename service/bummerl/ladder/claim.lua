-- Claim the next planned game of a ladder (bummerl.ladder.service.LadderService.drive).
--
-- KEYS[1]  bm:ladder:{<id>}:pending  (list of game spec JSON, in play order)
-- KEYS[2]  bm:ladder:{<id>}:running  (hash: game number -> game spec JSON)
-- ARGV[1]  concurrency: games that may run at once
-- ARGV[2]  now, ms since the epoch (the claim's time: another process takes an unstarted claim
--          over only after the claim lease, LadderService.CLAIM_LEASE_MS)
--
-- Returns the claimed spec (with "claimed_ms"), or false when the ladder is at its concurrency or
-- has no game left. Atomic: the game moves from pending to running in one step, so a process that
-- dies after the claim leaves the game in running (unassigned), where another process starts it
-- once the lease has passed.

if redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[1]) then
  return false
end
local spec = redis.call('LPOP', KEYS[1])
if not spec then
  return false
end
local game = cjson.decode(spec)
-- the claim time is appended to the spec's text: re-encoding it with cjson would turn its 63-bit
-- seed into a float (14 digits) and an empty suit_perm list into an object
local claimed = string.sub(spec, 1, -2) .. ',"claimed_ms":' .. ARGV[2] .. '}'
redis.call('HSET', KEYS[2], tostring(game['game']), claimed)
return claimed
