-- Claim the next planned game of a ladder (bummerl.ladder.service.LadderService.drive).
--
-- KEYS[1]  bm:ladder:<id>:pending  (list of game spec JSON, in play order)
-- KEYS[2]  bm:ladder:<id>:running  (hash: game number -> game spec JSON)
-- ARGV[1]  concurrency: games that may run at once
--
-- Returns the claimed spec, or false when the ladder is at its concurrency or has no game left.
-- Atomic: the game moves from pending to running in one step, so a process that dies after the
-- claim leaves the game in running (unassigned), where any process picks it up again.

if redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[1]) then
  return false
end
local spec = redis.call('LPOP', KEYS[1])
if not spec then
  return false
end
local game = cjson.decode(spec)
redis.call('HSET', KEYS[2], tostring(game['game']), spec)
return spec
