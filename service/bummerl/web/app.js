// The pages: Home, Match (live and replay, match.js), Play (play.js), Ladder (ladder.js). Hash
// routes (#/match/ID ...); only the public REST API under /v1/ is used.
import { CARD_LANGS, chooseLang, chosenLang, esc } from "./cards.js";
import { botPage } from "./botpage.js";
import { challengesPage } from "./competition.js";
import { ladderPage } from "./ladder.js";
import { matchPage } from "./match.js";
import { api, markContent, ndjson, onCleanup, runCleanup, setTitle, variants } from "./net.js";
import { playPage } from "./play.js";

export { api, ndjson, variants };

const app = document.getElementById("app");

// ------------------------------------------------------------------------------------------ Home
async function homePage() {
  setTitle("");
  const [vs, ladders, matches] = await Promise.all([variants(), api("/v1/ladders").catch(() => ({ ladders: [] })),
    api("/v1/matches?limit=20").catch(() => ({ running: [], recent: [] }))]);
  const when = (ms) => new Date(Number(ms)).toLocaleString();
  const listing = (ms) => ms.map((m) => `<li><a href="#/match/${encodeURIComponent(m.match_id)}">${esc(m.seat_names.join(" – "))}</a>`
    + ` <span class="muted">${esc(m.variant)} · ${esc(when(m.created_at_ms))}${m.over ? " · over" : " · running"}</span></li>`).join("");
  const dflt = (o) => o.default_value ?? o.default ?? "";
  const rows = vs.map((v) => `<tr><td><b>${esc(v.id)}</b><div class="muted">${esc(v.name)}</div></td><td>${v.num_players}</td>`
    + `<td>${esc(v.description || "")} <span class="muted">${esc(v.section || "")}</span>`
    + `<details><summary>${v.options.length} options</summary><ul>${v.options.map((o) => `<li><code>${esc(o.name)}</code> = `
      + `<code class="default">${esc(String(dflt(o)))}</code>: ${esc(o.description)} <span class="muted">${esc((o.rule_ids || []).join(", "))}</span></li>`).join("")}</ul></details></td>`
    + `<td><a href="#/play?variant=${encodeURIComponent(v.id)}" aria-label="play ${esc(v.name)}">play</a></td></tr>`).join("");
  const lrows = (ladders.ladders || []).map((l) => `<li><a href="#/ladder/${encodeURIComponent(l.ladder_id)}">${esc(l.name || l.ladder_id)}</a>`
    + ` <span class="muted">${esc(l.variant)} · ${esc((l.status || "").replace("LADDER_STATUS_", "").toLowerCase())}`
    + ` · ${l.matches_played}/${l.matches_total} games</span></li>`).join("");
  app.innerHTML = `<h1>Bummerl</h1><p>A game server for the Schnapsen family of card games: watch and replay matches,
    follow ladders, play a bot by hand.</p>
    <form id="watch" class="row form"><label>Watch or replay a match: <input name="id" placeholder="match id" required
      pattern="[A-Za-z0-9]{1,64}"></label> <button>Open</button></form>
    <div class="cols"><section><h2>Running matches</h2>${matches.running?.length ? `<ul id="running">${listing(matches.running)}</ul>`
      : '<p class="muted">None running.</p>'}</section>
    <section><h2>Recent matches</h2>${matches.recent?.length ? `<ul id="recent">${listing(matches.recent)}</ul>`
      : '<p class="muted">None yet: <a href="#/play">play one</a>.</p>'}</section></div>
    <h2>Ladders</h2>${lrows ? `<ul class="ladders">${lrows}</ul>` : '<p class="muted">No ladders on this server.</p>'}
    <p><a href="#/challenges">Challenges between bots</a></p>
    <h2>Variants</h2><div class="scroll" tabindex="0" role="region" aria-label="variants"><table class="variants"><thead><tr><th>variant</th><th>seats</th><th>rules</th><th><span class="sr-only">play</span></th></tr></thead>
    <tbody>${rows}</tbody></table></div>`;
  markContent();
  app.querySelector("#watch").addEventListener("submit", (ev) => {
    ev.preventDefault();
    location.hash = `#/match/${encodeURIComponent(new FormData(ev.target).get("id"))}`;
  });
}

// ------------------------------------------------------------------------------- Card names
function langChoice() {
  const sel = document.getElementById("card-lang");
  if (!sel || sel.options.length) return;
  sel.innerHTML = `<option value="">each variant's own</option>`
    + Object.entries(CARD_LANGS).map(([k, v]) => `<option value="${k}" lang="${k}">${esc(v)}</option>`).join("");
  sel.value = chosenLang();
  sel.addEventListener("change", () => { chooseLang(sel.value); route(); });
}

// ---------------------------------------------------------------------------------------- Router
async function route() {
  runCleanup();
  const [path, query] = location.hash.replace(/^#/, "").split("?");
  const params = new URLSearchParams(query || "");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  delete document.body.dataset.version;
  delete document.body.dataset.frame;
  delete document.body.dataset.over;
  document.body.dataset.ready = "0";
  try {
    if (parts[0] === "match" && parts[1]) await matchPage(app, parts[1], params, route);
    else if (parts[0] === "play") await playPage(app, params, parts[1]);
    else if (parts[0] === "ladder" && parts[1]) await ladderPage(app, parts[1], { api, ndjson, onCleanup, setTitle, markContent });
    else if (parts[0] === "challenges") await challengesPage(app, { api, onCleanup, setTitle, markContent });
    else if (parts[0] === "bot" && parts[1]) await botPage(app, parts[1], { api, onCleanup, setTitle, markContent });
    else await homePage();
  } catch (err) {
    app.innerHTML = `<h1>Bummerl</h1><p class="error">${esc(err.message)}</p>`;
  }
  document.body.dataset.ready = "1";
}

langChoice();
window.addEventListener("hashchange", route);
route();
