-- Record a finished game exactly once (bummerl.ladder.service.LadderService.drive).
--
-- KEYS[1]  bm:ladder:{<id>}:running  (hash: game number -> game spec JSON)
-- KEYS[2]  bm:ladder:{<id>}:results  (list of result JSON)
-- KEYS[3]  bm:ladder:{<id>}:setleft  (hash: duplicate set -> games of it not yet recorded)
-- ARGV[1]  game number
-- ARGV[2]  result JSON
-- ARGV[3]  the game's duplicate set (its "pair")
--
-- Returns 1 when recorded, 0 when another process recorded it first.

if redis.call('HDEL', KEYS[1], ARGV[1]) == 1 then
  redis.call('RPUSH', KEYS[2], ARGV[2])
  redis.call('HINCRBY', KEYS[3], ARGV[3], -1)
  return 1
end
return 0
