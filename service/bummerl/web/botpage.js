// A bot's page (issue 39): who it is (versions, presence, what it did in its games) and where it
// lost its points: the analysis (GetMatchAnalysis) of its latest finished ladder games, summed over
// its seats (mean loss per valued decision, inaccuracies / mistakes / blunders by phase). Only the
// public REST API; an analysis still being computed is asked again after the server's retry hint.
import { esc } from "./cards.js";

const GAMES = 10;  // the latest finished ladder games analysed
const PHASES = ["talon_open", "talon_closed", "endgame"];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function analysisOf(api, matchId, signal) {
  for (let i = 0; i < 60 && !signal.aborted; i++) {
    const a = await api(`/v1/matches/${encodeURIComponent(matchId)}/analysis`);
    if (a.state === "done") return a;
    await sleep(Math.min(5000, Math.max(500, Number(a.retry_after_ms || 2000))));
  }
  return null;
}

export async function botPage(app, who, { api, onCleanup, setTitle, markContent }) {
  const ctrl = new AbortController();
  onCleanup(() => ctrl.abort());
  const bots = (await api("/v1/bots")).bots || [];
  const bot = bots.find((b) => b.name === who || b.bot_id === who);
  if (!bot) {
    app.innerHTML = `<h1>Bot</h1><p class="error">No bot ${esc(who)} on this server.</p>`;
    return;
  }
  setTitle(`Bot ${bot.name}`);
  const st = bot.stats || {};
  const versions = (bot.versions || []).map((v) => `<li><b>${esc(v.version)}</b> <span class="muted">`
    + `${esc(new Date(Number(v.created_at_ms)).toLocaleString())}${v.note ? ` · ${esc(v.note)}` : ""}</span></li>`).join("");
  app.innerHTML = `<h1>Bot ${esc(bot.name)}</h1>`
    + `<p>${bot.connected ? "connected" : '<span class="muted">not connected</span>'} · version ${esc(bot.version || "-")}`
    + ` · ${st.games || 0} ladder games, ${st.wins || 0}/${st.draws || 0}/${st.losses || 0} W/D/L`
    + ` · faults: ${(st.timeouts || 0) + (st.illegal_actions || 0) + (st.disconnects || 0)}</p>`
    + (versions ? `<h2>Versions</h2><ul id="bot-versions">${versions}</ul>` : "")
    + `<h2>Where it lost its points</h2><p class="muted">The analysis of its latest ${GAMES} finished ladder games: each `
    + `decision valued from what the bot knew then (expected game points of each legal action over sampled worlds).</p>`
    + `<div id="bot-analysis" role="status">looking for its games…</div>`;
  markContent();
  const box = app.querySelector("#bot-analysis");
  const ladders = ((await api("/v1/ladders")).ladders || []).filter((l) => (l.bot_ids || []).includes(bot.bot_id));
  const games = [];
  for (const l of ladders) {
    const rs = ((await api(`/v1/ladders/${encodeURIComponent(l.ladder_id)}/matches`)).results || [])
      .filter((r) => (r.bots || []).includes(bot.bot_id));
    games.push(...rs.map((r) => ({ ...r, ladder: l })));
  }
  const latest = games.slice(-GAMES).reverse();
  if (!latest.length) {
    box.textContent = "No finished ladder game yet.";
    return;
  }
  box.textContent = `analysing ${latest.length} game${latest.length > 1 ? "s" : ""}…`;
  const rows = [], phases = Object.fromEntries(PHASES.map((p) => [p, [0, 0, 0]]));
  let decisions = 0, loss = 0, done = 0;
  for (const r of latest) {
    let a = null;
    try {
      a = await analysisOf(api, r.match_id, ctrl.signal);
    } catch (err) {
      rows.push(`<tr><td>${esc(r.match_id)}</td><td colspan="3" class="muted">${esc(err.message)}</td></tr>`);
      continue;
    }
    if (ctrl.signal.aborted) return;
    if (!a) continue;
    done += 1;
    const mine = (a.seats || []).filter((s) => r.bots[Number(s.seat)] === bot.bot_id);
    const n = mine.reduce((x, s) => x + Number(s.decisions || 0), 0), l = mine.reduce((x, s) => x + Number(s.total_loss || 0), 0);
    decisions += n;
    loss += l;
    for (const s of mine) {
      for (const ph of s.phases || []) {
        const t = phases[ph.phase];
        if (t) { t[0] += Number(ph.inaccuracies || 0); t[1] += Number(ph.mistakes || 0); t[2] += Number(ph.blunders || 0); }
      }
    }
    rows.push(`<tr><td><a href="#/match/${encodeURIComponent(r.match_id)}?replay">${esc(r.match_id)}</a></td>`
      + `<td>${esc(r.ladder.name || r.ladder.ladder_id)}</td><td>${n}</td><td>${n ? (l / n).toFixed(3) : "-"}</td></tr>`);
    box.textContent = `analysed ${done} of ${latest.length}…`;
  }
  const mean = decisions ? (loss / decisions).toFixed(3) : "-";
  box.removeAttribute("role");
  box.innerHTML = `<p id="bot-summary" data-games="${done}" data-decisions="${decisions}">Mean loss <b>${mean}</b> game points per valued decision`
    + ` over ${decisions} decisions in ${done} games.</p>`
    + `<div class="scroll" tabindex="0" role="region" aria-label="mistakes by phase"><table id="bot-phases"><thead><tr><th>phase</th>`
    + `<th>inaccuracies</th><th>mistakes</th><th>blunders</th></tr></thead><tbody>`
    + PHASES.map((p) => `<tr><td>${p.replace("_", " ")}</td><td>${phases[p][0]}</td><td>${phases[p][1]}</td><td>${phases[p][2]}</td></tr>`).join("")
    + `</tbody></table></div><div class="scroll" tabindex="0" role="region" aria-label="analysed games"><table id="bot-games"><thead><tr><th>match</th>`
    + `<th>ladder</th><th>valued decisions</th><th>mean loss</th></tr></thead><tbody>${rows.join("")}</tbody></table></div>`;
}
