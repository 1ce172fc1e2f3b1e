// The Match page: live (a paced queue per viewer: each completed trick and each deal's result held
// for a moment, a speed control, catch up to live) and the replay of a finished match (every
// completed trick and deal result a step of its own, the position and view in the URL, a clickable
// move list, the record and a transcript to download), with the server's post-game analysis beside
// each move (the game points it gave away, from what its seat knew) and a summary per seat.
import { chancesHTML } from "./chances.js";
import { cardName, esc, langOf } from "./cards.js";
import { announce, api, apiProgress, download, markRendered, ndjson, onCleanup, setTitle, variants } from "./net.js";
import { completedTrickModel, eventText, seatNames, tableHTML, tickClocks } from "./table.js";

/** Milliseconds each kind of frame stays on screen at speed 1 before the next is shown. */
export const HOLD = { state: 700, trick: 1500, deal: 3500 };
const SPEEDS = [["0.5", "½×"], ["1", "1×"], ["2", "2×"], ["4", "4×"], ["live", "live (no delay)"]];
const SPEED_KEY = "bummerl.watchSpeed";

function storedSpeed() {
  try { return localStorage.getItem(SPEED_KEY) || "1"; } catch { return "1"; }
}

function speedSelect(id, value) {
  return `<label>speed <select id="${id}">${SPEEDS.map(([v, t]) => `<option value="${v}"${v === value ? " selected" : ""}>${t}</option>`).join("")}</select></label>`;
}

function namesOf(summary) { return seatNames((summary.seats || []).map((s) => s.name)); }

const stripTags = (html) => { const d = document.createElement("div"); d.innerHTML = html; return d.textContent; };

/** The frames of one step of a match: its completed trick (drawn on the state before), its deal's
 * result, then the state itself. ``key``: "V", "Vt" (trick) or "Vd" (deal result). */
function framesOfStep(version, events, hasBefore) {
  const out = [];
  let trick = null;
  for (const e of events) { // live, one update may hold several versions: each frame is named by its event's
    const v = Number(e.version) || version;
    if (e.trick_completed && hasBefore) { trick = e.trick_completed; out.push({ kind: "trick", key: `${v}t`, trick }); }
    if (e.deal_ended && hasBefore) out.push({ kind: "deal", key: `${v}d`, trick, result: e.deal_ended.result });
  }
  out.push({ kind: "state", key: String(version) });
  return out;
}

/** The frame key of each event of a step (the move list links there). */
function eventKeys(version, events) {
  const hasTrick = events.some((e) => e.trick_completed), hasDeal = events.some((e) => e.deal_ended);
  let key = hasTrick ? `${version}t` : hasDeal ? `${version}d` : String(version);
  return events.map((e) => {
    const k = e.deal_ended ? `${version}d` : key;
    if (e.trick_completed) key = hasDeal ? `${version}d` : String(version);
    if (e.deal_ended) key = String(version);
    return k;
  });
}

function frameModel(frame, model) {
  let m = model;
  if (frame.trick) m = completedTrickModel(m, frame.trick);
  if (frame.kind === "deal") m = { ...m, dealResult: frame.result, legal: [] };
  return m;
}

// Watch tokens of matches that ask for one: in this page's memory only (never in the URL).
const watchTokens = new Map();
function watchAuth(id) {
  return watchTokens.has(id) ? { Authorization: `Bearer ${watchTokens.get(id)}` } : {};
}

function askWatchToken(app, id, status, reroute) {
  status.insertAdjacentHTML("afterend", `<form id="token" class="row"><label>This match is watched with a token:
    <input name="token" type="password" autocomplete="off" required></label> <button>Watch</button></form>`);
  app.querySelector("#token").addEventListener("submit", (ev) => {
    ev.preventDefault();
    watchTokens.set(id, String(new FormData(ev.target).get("token")).trim());
    reroute();
  });
}

function skeleton(app, id) {
  setTitle(`Match ${id}`);
  app.innerHTML = `<h1>Match <code>${esc(id)}</code></h1><div id="status" class="muted" role="status">connecting…</div>
    <div id="controls"></div><h2 class="sr-only">Table</h2><div id="board"></div>
    <h2 id="log-h">Moves</h2><ol id="log" class="log" tabindex="0" role="log" aria-labelledby="log-h"></ol>`;
}

export async function matchPage(app, id, params, reroute) {
  skeleton(app, id);
  if (params.has("replay")) {
    await variants();
    return replayView(app, id, params);
  }
  const board = app.querySelector("#board"), log = app.querySelector("#log"), status = app.querySelector("#status");
  const controls = app.querySelector("#controls");
  const ctrl = new AbortController();
  onCleanup(() => ctrl.abort());
  let stopClocks = () => {}, timer = null;
  onCleanup(() => { stopClocks(); clearTimeout(timer); });
  variants().catch(() => {});
  let speed = storedSpeed(), names = [], lang = "en", shownVersion = 0, arrived = 0, over = false;
  const queue = [];
  let prevView = null, first = true;
  const draw = (model) => {
    stopClocks();
    board.innerHTML = tableHTML(model);
    markRendered();
    stopClocks = tickClocks(board);
  };
  const behindText = () => {
    const behind = arrived - shownVersion;
    const el = app.querySelector("#behind"), btn = app.querySelector("#catch-up");
    if (el) el.textContent = behind > 0 ? `${behind} version${behind === 1 ? "" : "s"} behind live` : "live";
    if (btn) btn.hidden = behind <= 0;
  };
  const show = (item) => {
    if (item.kind !== "state") {
      draw(frameModel(item, { view: item.view, names, lang, viewer: -1 }));
      document.body.dataset.frame = item.key;
      return;
    }
    const u = item.u;
    draw({ view: u.public_view, names, lang, viewer: -1 });
    const bar = app.querySelector("#chances-box");
    if (bar) bar.innerHTML = chancesHTML(u.public_view, names, esc);
    const lines = u.events.map((e) => eventText(e, names, lang));
    log.insertAdjacentHTML("beforeend", lines.map((l) => `<li>${l}</li>`).join(""));
    log.scrollTop = log.scrollHeight;
    if (lines.length) announce(stripTags(lines.at(-1)));
    shownVersion = Number(u.version);
    over = u.public_view.match.over;
    const delay = Number(u.summary.watch?.delay_moves || 0);
    app.querySelector("#live-state").innerHTML = `${esc(u.summary.variant)} · version ${u.version}` + (delay ? ` (the match is shown ${delay} moves late)` : "")
      + (over ? ` · <b>over</b> · <a id="to-replay" href="#/match/${encodeURIComponent(id)}?replay">replay</a>` : "");
    document.body.dataset.frame = item.key;
    document.body.dataset.version = u.version;
    document.body.dataset.over = over ? "1" : "0";
    behindText();
  };
  const pump = () => {
    timer = null;
    if (!queue.length) return;
    if (speed === "live") { // no delay: the newest state at once
      const last = [...queue].reverse().find((x) => x.kind === "state");
      queue.length = 0;
      if (last) show(last);
      return;
    }
    const item = queue.shift();
    show(item);
    timer = setTimeout(pump, HOLD[item.kind] / Number(speed));
  };
  const catchUp = () => {
    clearTimeout(timer);
    timer = null;
    const last = [...queue].reverse().find((x) => x.kind === "state");
    queue.length = 0;
    if (last) show(last);
  };
  try {
    for await (const u of ndjson(`/v1/matches/${encodeURIComponent(id)}/watch`, { signal: ctrl.signal, headers: watchAuth(id) })) {
      if (first) {
        names = namesOf(u.summary);
        lang = langOf(u.summary.variant);
        setTitle(`${names.join(" – ")} · match ${id}`);
        if (u.public_view.match.over) { // a finished match shows its end at once, then opens as its replay there
          draw({ view: u.public_view, names, lang, viewer: -1 });
          break;
        }
        controls.innerHTML = `<div class="row live-controls">${speedSelect("speed", speed)}
          <span id="behind" role="status">live</span> <button type="button" id="catch-up" hidden>catch up to live</button></div>`;
        status.innerHTML = '<span id="live-state"></span><div id="chances-box" aria-live="off"></div>';
        app.querySelector("#speed").addEventListener("change", (ev) => {
          speed = ev.target.value;
          try { localStorage.setItem(SPEED_KEY, speed); } catch { /* private mode */ }
          if (!timer) pump();
        });
        app.querySelector("#catch-up").addEventListener("click", catchUp);
        show({ kind: "state", key: String(u.version), u });
        first = false;
        prevView = u.public_view;
        arrived = Number(u.version);
        continue;
      }
      for (const f of framesOfStep(u.version, u.events, true)) {
        queue.push(f.kind === "state" ? { ...f, u } : { ...f, view: prevView });
      }
      prevView = u.public_view;
      arrived = Number(u.version);
      behindText();
      if (!timer) pump();
    }
  } catch (err) {
    if (ctrl.signal.aborted) return;
    status.textContent = `error: ${err.message}`;
    if (err.status === 401 || err.status === 403) askWatchToken(app, id, status, reroute);
    else if (/ladder game/.test(err.message)) {
      const lad = params.get("ladder");
      status.insertAdjacentHTML("afterend", `<p id="back">${lad ? `<a href="#/ladder/${encodeURIComponent(lad)}">back to the ladder</a>`
        + " (its page links this game once it can be watched)" : '<a href="#/">back to the home page</a>'}</p>`);
    }
    return;
  }
  if (first) { // over at once: the replay, opening at the end
    await variants().catch(() => {});
    stopClocks();
    return replayView(app, id, params);
  }
}

// Replays (finished matches never change) and their seat views, kept for this page's life.
const replays = new Map();
// Done analyses, likewise.
const analyses = new Map();

const fmtLoss = (x) => Number(x).toFixed(2);
/** An action's text with its card codes in local names (plain text: esc() it). */
const localText = (text, lang) => String(text).replace(/(?<![A-Za-z0-9])([ATKQJ9][CSHD])(?![A-Za-z0-9])/g, (c) => cardName(c, lang));

/** The badge beside a move: its loss in game points and its kind (nothing for a move not valued). */
function lossBadge(d, lang) {
  if (!d.valued) return "";
  const best = (d.values || []).find((v) => v.action_id === d.best_action_id) || {};
  const played = (d.values || []).find((v) => v.action_id === d.action_id) || {};
  const title = `expected game points: played ${localText(d.action_text, lang)} ${fmtLoss(played.value)}, `
    + `best ${localText(best.action_text, lang)} ${fmtLoss(best.value)}`;
  const text = Number(d.loss) > 0.005 ? `−${fmtLoss(d.loss)}${d.kind ? ` ${d.kind}` : ""}` : "best";
  return ` <span class="loss ${esc(d.kind || "ok")}" title="${esc(title)}">${esc(text)}</span>`;
}

/** The summary panel of a done analysis: a row per seat, each seat's worst moves as links. */
function analysisHTML(a, names, lang, hrefOfVersion) {
  const st = a.settings || {};
  const valued = (a.decisions || []).filter((d) => d.valued);
  if (!valued.length) return '<p class="muted" id="analysis-done">No decision of this match is valued (contract deals are not analysed yet).</p>';
  const phases = ["talon_open", "talon_closed", "endgame"];
  const rows = (a.seats || []).map((s) => {
    const by = Object.fromEntries((s.phases || []).map((p) => [p.phase, `${p.inaccuracies} / ${p.mistakes} / ${p.blunders}`]));
    const worst = valued.filter((d) => d.seat === s.seat && Number(d.loss) > 0.005).sort((x, y) => y.loss - x.loss).slice(0, 3)
      .map((d) => `<a href="${hrefOfVersion(d.version)}" data-v="${esc(d.version)}">${esc(localText(d.action_text, lang))} −${fmtLoss(d.loss)}</a>`).join(", ");
    return `<tr><th scope="row">${esc(names[s.seat] ?? s.name)}</th><td>${esc(s.decisions)}</td><td>${fmtLoss(s.mean_loss)}</td>
      <td>${fmtLoss(s.total_loss)}</td>${phases.map((p) => `<td>${esc(by[p] || "")}</td>`).join("")}<td>${worst || "–"}</td></tr>`;
  }).join("");
  return `<div class="scroll"><table class="analysis" id="analysis-done"><caption>Game points lost per decision, from what each seat knew
    (${esc(st.samples)} worlds sampled per decision${Number(st.budget_ms) ? `, at most ${esc(st.budget_ms)} ms each` : ""})</caption>
    <thead><tr><th scope="col">seat</th><th scope="col">decisions</th><th scope="col">mean loss</th><th scope="col">total loss</th>
    <th scope="col">talon open</th><th scope="col">talon closed</th><th scope="col">endgame</th><th scope="col">worst moves</th></tr></thead>
    <tbody>${rows}</tbody></table></div>
    <p class="muted">Per phase: inaccuracies / mistakes / blunders (a loss of at least ${esc(st.inaccuracy)}, ${esc(st.mistake)},
    ${esc(st.blunder)} game points).</p>`;
}

async function replayView(app, id, params) {
  const status = app.querySelector("#status"), board = app.querySelector("#board"), log = app.querySelector("#log");
  let replay = replays.get(id);
  try {
    if (!replay) {
      status.textContent = "loading the replay…";
      replay = await api(`/v1/matches/${encodeURIComponent(id)}/replay`, { headers: watchAuth(id) });
      replays.set(id, replay);
      while (replays.size > 4) replays.delete(replays.keys().next().value);
    }
  } catch (err) {
    status.textContent = `no replay: ${err.message}`;
    return;
  }
  const rec = replay.record, steps = replay.steps;
  const names = seatNames((rec.seats || []).map((s) => s.name));
  const lang = langOf(rec.variant);
  setTitle(`Replay ${names.join(" – ")} · match ${id}`);
  const frames = [];
  steps.forEach((st, i) => framesOfStep(st.version, st.events, i > 0).forEach((f) => frames.push({ ...f, i })));
  const byKey = new Map(frames.map((f, k) => [f.key, k]));
  let idx = frames.length - 1, mode = params.get("view") || "all", timer = null, speed = params.get("speed") || "1";
  if (byKey.has(params.get("at"))) idx = byKey.get(params.get("at"));
  if (!(mode === "all" || mode === "public" || /^\d$/.test(mode) && Number(mode) < names.length)) mode = "all";
  status.innerHTML = `${esc(rec.variant)} · replay · ${steps.length} versions · result: `
    + (rec.match_result ? rec.match_result.game_points.map((g, s) => `${esc(names[s])} ${g}`).join(" : ") : "");
  const seatOpts = names.map((nm, s) => `<option value="${s}">${esc(nm)}'s view</option>`).join("");
  app.querySelector("#controls").innerHTML = `<div class="replay-controls" role="toolbar" aria-label="replay">
    <button type="button" data-go="first" title="first (Home)" aria-label="first">«</button>
    <button type="button" data-go="prev" title="back (←)" aria-label="back">‹</button>
    <button type="button" data-go="play" title="play/pause (space)">play</button>
    <button type="button" data-go="next" title="forward (→)" aria-label="forward">›</button>
    <button type="button" data-go="last" title="last (End)" aria-label="last">»</button>
    <input type="range" id="scrub" min="0" max="${frames.length - 1}" value="0" aria-label="position">
    <span id="pos"></span>
    <label class="sr-only" for="mode">view</label><select id="mode"><option value="all">all cards</option><option value="public">spectator</option>${seatOpts}</select>
    ${speedSelect("replay-speed", speed)}</div>
    <div class="row downloads"><button type="button" id="dl-record">download the record (JSON)</button>
    <button type="button" id="dl-transcript">download a transcript</button> <a id="permalink" href="">link to this moment</a></div>`;
  app.querySelector("#mode").value = mode;
  const scrub = app.querySelector("#scrub"), pos = app.querySelector("#pos"), playBtn = app.querySelector('[data-go="play"]');
  // the move list: every event, each a link to its moment
  const hrefOf = (key) => `#/match/${encodeURIComponent(id)}?replay&at=${key}&view=${mode}`;
  const items = [], keyOfVersion = new Map();
  steps.forEach((st) => {
    const keys = eventKeys(st.version, st.events);
    if (keys.length) keyOfVersion.set(String(st.version), keys[0]);
    st.events.forEach((e, k) => items.push([keys[k], eventText(e, names, lang), st.version]));
  });
  log.innerHTML = items.map(([key, text, v]) => `<li data-at="${key}" data-v="${esc(v)}"><a href="${hrefOf(key)}" data-at="${key}">${text}</a></li>`).join("");
  log.insertAdjacentHTML("afterend", '<h2 id="analysis-h">Analysis</h2><div id="analysis"><p class="muted">loading the analysis…</p></div>');
  const panel = app.querySelector("#analysis");
  const hrefOfVersion = (v) => hrefOf(keyOfVersion.get(String(v)) || String(v));
  let analysisTimer = null, left = false;
  onCleanup(() => { left = true; clearTimeout(analysisTimer); });
  async function loadAnalysis() { // asked again as the server's retry hint says while it is being computed
    let a = analyses.get(id);
    try {
      if (!a) a = await api(`/v1/matches/${encodeURIComponent(id)}/analysis`, { headers: watchAuth(id) });
    } catch (err) {
      if (!left) panel.innerHTML = `<p class="muted">no analysis: ${esc(err.message)}</p>`;
      return;
    }
    if (left || !panel.isConnected) return;
    if (a.state === "pending") {
      panel.innerHTML = '<p class="muted" id="analysis-pending">The server is analysing this match… <progress></progress></p>';
      document.body.dataset.analysis = "pending";
      analysisTimer = setTimeout(loadAnalysis, Math.max(300, Number(a.retry_after_ms) || 2000));
      return;
    }
    analyses.set(id, a);
    while (analyses.size > 4) analyses.delete(analyses.keys().next().value);
    for (const d of a.decisions || []) {
      const li = log.querySelector(`li[data-v="${Number(d.version)}"]`);
      if (li && d.valued) li.insertAdjacentHTML("beforeend", lossBadge(d, lang));
    }
    panel.innerHTML = analysisHTML(a, names, lang, hrefOfVersion);
    document.body.dataset.analysis = "done";
  }
  loadAnalysis();
  let current = null;
  function highlight(key) {
    if (current) current.removeAttribute("aria-current");
    current = log.querySelector(`li[data-at="${key}"]`) || current;
    if (!current) return;
    current.setAttribute("aria-current", "step");
    const top = current.offsetTop - log.offsetTop;
    if (top < log.scrollTop || top > log.scrollTop + log.clientHeight - current.offsetHeight) log.scrollTop = top - log.clientHeight / 2;
  }
  const seatViews = replays.get(`${id}/seats`);
  if (seatViews) steps.forEach((st, i) => { st.seat_views = seatViews[i]; });
  let loading = null;
  function loadSeatViews() { // each seat's information sets, fetched (once) the first time a seat's view is asked for
    board.innerHTML = `<p class="loading" id="loading" role="status" aria-busy="true">Loading ${esc(names[Number(mode)])}'s view… <progress></progress> <span id="loaded"></span></p>`;
    loading = loading || apiProgress(`/v1/matches/${encodeURIComponent(id)}/replay?seat_views=true`, { headers: watchAuth(id),
      progress: (n) => { const el = app.querySelector("#loaded"); if (el) el.textContent = `${Math.round(n / 1024)} KB`; } }).then((full) => {
      replays.set(`${id}/seats`, full.steps.map((st) => st.seat_views));
      full.steps.forEach((st, i) => { steps[i].seat_views = st.seat_views; });
      if (board.isConnected) show(idx);
    }).catch((err) => { status.textContent = `no seat views: ${err.message}`; });
  }
  function show(i) {
    idx = Math.max(0, Math.min(frames.length - 1, i));
    const f = frames[idx];
    const st = steps[f.kind === "state" ? f.i : f.i - 1];
    let model;
    if (mode === "all") model = { view: st.public_view, names, lang, viewer: -1, hands: st.hands.map((h) => h.cards), talon: st.talon, laidAway: st.laid_away.map((h) => h.cards) };
    else if (mode === "public") model = { view: st.public_view, names, lang, viewer: -1 };
    else if (!st.seat_views?.length) { history.replaceState(null, "", hrefOf(f.key)); return loadSeatViews(); }
    else model = { view: st.seat_views[Number(mode)], names, lang, viewer: Number(mode) };
    board.innerHTML = tableHTML(frameModel(f, model));
    markRendered();
    highlight(f.key);
    scrub.value = idx;
    pos.textContent = `version ${st.version}${f.kind === "trick" ? " · trick complete" : f.kind === "deal" ? " · deal over" : ""} / ${steps.at(-1).version}`;
    document.body.dataset.version = st.version;
    document.body.dataset.frame = f.key;
    history.replaceState(null, "", hrefOf(f.key) + (speed !== "1" ? `&speed=${speed}` : ""));
    app.querySelector("#permalink").href = location.hash;
  }
  function stop() { if (timer) clearTimeout(timer); timer = null; playBtn.textContent = "play"; }
  function tick() {
    if (idx >= frames.length - 1) return stop();
    show(idx + 1);
    timer = setTimeout(tick, speed === "live" ? 60 : HOLD[frames[idx].kind] / Number(speed));
  }
  function toggle() {
    if (timer) return stop();
    playBtn.textContent = "pause";
    if (idx >= frames.length - 1) show(0);
    timer = setTimeout(tick, 0);
  }
  onCleanup(stop);
  app.querySelector("#controls").addEventListener("click", (ev) => {
    const go = ev.target.closest("button")?.dataset.go;
    if (!go) return;
    if (go === "play") return toggle();
    stop();
    show({ first: 0, prev: idx - 1, next: idx + 1, last: frames.length - 1 }[go]);
  });
  log.addEventListener("click", (ev) => {
    const a = ev.target.closest("a[data-at]");
    if (!a || !byKey.has(a.dataset.at)) return;
    ev.preventDefault();
    stop();
    show(byKey.get(a.dataset.at));
  });
  panel.addEventListener("click", (ev) => { // a worst move: its moment
    const a = ev.target.closest("a[data-v]"), key = a && keyOfVersion.get(a.dataset.v);
    if (!key || !byKey.has(key)) return;
    ev.preventDefault();
    stop();
    show(byKey.get(key));
  });
  scrub.addEventListener("input", () => { stop(); show(Number(scrub.value)); });
  app.querySelector("#mode").addEventListener("change", (ev) => {
    mode = ev.target.value;
    for (const a of log.querySelectorAll("a[data-at]")) a.href = hrefOf(a.dataset.at);
    for (const a of panel.querySelectorAll("a[data-v]")) a.href = hrefOfVersion(a.dataset.v);
    show(idx);
  });
  app.querySelector("#replay-speed").addEventListener("change", (ev) => { speed = ev.target.value; show(idx); });
  app.querySelector("#dl-record").addEventListener("click", () => download(`bummerl-${id}.json`, JSON.stringify(rec, null, 1)));
  app.querySelector("#dl-transcript").addEventListener("click", () => {
    const head = [`Bummerl match ${id}`, `variant ${rec.variant}`, `seats: ${names.map((n, s) => `${s} ${n}`).join(", ")}`,
      rec.match_result ? `result: ${rec.match_result.game_points.map((g, s) => `${names[s]} ${g}`).join(" : ")}` : "", ""];
    const lines = steps.flatMap((st) => st.events.map((e) => `${String(st.version).padStart(4)}  ${stripTags(eventText(e, names, lang))}`));
    download(`bummerl-${id}.txt`, [...head, ...lines, ""].join("\n"), "text/plain");
  });
  const keys = (ev) => {
    if (ev.target.closest("input, select, textarea")) return;
    const k = { ArrowLeft: idx - 1, ArrowRight: idx + 1, Home: 0, End: frames.length - 1 }[ev.key];
    if (ev.key === " " && !ev.target.closest("button, a")) { ev.preventDefault(); toggle(); } else if (k !== undefined) { ev.preventDefault(); stop(); show(k); }
  };
  document.addEventListener("keydown", keys);
  onCleanup(() => document.removeEventListener("keydown", keys));
  show(idx); // like a finished game on a board: the end first (or the linked moment), Home for the start
}
