// The Ladder page: standings (openskill mu / sigma / ordinal, Elo +- 95% CI against the leader),
// the pairs (Elo, LOS, SPRT LLR), the SPRT's LLR against its bounds, progress and ETA, and the
// games with links, the running games and when each becomes watchable (once its duplicate set is
// over); it follows GET /v1/ladders/{id}/events: each result arrives in the stream and is added to
// the games fetched once (GET .../matches and .../games at the start only).
import { esc } from "./cards.js";
import { competitionSection, laterLegCell, plannedAsItGoes } from "./competition.js";

const f1 = (x) => Number(x).toFixed(1);
/** Pairs (duplicate pairs, or games without them) an Elo needs before it is shown: the CLI's rule
 * (bummerl_cli.common.MIN_PAIRS_FOR_ELO), so that a few results never show as "Infinity ± Infinity". */
const MIN_PAIRS_FOR_ELO = 10;
/** The Elo of a pair row from a's side (sign -1: b's side): "+35.2 ± 20.1", "n/a (needs 10 pairs)",
 * or "n/a (unbounded so far)" (one bot scored everything: the interval reaches an infinite Elo;
 * "n/a (unbounded: one bot scored every game)" once the ladder is over). */
const eloCell = (p, sign = 1, done = false) => {
  const pairsDone = Number(p.deal_pairs) || 0, units = pairsDone || Number(p.games) || 0;
  const elo = sign * Number(p.elo), ci = Number(p.elo_ci95);
  if (units < MIN_PAIRS_FOR_ELO) return `n/a (needs ${MIN_PAIRS_FOR_ELO} ${pairsDone || !Number(p.games) ? "pairs" : "games"})`;
  if (!Number.isFinite(elo) || !Number.isFinite(ci)) return done ? "n/a (unbounded: one side scored every game)" : "n/a (unbounded so far)";
  return `${elo >= 0 ? "+" : ""}${f1(elo)} ± ${f1(ci)}`;
};
const f2 = (x) => Number(x).toFixed(2);

function sprtBounds(sprt) {
  const alpha = Number(sprt?.alpha || 0.05), beta = Number(sprt?.beta || 0.05);
  return [Math.log(beta / (1 - alpha)), Math.log((1 - beta) / alpha)];
}

function llrPlot(points, lo, hi) {
  const w = 360, h = 160, pad = 24;
  const maxX = Math.max(1, ...points.map((p) => p[0]));
  const top = Math.max(hi, ...points.map((p) => p[1])) * 1.1, bottom = Math.min(lo, ...points.map((p) => p[1])) * 1.1;
  const x = (v) => pad + (v / maxX) * (w - 2 * pad), y = (v) => pad + ((top - v) / (top - bottom)) * (h - 2 * pad);
  const path = points.map((p, i) => `${i ? "L" : "M"}${x(p[0]).toFixed(1)} ${y(p[1]).toFixed(1)}`).join(" ");
  return `<svg class="llr" viewBox="0 0 ${w} ${h}" role="img" aria-label="SPRT log-likelihood ratio against its bounds">`
    + `<title>SPRT LLR against its bounds</title>`
    + `<line x1="${pad}" x2="${w - pad}" y1="${y(hi)}" y2="${y(hi)}" class="bound"/><text x="${w - pad}" y="${y(hi) - 4}" text-anchor="end">H1 ${f2(hi)}</text>`
    + `<line x1="${pad}" x2="${w - pad}" y1="${y(lo)}" y2="${y(lo)}" class="bound"/><text x="${w - pad}" y="${y(lo) + 14}" text-anchor="end">H0 ${f2(lo)}</text>`
    + `<line x1="${pad}" x2="${w - pad}" y1="${y(0)}" y2="${y(0)}" class="zero"/>`
    + (points.length ? `<path d="${path}" class="line"/><circle cx="${x(points.at(-1)[0])}" cy="${y(points.at(-1)[1])}" r="3"/>` : "")
    + `<text x="${pad}" y="${h - 4}">games → ${maxX}</text></svg>`;
}

// The row bot's score against the column bot over the games they met in as opponents (two seats:
// its game score; three or four: 1 placed ahead, 1/2 the same place, 0 behind), "score/games".
function crossTable(bots, names, results) {
  const cell = new Map();
  for (const r of results) {
    const places = (r.placements || []).map(Number);
    const teams = (r.teams && r.teams.length ? r.teams : r.bots.map((_, i) => i)).map(Number);  // two seats: none
    r.bots.forEach((a, i) => r.bots.forEach((b, j) => {
      if (i === j || teams[i] === teams[j]) return;
      const s = places.length ? (places[i] < places[j] ? 1 : places[i] === places[j] ? 0.5 : 0) : Number(r.scores[i]);
      const c = cell.get(`${a}|${b}`) || [0, 0];
      cell.set(`${a}|${b}`, [c[0] + s, c[1] + 1]);
    }));
  }
  const head = bots.map((b) => `<th>${esc(names[b] || b)}</th>`).join("");
  const rows = bots.map((a) => `<tr><th>${esc(names[a] || a)}</th>` + bots.map((b) => {
    const c = cell.get(`${a}|${b}`);
    return `<td>${a === b ? "—" : c ? `${+c[0].toFixed(2)}/${c[1]}` : ""}</td>`;
  }).join("") + "</tr>").join("");
  return `<h2>Cross table</h2><div class="scroll"><table id="crosstable"><thead><tr><th></th>${head}</tr></thead>`
    + `<tbody>${rows}</tbody></table></div>`;
}

function presence(l) {
  const names = l.bot_names || {}, absent = new Set(l.absent_bots || []);
  const bots = (l.bot_ids || []).map((b) => `<span class="${absent.has(b) ? "absent" : "present"}">`
    + `${absent.has(b) ? "○" : "●"} ${esc(names[b] || b)}</span>`).join(" ");
  const wait = l.waiting_for_bots ? " · waiting for every bot to connect" : "";
  return `<p id="presence">connected: ${bots}${wait}</p>`;
}

export async function ladderPage(app, id, { api, ndjson, onCleanup, setTitle, markContent }) {
  const base = `/v1/ladders/${encodeURIComponent(id)}`;
  app.innerHTML = `<h1>Ladder</h1><div id="ladder-head"></div><div id="ladder-body"></div>`;
  const head = app.querySelector("#ladder-head"), body = app.querySelector("#ladder-body");
  const llr = []; // [games, llr]: the ladder's "sprt" events from its creation, and the current value
  const addLlr = (games, value) => {
    const i = llr.findIndex((p) => p[0] >= games);
    if (i < 0) llr.push([games, value]);
    else if (llr[i][0] === games) llr[i][1] = value;
    else llr.splice(i, 0, [games, value]);
  };
  const seen = [];  // [ms, games played]
  // the games: fetched once, then kept up to date from the event stream ("started", "result")
  const [first, ms0, gs0] = await Promise.all([api(base), api(`${base}/matches`), api(`${base}/games`).catch(() => ({ games: [] }))]);
  setTitle(`Ladder ${first.name || id}`);
  const results = ms0.results || [], have = new Set(results.map((r) => Number(r.game)));
  const gameState = new Map((gs0.games || []).map((g) => [Number(g.game), { ...g }]));
  const addResult = (r) => {
    const g = gameState.get(Number(r.game));
    if (g) Object.assign(g, { state: "finished", match_id: r.match_id });
    if (have.has(Number(r.game))) return;
    have.add(Number(r.game));
    results.push(r);
  };
  const setOver = (pair) => [...gameState.values()].filter((g) => Number(g.pair) === Number(pair));
  const watchable = (g) => setOver(g.pair).every((x) => x.state === "finished");
  const ms = { results };
  const matchLink = (r) => {
    const g = gameState.get(Number(r.game)) || { pair: r.pair, state: "finished" };
    const href = `#/match/${encodeURIComponent(r.match_id)}?ladder=${encodeURIComponent(id)}`;
    return gameState.size && !watchable(g) ? `<span class="muted">${esc(r.match_id)} (watchable once its set is over)</span>`
      : `<a href="${href}">${esc(r.match_id)}</a>`;
  };
  let cached = first;
  async function refresh() {
    const [l, lb] = await Promise.all([cached || api(base), api(`${base}/leaderboard`)]);
    cached = null;
    const planned = plannedAsItGoes(l.format) ? await api(`${base}/pairings`).catch(() => null) : null;
    const played = Number(l.matches_played), total = Number(l.matches_total);
    seen.push([performance.now(), played]);
    const first = seen[0], rate = seen.length > 1 && played > first[1] ? (played - first[1]) / (performance.now() - first[0]) : 0;
    const eta = rate > 0 && total > played ? Math.round((total - played) / rate / 1000) : null;
    const status = (l.status || "").replace("LADDER_STATUS_", "").toLowerCase();
    head.innerHTML = `<p><b>${esc(l.name || l.ladder_id)}</b> · ${esc(l.variant)} · ${esc((l.format || "").replace("LADDER_FORMAT_", "").toLowerCase())}`
      + ` · <span id="ladder-status">${esc(status)}</span>${l.duplicate_deals ? " · duplicate deals" : ""}</p>`
      + `<div class="progress"><progress id="progress" max="${total}" value="${played}"></progress> `
      + `<span id="played" data-played="${played}">${played} / ${total} games</span>`
      + ` · ${l.matches_running} running${eta !== null ? ` · ETA ${eta} s` : ""}</div>`
      + presence(l);
    const entries = lb.entries || [], pairs = lb.pairs || [];
    const leader = entries[0];
    const vsLeader = (e) => {
      if (!leader || e.bot_id === leader.bot_id) return "—";
      const p = pairs.find((q) => (q.a === leader.bot_id && q.b === e.bot_id) || (q.b === leader.bot_id && q.a === e.bot_id));
      if (!p || !Number(p.games)) return "";
      return eloCell(p, p.a === e.bot_id ? 1 : -1, status === "finished");
    };
    const later = entries.some((e) => Number(e.later_leg?.sets || 0) > 0);
    const standings = entries.map((e) => `<tr><td>${e.rank}</td><td><a href="#/bot/${encodeURIComponent(e.name)}">${esc(e.name)}</a></td><td>${f2(e.mu)}</td><td>${f2(e.sigma)}</td>`
      + `<td>${f2(e.ordinal)}</td><td>${vsLeader(e)}</td><td>${e.games}</td><td>${e.wins}/${e.draws}/${e.losses}</td><td>${f1(e.score)}</td>`
      + `${later ? `<td>${laterLegCell(e)}</td>` : ""}</tr>`).join("");
    const pairRows = pairs.map((p) => `<tr><td>${esc(p.a_name)} – ${esc(p.b_name)}</td><td>${eloCell(p, 1, status === "finished")}</td>`
      + `<td>${(Number(p.los) * 100).toFixed(1)}%</td><td>${p.games}</td><td>${p.deal_pairs}</td><td>${f2(p.sprt_llr)}</td><td>${esc(p.sprt_result || "")}</td></tr>`).join("");
    let sprt = "";
    if ((l.format || "").endsWith("SPRT") && pairs.length) {
      const [lo, hi] = sprtBounds(l.sprt);
      addLlr(played, Number(pairs[0].sprt_llr));
      sprt = `<h2>SPRT</h2><p>elo0 ${l.sprt?.elo0 ?? 0}, elo1 ${l.sprt?.elo1 ?? 10}: LLR <b id="llr">${f2(pairs[0].sprt_llr)}</b>`
        + ` in [${f2(lo)}, ${f2(hi)}] ${esc(pairs[0].sprt_result || "undecided")}</p>${llrPlot(llr, lo, hi)}`;
    }
    const n = Number(l.num_players || 2);
    const names = l.bot_names || {};
    const games = (ms.results || []).slice(-200).reverse().map((r) => `<tr><td>${r.game}</td><td>${r.pair}/${r.leg}</td>`
      + `<td>${r.bots.map((b) => esc(names[b] || b)).join(" · ")}</td><td>${(r.scores || []).map(f1).join(" : ")}</td>`
      + `<td>${esc(r.reason)}</td><td>${matchLink(r)}</td></tr>`).join("");
    const runningRows = [...gameState.values()].filter((g) => g.state === "running").map((g) => {
      if (!l.duplicate_deals && g.match_id) {  // its own set (an arena, a challenge without duplicates): watch it live
        return `<tr data-game="${g.game}"><td>${g.game}</td><td>${g.pair}/${g.leg}</td><td>${(g.bots || []).map((b) => esc(names[b] || b)).join(" · ")}</td>`
          + `<td><a href="#/match/${encodeURIComponent(g.match_id)}?ladder=${encodeURIComponent(id)}">watch live</a></td></tr>`;
      }
      const left = setOver(g.pair).filter((x) => x.state !== "finished" && x.game !== g.game).map((x) => x.game);
      return `<tr data-game="${g.game}"><td>${g.game}</td><td>${g.pair}/${g.leg}</td><td>${(g.bots || []).map((b) => esc(names[b] || b)).join(" · ")}</td>`
        + `<td>watchable once it ends${left.length ? ` and game${left.length > 1 ? "s" : ""} ${left.join(", ")} of its set` : ""}</td></tr>`;
    }).join("");
    const cross = crossTable(l.bot_ids || [], names, ms.results || []);
    body.innerHTML = competitionSection(l.format, planned, names)
      + `<h2>Standings</h2><div class="scroll"><table id="standings"><thead><tr><th>#</th><th>bot</th><th>mu</th><th>sigma</th><th>ordinal</th>`
      + `<th>Elo vs leader (95%)</th><th>games</th><th>W/D/L</th><th>score</th>`
      + `${later ? '<th title="score in the later legs of its duplicate sets minus the earlier ones, 95% interval">later leg</th>' : ""}`
      + `</tr></thead><tbody>${standings}</tbody></table></div>`
      + sprt
      + cross
      + `<h2>Pairs</h2><div class="scroll"><table id="pairs"><thead><tr><th>pair</th><th>Elo (95%)</th><th>LOS</th><th>games</th>`
      + `<th>${n > 2 ? "sets" : "deal pairs"}</th><th>LLR</th><th>SPRT</th></tr></thead><tbody>${pairRows}</tbody></table></div>`
      + `<h2>Running games</h2>${runningRows ? `<div class="scroll"><table id="running-games"><thead><tr><th>game</th><th>pair/leg</th><th>bots</th><th>watch</th></tr></thead>`
        + `<tbody>${runningRows}</tbody></table></div>` : '<p class="muted" id="running-games">None running.</p>'}`
      + `<h2>Games</h2><div class="scroll"><table id="games"><thead><tr><th>game</th><th>pair/leg</th><th>bots</th><th>scores</th><th>reason</th><th>match</th></tr></thead>`
      + `<tbody>${games}</tbody></table></div>`;
    document.body.dataset.played = played;
    return status;
  }
  let status = await refresh();
  markContent();
  const ctrl = new AbortController();
  onCleanup(() => ctrl.abort());
  let pending = null;
  try {  // the event stream starts at the ladder's creation (so the LLR's whole path) and ends with it
    for await (const ev of ndjson(`${base}/events`, { signal: ctrl.signal })) {
      if (ev.type === "sprt") addLlr(Number(ev.games_played), Number(ev.sprt_llr));
      if (ev.type === "started" && gameState.has(Number(ev.game))) Object.assign(gameState.get(Number(ev.game)), { state: "running", match_id: ev.match_id });
      if (ev.type === "started" && !gameState.has(Number(ev.game))) gameState.set(Number(ev.game), { game: ev.game, pair: ev.game, leg: 0, bots: ev.bots, state: "running", match_id: ev.match_id });
      if (ev.type === "result" && ev.result) addResult(ev.result);
      if (ev.type === "finished") break;
      if (!pending) pending = setTimeout(async () => { pending = null; status = await refresh().catch(() => status); }, 250);
    }
  } catch (err) {
    if (ctrl.signal.aborted) return;
  }
  if (pending) clearTimeout(pending);
  if (!ctrl.signal.aborted) await refresh();
}
