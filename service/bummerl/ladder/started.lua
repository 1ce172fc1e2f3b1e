-- Mark a claimed game as started, once (bummerl.ladder.service.LadderService._start).
--
-- KEYS[1]  bm:ladder:{<id>}:running  (hash: game number -> game spec JSON)
-- ARGV[1]  game number
-- ARGV[2]  the started spec JSON ("assigned": true)
--
-- Returns 1 when this call started it; 0 when it was started already or is no longer running
-- (recorded: a recorded game is never put back).

local cur = redis.call('HGET', KEYS[1], ARGV[1])
if not cur then
  return 0
end
if cjson.decode(cur)['assigned'] then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
