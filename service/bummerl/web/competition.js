// What a ladder planned as it goes shows (issue 37): a Swiss ladder's standings with tiebreaks and
// each round's pairings, a knockout's bracket, an arena's points table; and the challenges page.
// Only the public REST API: GET /v1/ladders/{id}/pairings and GET /v1/challenges.
import { esc } from "./cards.js";

const num = (x) => {
  const v = Number(x || 0);
  return Number.isInteger(v) ? String(v) : v.toFixed(2).replace(/0$/, "");
};
const nameOf = (names, id) => esc(names[id] || id || "");

function swiss(p, names) {
  const rows = (p.standings || []).map((r) => `<tr><td>${r.rank}</td><td>${esc(r.name || names[r.bot_id] || r.bot_id)}</td>`
    + `<td>${num(r.points)}</td><td>${num(r.buchholz)}</td><td>${num(r.sonneborn_berger)}</td><td>${num(r.direct_encounter)}</td>`
    + `<td>${r.byes || 0}</td><td>${r.played || 0}</td></tr>`).join("");
  const rounds = (p.rounds || []).map((rnd) => {
    const meetings = (rnd.meetings || []).map((m) => {
      const who = (m.bots || []).map((b, i) => esc((m.names || [])[i] || names[b] || b)).join(" – ");
      const pts = (m.points || []).length ? m.points.map(num).join(" – ") : `<span class="muted">playing (${m.games}/${m.expected})</span>`;
      return `<tr><td>${esc(m.key)}</td><td>${who}</td><td>${(m.totals || []).map(num).join(" – ")}</td><td>${pts}</td></tr>`;
    }).join("");
    const byes = (rnd.byes || []).map((b) => nameOf(names, b)).join(", ") || "none";
    return `<h3>${esc(rnd.label || `round ${Number(rnd.stage) + 1}`)}</h3><p class="muted">bye: ${byes}</p>`
      + `<div class="scroll" tabindex="0" role="region" aria-label="${esc(rnd.label || "round")} pairings"><table class="pairings">`
      + `<thead><tr><th>meeting</th><th>bots</th><th>total scores</th><th>points</th></tr></thead><tbody>${meetings}</tbody></table></div>`;
  }).join("");
  return `<h2>Swiss standings</h2><p class="muted">Points: 1 a meeting won (the higher total game score), ½ shared, 1 a bye. `
    + `Tiebreaks in order: Buchholz (opponents' points), Sonneborn-Berger, direct encounter.</p>`
    + `<div class="scroll" tabindex="0" role="region" aria-label="Swiss standings"><table id="swiss-standings">`
    + `<thead><tr><th>#</th><th>bot</th><th>points</th><th>Buchholz</th><th>S-B</th><th>direct</th><th>byes</th><th>played</th></tr></thead>`
    + `<tbody>${rows}</tbody></table></div><h2>Rounds</h2>${rounds || '<p class="muted">No round yet.</p>'}`;
}

function bracket(p, names) {
  const cols = (p.rounds || []).map((rnd) => {
    const ties = (rnd.meetings || []).map((t) => {
      const side = (i) => {
        const b = (t.bots || [])[i], seed = (t.seeds || [])[i];
        if (!b) return `<span class="muted">${t.decided_by === "bye" ? "bye" : "?"}</span>`;
        const who = esc((t.names || [])[i] || names[b] || b);
        return `${seed ? `<span class="seed">${seed}</span> ` : ""}${t.winner === b ? `<b>${who}</b>` : who}`;
      };
      const score = t.decided_by && t.decided_by !== "bye"
        ? `<div class="muted">${num((t.score || [])[0])}–${num((t.score || [])[1])} · ${t.pairs} pairs · by ${esc(t.decided_by)}</div>`
        : (t.games ? `<div class="muted">playing: ${t.games} games</div>` : "");
      return `<li class="tie" data-tie="${esc(t.key)}"><div>${side(0)}</div><div>${side(1)}</div>${score}</li>`;
    }).join("");
    return `<section class="bracket-round"><h3>${esc(rnd.label)}</h3><ol>${ties}</ol></section>`;
  }).join("");
  return `<h2>Bracket</h2><p class="muted">Each tie: its duplicate pairs, the higher total game score goes through; `
    + `level: one more pair at a time (at most 4), then game points, then the better seed.</p>`
    + `<div class="bracket scroll" id="bracket" tabindex="0" role="region" aria-label="knockout bracket">${cols}</div>`;
}

function arena(p, names) {
  const rows = (p.arena || []).map((r) => `<tr><td>${r.rank}</td><td>${esc(r.name || names[r.bot_id] || r.bot_id)}</td>`
    + `<td>${r.points}</td><td>${r.games}</td><td>${r.wins}/${r.draws}/${r.losses}</td><td>${r.streak ? `${r.streak} 🔥` : ""}</td>`
    + `<td>${r.connected ? "yes" : '<span class="muted">no</span>'}</td></tr>`).join("");
  return `<h2>Arena</h2><p class="muted">Points: a win 2, a draw 1; after two wins in a row each further win 4. `
    + `Idle connected bots are paired at once, the least-played first, near in rating.</p>`
    + `<div class="scroll" tabindex="0" role="region" aria-label="arena points"><table id="arena-standings">`
    + `<thead><tr><th>#</th><th>bot</th><th>points</th><th>games</th><th>W/D/L</th><th>streak</th><th>connected</th></tr></thead>`
    + `<tbody>${rows}</tbody></table></div>`;
}

// The section for a ladder of format ``format`` (LADDER_FORMAT_...), or "" for one planned at creation.
export function competitionSection(format, p, names) {
  const f = String(format || "").replace("LADDER_FORMAT_", "").toLowerCase();
  if (!p) return "";
  if (f === "swiss") return swiss(p, names);
  if (f === "knockout") return bracket(p, names);
  if (f === "arena") return arena(p, names);
  return "";
}

export const plannedAsItGoes = (format) => ["SWISS", "KNOCKOUT", "ARENA"].some((x) => String(format || "").endsWith(x));

// The later-leg advantage of a leaderboard entry (issue 38): "+0.12 (−0.05..+0.29)", flagged above 0.
export function laterLegCell(e) {
  const ll = e.later_leg || {};
  const n = Number(ll.sets || 0);
  if (!n) return "";
  const s = (x) => `${Number(x) >= 0 ? "+" : "−"}${Math.abs(Number(x)).toFixed(2)}`;
  const cell = n < 2 ? `${s(ll.mean)}` : `${s(ll.mean)} (${s(ll.ci95_low)}..${s(ll.ci95_high)})`;
  return ll.flagged ? `<b class="flag" title="scores better in the later legs of its duplicate sets: a bot that remembers deals?">${cell} ⚑</b>` : cell;
}

// #/challenges: the newest challenges, live enough (refetched every 5 s while the page is open).
export async function challengesPage(app, { api, onCleanup, setTitle, markContent }) {
  setTitle("Challenges");
  app.innerHTML = `<h1>Challenges</h1><p>A bot challenges another (or a house bot) with its bot token: `
    + `<code>bummerl bot challenge OPPONENT --token T --deals 4</code>. Accepted challenges are played as ladders.</p>`
    + `<div id="challenges"></div>`;
  const box = app.querySelector("#challenges");
  const when = (ms) => new Date(Number(ms)).toLocaleString();
  async function draw() {
    const got = (await api("/v1/challenges")).challenges || [];
    box.innerHTML = got.length ? `<div class="scroll" tabindex="0" role="region" aria-label="challenges"><table id="challenge-list"><thead><tr>`
      + `<th>when</th><th>from</th><th>to</th><th>variant</th><th>pairs</th><th>rated</th><th>state</th><th>ladder</th></tr></thead><tbody>`
      + got.map((c) => `<tr><td>${esc(when(c.created_at_ms))}</td><td>${esc(c.challenger_name)}</td><td>${esc(c.challenged_name)}</td>`
        + `<td>${esc(c.variant)}</td><td>${c.pairs}</td><td>${c.rated ? "yes" : "no"}</td>`
        + `<td>${esc(c.state)}${c.decline_reason ? ` (${esc(c.decline_reason)})` : ""}</td>`
        + `<td>${c.ladder_id ? `<a href="#/ladder/${encodeURIComponent(c.ladder_id)}">${esc(c.ladder_id)}</a>` : ""}</td></tr>`).join("")
      + `</tbody></table></div>` : '<p class="muted">No challenges yet.</p>';
  }
  await draw();
  markContent();
  const timer = setInterval(() => draw().catch(() => {}), 5000);
  onCleanup(() => clearInterval(timer));
}
