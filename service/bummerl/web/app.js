// The pages: Home, Match (live and replay), Play, Ladder. Hash routes (#/match/ID ...); only the
// public REST API under /v1/ is used. A seat token lives in this module's memory only.
import { esc, langOf, learnNames } from "./cards.js";
import { ladderPage } from "./ladder.js";
import { eventText, tableHTML, tickClocks } from "./table.js";

const app = document.getElementById("app");
let cleanup = [];

export async function api(path, opts = {}) {
  const r = await fetch(path, { ...opts, headers: { Accept: "application/json", ...(opts.body ? { "Content-Type": "application/json" } : {}), ...(opts.headers || {}) } });
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw Object.assign(new Error(body.message || `${r.status} ${r.statusText}`), { status: r.status });
  return body;
}

/** Messages of a server-streaming REST call (NDJSON), until it ends or ``signal`` aborts. */
export async function* ndjson(path, { headers = {}, signal } = {}) {
  const r = await fetch(path, { headers: { Accept: "application/x-ndjson", ...headers }, signal });
  if (!r.ok) {
    const body = await r.json().catch(() => ({}));
    throw Object.assign(new Error(body.message || `${r.status} ${r.statusText}`), { status: r.status });
  }
  const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += value;
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (!line.trim()) continue;
      const msg = JSON.parse(line);
      if (msg.error) throw new Error(msg.error.message);
      yield msg.result;
    }
  }
}

function onCleanup(fn) { cleanup.push(fn); }

/** Marks the first drawn table of a page load (read by ``bummerl bench web``). */
function markRendered() {
  if (!performance.getEntriesByName("bummerl-first-render").length) performance.mark("bummerl-first-render");
}

let variantsCache = null;
export async function variants() {
  if (!variantsCache) {
    variantsCache = (await api("/v1/variants")).variants;
    learnNames(variantsCache);
  }
  return variantsCache;
}

// ------------------------------------------------------------------------------------------ Home
async function homePage() {
  const [vs, ladders, matches] = await Promise.all([variants(), api("/v1/ladders").catch(() => ({ ladders: [] })),
    api("/v1/matches?limit=20").catch(() => ({ running: [], recent: [] }))]);
  const when = (ms) => new Date(Number(ms)).toLocaleString();
  const listing = (ms) => ms.map((m) => `<li><a href="#/match/${encodeURIComponent(m.match_id)}">${esc(m.seat_names.join(" – "))}</a>`
    + ` <span class="muted">${esc(m.variant)} · ${esc(when(m.created_at_ms))}${m.over ? " · over" : " · running"}</span></li>`).join("");
  const rows = vs.map((v) => `<tr><td><b>${esc(v.id)}</b><div class="muted">${esc(v.name)}</div></td><td>${v.num_players}</td>`
    + `<td>${esc(v.description || "")} <span class="muted">${esc(v.section || "")}</span>`
    + `<details><summary>${v.options.length} options</summary><ul>${v.options.map((o) => `<li><code>${esc(o.name)}</code> = `
      + `${esc(String(o.default))}: ${esc(o.description)} <span class="muted">${esc((o.rule_ids || []).join(", "))}</span></li>`).join("")}</ul></details></td>`
    + `<td><a href="#/play?variant=${encodeURIComponent(v.id)}">play</a></td></tr>`).join("");
  const lrows = (ladders.ladders || []).map((l) => `<li><a href="#/ladder/${encodeURIComponent(l.ladder_id)}">${esc(l.name || l.ladder_id)}</a>`
    + ` <span class="muted">${esc(l.variant)} · ${esc((l.status || "").replace("LADDER_STATUS_", "").toLowerCase())}`
    + ` · ${l.matches_played}/${l.matches_total} games</span></li>`).join("");
  app.innerHTML = `<h1>Bummerl</h1><p>A game server for the Schnapsen family of card games: watch and replay matches,
    follow ladders, play a bot by hand.</p>
    <form id="watch" class="row"><label>Watch or replay a match: <input name="id" placeholder="match id" required
      pattern="[A-Za-z0-9]{1,64}"></label> <button>Open</button></form>
    <div class="cols"><section><h2>Running matches</h2>${matches.running?.length ? `<ul id="running">${listing(matches.running)}</ul>`
      : '<p class="muted">None running.</p>'}</section>
    <section><h2>Recent matches</h2>${matches.recent?.length ? `<ul id="recent">${listing(matches.recent)}</ul>`
      : '<p class="muted">None yet: <a href="#/play">play one</a>.</p>'}</section></div>
    <h2>Ladders</h2>${lrows ? `<ul class="ladders">${lrows}</ul>` : '<p class="muted">No ladders on this server.</p>'}
    <h2>Variants</h2><div class="scroll"><table class="variants"><thead><tr><th>variant</th><th>seats</th><th>rules</th><th></th></tr></thead>
    <tbody>${rows}</tbody></table></div>`;
  app.querySelector("#watch").addEventListener("submit", (ev) => {
    ev.preventDefault();
    location.hash = `#/match/${encodeURIComponent(new FormData(ev.target).get("id"))}`;
  });
}

// ----------------------------------------------------------------------------------------- Match
function namesOf(summary) { return (summary.seats || []).map((s) => s.name); }

function logHTML(events, names) {
  return events.map((e) => `<li>${eventText(e, names)}</li>`).join("");
}

async function matchPage(id) {
  let named = false; // card names arrive with /v1/variants, fetched while the stream opens
  let last = null;
  app.innerHTML = `<h1>Match <code>${esc(id)}</code></h1><div id="status" class="muted">connecting…</div>
    <div id="controls"></div><div id="board"></div><h2>Events</h2><ol id="log" class="log"></ol>`;
  const board = app.querySelector("#board"), log = app.querySelector("#log"), status = app.querySelector("#status");
  const ctrl = new AbortController();
  onCleanup(() => ctrl.abort());
  let stopClocks = () => {};
  onCleanup(() => stopClocks());
  const draw = () => {
    stopClocks();
    board.innerHTML = tableHTML({ view: last.public_view, names: namesOf(last.summary), lang: langOf(last.summary.variant), viewer: -1 });
    markRendered();
    stopClocks = tickClocks(board);
  };
  variants().then(() => { named = true; if (last && board.isConnected && !app.querySelector(".replay-controls")) draw(); }).catch(() => {});
  let over = false, first = true;
  try {
    for await (const u of ndjson(`/v1/matches/${encodeURIComponent(id)}/watch`, { signal: ctrl.signal, headers: watchAuth(id) })) {
      last = u;
      const names = namesOf(u.summary);
      over = u.public_view.match.over;
      draw(); // a finished match shows its end at once, then becomes a replay that opens there
      if (over && first) break;
      first = false;
      log.insertAdjacentHTML("beforeend", logHTML(u.events, names));
      log.scrollTop = log.scrollHeight;
      const delay = Number(u.summary.watch?.delay_moves || 0);
      status.innerHTML = `${esc(u.summary.variant)} · live · version ${u.version}` + (delay ? ` (${delay} moves behind)` : "")
        + (over ? ' · <b>over</b> · <a id="to-replay" href="#/match/' + encodeURIComponent(id) + '?replay">replay</a>' : "");
      document.body.dataset.version = u.version;
      document.body.dataset.over = over ? "1" : "0";
    }
  } catch (err) {
    if (ctrl.signal.aborted) return;
    status.textContent = `error: ${err.message}`;
    if (err.status === 401 || err.status === 403) askWatchToken(id, status);
    return;
  }
  if (over && first) {
    if (!named) await variants().catch(() => {});
    stopClocks();
    await replayView(id, last.summary);
  }
}

// Watch tokens of matches that ask for one: in this page's memory only (never in the URL).
const watchTokens = new Map();
function watchAuth(id) {
  return watchTokens.has(id) ? { Authorization: `Bearer ${watchTokens.get(id)}` } : {};
}

function askWatchToken(id, status) {
  status.insertAdjacentHTML("afterend", `<form id="token" class="row"><label>This match is watched with a token:
    <input name="token" type="password" autocomplete="off" required></label> <button>Watch</button></form>`);
  app.querySelector("#token").addEventListener("submit", (ev) => {
    ev.preventDefault();
    watchTokens.set(id, String(new FormData(ev.target).get("token")).trim());
    route();
  });
}

async function replayView(id, summary) {
  const status = app.querySelector("#status"), board = app.querySelector("#board"), log = app.querySelector("#log");
  let replay;
  try {
    replay = await api(`/v1/matches/${encodeURIComponent(id)}/replay`, { headers: watchAuth(id) });
  } catch (err) {
    status.textContent = `no replay: ${err.message}`;
    return;
  }
  const rec = replay.record, steps = replay.steps;
  const names = (rec.seats || []).map((s) => s.name);
  await variants().catch(() => {}); // the card names and their language (VariantInfo.card_language)
  const lang = langOf(rec.variant);
  let idx = 0, mode = "all", timer = null;
  status.innerHTML = `${esc(rec.variant)} · replay · ${steps.length} versions · result: `
    + (rec.match_result ? rec.match_result.game_points.map((g, s) => `${esc(names[s])} ${g}`).join(" : ") : "");
  const seatOpts = names.map((nm, s) => `<option value="${s}">${esc(nm)}'s view</option>`).join("");
  app.querySelector("#controls").innerHTML = `<div class="replay-controls" role="toolbar" aria-label="replay">
    <button data-go="first" title="first (Home)">«</button><button data-go="prev" title="back (←)">‹</button>
    <button data-go="play" title="play/pause (space)">play</button><button data-go="next" title="forward (→)">›</button>
    <button data-go="last" title="last (End)">»</button>
    <input type="range" id="scrub" min="0" max="${steps.length - 1}" value="0" aria-label="version">
    <span id="pos"></span>
    <select id="mode" aria-label="view"><option value="all">all cards</option><option value="public">spectator</option>${seatOpts}</select></div>`;
  const scrub = app.querySelector("#scrub"), pos = app.querySelector("#pos"), playBtn = app.querySelector('[data-go="play"]');
  function show(i) {
    idx = Math.max(0, Math.min(steps.length - 1, i));
    const st = steps[idx];
    let model;
    if (mode === "all") model = { view: st.public_view, names, lang, viewer: -1, hands: st.hands.map((h) => h.cards), talon: st.talon, laidAway: st.laid_away.map((h) => h.cards) };
    else if (mode === "public") model = { view: st.public_view, names, lang, viewer: -1 };
    else if (!steps[0].seat_views?.length) { loadSeatViews(); return; }
    else model = { view: st.seat_views[Number(mode)], names, lang, viewer: Number(mode) };
    board.innerHTML = tableHTML(model);
    markRendered();
    log.innerHTML = logHTML(steps.slice(0, idx + 1).flatMap((s) => s.events), names);
    log.scrollTop = log.scrollHeight;
    scrub.value = idx;
    pos.textContent = `version ${st.version} / ${steps[steps.length - 1].version}`;
    document.body.dataset.version = st.version;
  }
  let loading = null;
  function loadSeatViews() { // each seat's information sets, fetched the first time a seat's view is asked for
    loading = loading || api(`/v1/matches/${encodeURIComponent(id)}/replay?seat_views=true`, { headers: watchAuth(id) }).then((full) => {
      full.steps.forEach((st, i) => { steps[i].seat_views = st.seat_views; });
      show(idx);
    }).catch((err) => { status.textContent = `no seat views: ${err.message}`; });
  }
    function stop() { if (timer) clearInterval(timer); timer = null; playBtn.textContent = "play"; }
  function toggle() {
    if (timer) return stop();
    playBtn.textContent = "pause";
    timer = setInterval(() => (idx >= steps.length - 1 ? stop() : show(idx + 1)), 600);
  }
  onCleanup(stop);
  app.querySelector("#controls").addEventListener("click", (ev) => {
    const go = ev.target.closest("button")?.dataset.go;
    if (!go) return;
    if (go === "play") return toggle();
    stop();
    show({ first: 0, prev: idx - 1, next: idx + 1, last: steps.length - 1 }[go]);
  });
  scrub.addEventListener("input", () => { stop(); show(Number(scrub.value)); });
  app.querySelector("#mode").addEventListener("change", (ev) => { mode = ev.target.value; show(idx); });
  const keys = (ev) => {
    if (ev.target.closest("input, select, textarea")) return;
    const k = { ArrowLeft: idx - 1, ArrowRight: idx + 1, Home: 0, End: steps.length - 1 }[ev.key];
    if (ev.key === " ") { ev.preventDefault(); toggle(); } else if (k !== undefined) { ev.preventDefault(); stop(); show(k); }
  };
  document.addEventListener("keydown", keys);
  onCleanup(() => document.removeEventListener("keydown", keys));
  show(steps.length - 1); // like a finished game on a board: the end first, Home for the start
}

// ------------------------------------------------------------------------------------------ Play
async function playPage(params) {
  const vs = await variants();
  const chosen = params.get("variant") || "schnapsen-at";
  // connected registered bots too (the server seats "bot:<name>" only where its admin allows it)
  const connected = ((await api("/v1/bots").catch(() => ({ bots: [] }))).bots || []).filter((b) => b.connected);
  app.innerHTML = `<h1>Play against a bot</h1>
    <form id="new" class="row"><label>Variant <select name="variant">${vs.map((v) => `<option value="${esc(v.id)}"${v.id === chosen ? " selected" : ""}>`
      + `${esc(v.name)} (${v.num_players})</option>`).join("")}</select></label>
    <label>Opponent <select name="bot"><option value="house:random">random</option><option value="house:greedy" selected>greedy</option>`
      + `<option value="house:strong">strong</option>${connected.map((b) => `<option value="bot:${esc(b.name)}">`
      + `${esc(b.name)} (connected bot)</option>`).join("")}</select></label>
    <label>Your name <input name="name" value="you" maxlength="32" required></label>
    <label>Clock <select name="clock"><option value="">none</option><option value="300000+2000">5 min + 2 s</option>
      <option value="60000+1000">1 min + 1 s</option></select></label>
    <button>Start</button></form><div id="status" class="muted"></div><div id="actions" class="actions"></div><div id="board"></div>
    <h2>Events</h2><ol id="log" class="log"></ol>`;
  app.querySelector("#new").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const f = new FormData(ev.target);
    startGame(vs.find((v) => v.id === f.get("variant")), String(f.get("bot")), String(f.get("name")), String(f.get("clock")));
  });
}

async function startGame(variant, bot, name, clock = "") {
  const status = app.querySelector("#status"), board = app.querySelector("#board"), log = app.querySelector("#log");
  const actions = app.querySelector("#actions");
  // a connected bot takes one seat (it plays one seat of a match); the others are house bots
  const opponent = bot.includes(":") ? bot : `house:${bot}`;
  const seats = [{ name }, ...Array.from({ length: variant.num_players - 1 },
    (_, i) => ({ name: i === 0 || opponent.startsWith("house:") ? opponent : "house:greedy" }))];
  let created;
  try {
    const body = { variant: variant.id, seats };
    if (clock) {
      const [base, inc] = clock.split("+").map(Number);
      body.time_control = { base_ms: base, increment_ms: inc, scope: "TIME_CONTROL_SCOPE_MATCH" };
    }
    created = await api("/v1/matches", { method: "POST", body: JSON.stringify(body) });
  } catch (err) {
    status.textContent = `could not start: ${err.message}`;
    return;
  }
  const matchId = created.match_id;
  const token = created.seat_tokens[0].token; // in this closure only: never in the URL or storage
  const auth = { Authorization: `Bearer ${token}` };
  const names = seats.map((s) => s.name);
  const lang = langOf(variant.id);
  app.querySelector("#new").hidden = true;
  status.innerHTML = `Match <a href="#/match/${encodeURIComponent(matchId)}" target="_blank">${esc(matchId)}</a> · you are ${esc(name)}`;
  const ctrl = new AbortController();
  onCleanup(() => ctrl.abort());
  let stopClocks = () => {};
  onCleanup(() => stopClocks());
  let busy = false;
  async function act(info, id) {
    if (busy) return;
    busy = true;
    try {
      await api(`/v1/matches/${encodeURIComponent(matchId)}/seats/0/actions`, { method: "POST", headers: auth,
        body: JSON.stringify({ expected_version: info.version, action_id: id }) });
    } catch (err) {
      status.textContent = `action refused: ${err.message}`;
    } finally {
      busy = false;
    }
  }
  try {
    for await (const u of ndjson(`/v1/matches/${encodeURIComponent(matchId)}/seats/0/stream`, { headers: auth, signal: ctrl.signal })) {
      const info = u.information_set;
      stopClocks();
      board.innerHTML = tableHTML({ view: info, names, lang, viewer: 0, legal: info.legal_actions });
      stopClocks = tickClocks(board);
      log.insertAdjacentHTML("beforeend", logHTML(u.events, names));
      log.scrollTop = log.scrollHeight;
      const others = info.legal_actions.filter((a) => a.kind !== "play");
      actions.innerHTML = info.legal_actions.length
        ? `<span>Your turn${others.length ? ":" : " — click a card"}</span> ` + others.map((a) => `<button type="button" data-action="${a.id}" class="act">${esc(a.text)}</button>`).join(" ")
        : "";
      for (const el of document.querySelectorAll("[data-action]")) {
        if (el.dataset.action !== "") el.addEventListener("click", () => act(info, Number(el.dataset.action)));
      }
      document.body.dataset.version = info.version;
      if (info.match.over) {
        const mine = info.team_of_seat[0];
        const result = Number(info.match.winner) === Number(mine) ? "You won the match" : Number(info.match.winner) < 0 ? "The match is drawn" : "You lost the match";
        actions.innerHTML = `<b id="result">${result}</b> <a href="#/match/${encodeURIComponent(matchId)}">replay it</a> · <a href="#/play">play again</a>`;
      }
    }
  } catch (err) {
    if (!ctrl.signal.aborted) status.textContent = `error: ${err.message}`;
  }
}

// ---------------------------------------------------------------------------------------- Router
async function route() {
  for (const fn of cleanup.splice(0)) fn();
  const [path, query] = location.hash.replace(/^#/, "").split("?");
  const params = new URLSearchParams(query || "");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  delete document.body.dataset.version;
  try {
    if (parts[0] === "match" && parts[1]) {
      if (params.has("replay")) {
        app.innerHTML = `<h1>Match <code>${esc(parts[1])}</code></h1><div id="status" class="muted"></div><div id="controls"></div>`
          + '<div id="board"></div><h2>Events</h2><ol id="log" class="log"></ol>';
        await variants();
        await replayView(parts[1], null);
      } else await matchPage(parts[1]);
    } else if (parts[0] === "play") await playPage(params);
    else if (parts[0] === "ladder" && parts[1]) await ladderPage(app, parts[1], { api, ndjson, onCleanup });
    else await homePage();
  } catch (err) {
    app.innerHTML = `<p class="error">${esc(err.message)}</p>`;
  }
  document.body.dataset.ready = "1";
}

window.addEventListener("hashchange", route);
route();
