// A non-Python Bummerl client: plays one whole match through the REST/JSON face of the API,
// using only Node.js built-ins (fetch, streams; Node >= 18). Each seat follows its own event
// stream (newline-delimited JSON) and answers when it is to act, so nothing polls.
//
//   node clients/node/play.mjs http://127.0.0.1:8080 [variant] [seed]
//
// Prints one JSON line: {"match_id", "variant", "winner", "game_points", "actions"}.
const [base = "http://127.0.0.1:8080", variant = "schnapsen-at", seed = "1"] = process.argv.slice(2);

async function call(method, path, body, token) {
  const headers = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(base + path, { method, headers, body: body ? JSON.stringify(body) : undefined });
  const data = await res.json();
  if (!res.ok) throw Object.assign(new Error(`${res.status} ${data.code}: ${data.message}`), { data, status: res.status });
  return data;
}

// Prefer a declaration when the seat's own recount says 66 (it keeps the public history), else
// play the lowest-id legal action: a tiny but legal strategy.
function choose(info) {
  const acts = info.legal_actions;
  const me = info.seat;
  let pts = 0, tricks = 0, marriages = 0;
  const value = { A: 11, T: 10, K: 4, Q: 3, J: 2, 9: 0 };
  for (const ev of info.deal.history) {
    if (ev.trick_completed && ev.trick_completed.winner === me) {
      tricks += 1;
      for (const c of ev.trick_completed.cards) pts += value[c.card[0]];
    }
    if (ev.marriage_announced && ev.marriage_announced.seat === me) marriages += ev.marriage_announced.points;
  }
  const declare = acts.find((a) => a.kind === "declare");
  if (declare && pts + (tricks ? marriages : 0) >= 66) return declare;
  return acts.filter((a) => a.kind !== "declare")[0] ?? acts[0];
}

async function playSeat(matchId, seat, token) {
  const res = await fetch(`${base}/v1/matches/${matchId}/seats/${seat}/stream?from_version=0`, {
    headers: { authorization: `Bearer ${token}` },
  });
  if (!res.ok) throw new Error(`stream ${res.status}`);
  const decoder = new TextDecoder();
  let buf = "";
  let acted = -1;
  for await (const chunk of res.body) {
    buf += decoder.decode(chunk, { stream: true });
    let nl;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (!line) continue;
      const msg = JSON.parse(line);
      if (msg.error) throw new Error(`stream error ${msg.error.code}: ${msg.error.message}`);
      const info = msg.result.information_set;
      if (info.match.over) return info;
      const version = Number(info.version);
      if (info.deal.to_act === seat && info.legal_actions.length && version > acted) {
        acted = version;
        const action = choose(info);
        try {
          await call("POST", `/v1/matches/${matchId}/seats/${seat}/actions`, { expected_version: String(version), action_id: action.id }, token);
        } catch (e) {
          if (e.status !== 409 || e.data.code !== "ABORTED") throw e; // stale: the stream brings the new state
        }
      }
    }
  }
  throw new Error("stream ended before the match did");
}

const created = await call("POST", "/v1/matches", { variant, seed, seats: [{ name: "node-0" }, { name: "node-1" }] });
const tokens = Object.fromEntries(created.seat_tokens.map((t) => [t.seat, t.token]));
await Promise.all([0, 1].map((s) => playSeat(created.match_id, s, tokens[s])));
const record = await call("GET", `/v1/matches/${created.match_id}/record`);
console.log(JSON.stringify({
  match_id: created.match_id,
  variant: record.variant,
  winner: record.match_result.winner,
  game_points: record.match_result.game_points,
  actions: record.actions.length,
}));
