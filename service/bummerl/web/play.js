// The Play page: a person against bots. The seat (match id and seat token) is kept in this tab's
// sessionStorage, so going Home and Back or reloading resumes the game (#/play/<match id>); the
// token is never in the URL. Resigning asks for a confirmation. Each completed trick is shown for
// a moment (the bots' answers), and each deal's result until the player goes on (or 7 s).
import { esc, langOf, namesInText } from "./cards.js";
import { announce, api, markContent, ndjson, onCleanup, setTitle, variants } from "./net.js";
import { HOLD } from "./match.js";
import { completedTrickModel, eventText, seatNames, tableHTML, tickClocks, winnerText } from "./table.js";

const SEAT_KEY = "bummerl.seat.";

function saved(matchId) {
  try { return JSON.parse(sessionStorage.getItem(SEAT_KEY + matchId) || "null"); } catch { return null; }
}

function savedGames() {
  const out = [];
  try {
    for (let i = 0; i < sessionStorage.length; i++) {
      const k = sessionStorage.key(i);
      if (k.startsWith(SEAT_KEY)) out.push(JSON.parse(sessionStorage.getItem(k)));
    }
  } catch { /* storage off */ }
  return out.filter((g) => g && !g.over);
}

function keep(game) {
  try { sessionStorage.setItem(SEAT_KEY + game.matchId, JSON.stringify(game)); } catch { /* storage off */ }
}

export async function playPage(app, params, matchId) {
  if (matchId) return resume(app, matchId);
  setTitle("Play");
  const vs = await variants();
  const chosen = params.get("variant") || "schnapsen-at";
  // connected registered bots too (the server seats "bot:<name>" only where its admin allows it)
  const connected = ((await api("/v1/bots").catch(() => ({ bots: [] }))).bots || []).filter((b) => b.connected);
  const running = savedGames();
  app.innerHTML = `<h1>Play against a bot</h1>${running.length ? `<p id="running-games">Your game${running.length > 1 ? "s" : ""} in this tab: `
      + running.map((g) => `<a href="#/play/${encodeURIComponent(g.matchId)}">${esc(g.names.join(" – "))}</a>`).join(", ") + "</p>" : ""}
    <form id="new" class="row form"><label>Variant <select name="variant">${vs.map((v) => `<option value="${esc(v.id)}"${v.id === chosen ? " selected" : ""}>`
      + `${esc(v.name)} (${v.num_players})</option>`).join("")}</select></label>
    <label>Opponent <select name="bot"><option value="house:random">random</option><option value="house:greedy" selected>greedy</option>`
      + `<option value="house:strong">strong</option>${connected.map((b) => `<option value="bot:${esc(b.name)}">`
      + `${esc(b.name)} (connected bot)</option>`).join("")}</select></label>
    <label>Your name <input name="name" value="you" maxlength="32" required></label>
    <label>Clock <select name="clock"><option value="">none</option><option value="300000+2000">5 min + 2 s</option>
      <option value="60000+1000">1 min + 1 s</option></select></label>
    <button>Start</button></form><div id="status" class="muted" role="status"></div>`;
  markContent();
  app.querySelector("#new").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const f = new FormData(ev.target);
    const variant = vs.find((v) => v.id === f.get("variant"));
    const bot = String(f.get("bot")), name = String(f.get("name")), clock = String(f.get("clock"));
    // a connected bot takes one seat (it plays one seat of a match); the others are house bots
    const opponent = bot.includes(":") ? bot : `house:${bot}`;
    const seats = [{ name }, ...Array.from({ length: variant.num_players - 1 },
      (_, i) => ({ name: i === 0 || opponent.startsWith("house:") ? opponent : "house:greedy" }))];
    const body = { variant: variant.id, seats };
    if (clock) {
      const [base, inc] = clock.split("+").map(Number);
      body.time_control = { base_ms: base, increment_ms: inc, scope: "TIME_CONTROL_SCOPE_MATCH" };
    }
    try {
      const created = await api("/v1/matches", { method: "POST", body: JSON.stringify(body) });
      keep({ matchId: created.match_id, token: created.seat_tokens[0].token, seat: 0, variant: variant.id,
        names: seatNames(seats.map((s) => s.name)), over: false });
      location.hash = `#/play/${encodeURIComponent(created.match_id)}`;
    } catch (err) {
      app.querySelector("#status").textContent = `could not start: ${err.message}`;
    }
  });
}

async function resume(app, matchId) {
  const game = saved(matchId);
  setTitle(`Play · match ${matchId}`);
  if (!game) {
    app.innerHTML = `<h1>Play</h1><p id="status">This tab holds no seat of match <code>${esc(matchId)}</code>:
      <a href="#/match/${encodeURIComponent(matchId)}">watch it</a> or <a href="#/play">start a game</a>.</p>`;
    return;
  }
  await variants().catch(() => {});
  const { token, seat, names } = game;
  const auth = { Authorization: `Bearer ${token}` };
  const lang = langOf(game.variant);
  app.innerHTML = `<h1 class="play">Play: ${esc(names.join(" – "))}</h1><div id="status" class="muted">Match <a href="#/match/${encodeURIComponent(matchId)}"
      target="_blank">${esc(matchId)}</a> · you are ${esc(names[seat])} · <button type="button" id="resign">resign</button>
      <span id="resign-confirm" hidden>Resign this match? <button type="button" id="resign-yes">yes, resign</button>
      <button type="button" id="resign-no">no, play on</button></span></div>
    <h2 class="sr-only">Table</h2><div id="board" class="playing"></div><div id="actions" class="actions" aria-live="polite"></div>
    <h2 id="log-h">Moves</h2><ol id="log" class="log" tabindex="0" role="log" aria-labelledby="log-h"></ol>`;
  const status = app.querySelector("#status"), board = app.querySelector("#board"), log = app.querySelector("#log");
  const actions = app.querySelector("#actions");
  const base = `/v1/matches/${encodeURIComponent(matchId)}/seats/${seat}`;
  app.querySelector("#resign").addEventListener("click", () => { app.querySelector("#resign-confirm").hidden = false; });
  app.querySelector("#resign-no").addEventListener("click", () => { app.querySelector("#resign-confirm").hidden = true; });
  app.querySelector("#resign-yes").addEventListener("click", async () => {
    app.querySelector("#resign-confirm").hidden = true;
    await api(`${base}/resign`, { method: "POST", headers: auth, body: "{}" }).catch((err) => { status.append(` resign refused: ${err.message}`); });
  });
  const ctrl = new AbortController();
  onCleanup(() => ctrl.abort());
  let stopClocks = () => {}, busy = false, prev = null, hold = Promise.resolve();
  onCleanup(() => stopClocks());
  async function act(info, id) {
    if (busy) return;
    busy = true;
    try {
      await api(`${base}/actions`, { method: "POST", headers: auth, body: JSON.stringify({ expected_version: info.version, action_id: id }) });
    } catch (err) {
      actions.textContent = `action refused: ${err.message}`;
    } finally {
      busy = false;
    }
  }
  const draw = (model) => {
    stopClocks();
    board.innerHTML = tableHTML(model);
    stopClocks = tickClocks(board);
  };
  // the completed trick (what the bots answered) stays for a moment; a deal's result until "next deal"
  const pause = (ms) => new Promise((ok) => { const t = setTimeout(ok, ms); onCleanup(() => clearTimeout(t)); });
  async function interlude(u) {
    if (!prev) return;
    const trick = u.events.find((e) => e.trick_completed)?.trick_completed;
    const ended = u.events.find((e) => e.deal_ended)?.deal_ended;
    const base0 = { view: prev, names, lang, viewer: seat };
    if (trick) {
      actions.innerHTML = "";
      draw(completedTrickModel(base0, trick));
      document.body.dataset.frame = `${u.information_set.version}t`;
      await pause(Number(trick.cards.at(-1).seat) === seat ? HOLD.trick / 3 : HOLD.trick); // the bots' answers longer
    }
    if (ended && !u.information_set.match.over) {
      const m = trick ? completedTrickModel(base0, trick) : base0;
      draw({ ...m, dealResult: ended.result });
      document.body.dataset.frame = `${u.information_set.version}d`;
      // until "next deal", or a while (a clock may be running for the next deal's first move)
      actions.innerHTML = '<button type="button" id="next-deal" class="act">next deal</button>';
      await new Promise((ok) => {
        app.querySelector("#next-deal").addEventListener("click", ok);
        const t = setTimeout(ok, HOLD.deal * 2);
        onCleanup(() => { clearTimeout(t); ok(); });
      });
    }
  }
  try {
    for await (const u of ndjson(`${base}/stream`, { headers: auth, signal: ctrl.signal })) {
      hold = hold.then(() => showUpdate(u));
    }
  } catch (err) {
    if (!ctrl.signal.aborted) status.append(` error: ${err.message}`);
  }
  async function showUpdate(u) {
    if (ctrl.signal.aborted) return;
    await interlude(u);
    if (ctrl.signal.aborted) return;
    const info = u.information_set;
    prev = info;
    draw({ view: info, names, lang, viewer: seat, legal: info.legal_actions });
    markContent();
    const lines = u.events.map((e) => eventText(e, names, lang));
    log.insertAdjacentHTML("beforeend", lines.map((l) => `<li>${l}</li>`).join(""));
    log.scrollTop = log.scrollHeight;
    const others = info.legal_actions.filter((a) => a.kind !== "play");
    actions.innerHTML = info.legal_actions.length
      ? `<span>Your turn${others.length ? ":" : " — tap a card"}</span> ` + others.map((a) => `<button type="button" data-action="${a.id}" `
        + `data-text="${esc(a.text)}" class="act">${namesInText(a.text, lang)}</button>`).join(" ")
      : "";
    announce(lines.length ? lines.map((l) => l.replace(/<[^>]+>/g, "")).join(". ") + (info.legal_actions.length ? ". Your turn." : "") : "");
    for (const el of board.querySelectorAll("[data-action]")) {
      if (el.dataset.action !== "") el.addEventListener("click", () => act(info, Number(el.dataset.action)));
    }
    for (const el of actions.querySelectorAll("[data-action]")) el.addEventListener("click", () => act(info, Number(el.dataset.action)));
    document.body.dataset.version = info.version;
    document.body.dataset.frame = String(info.version);
    if (info.match.over) {
      keep({ ...game, over: true });
      app.querySelector("#resign").hidden = true;
      const mine = info.team_of_seat[seat];
      const result = Number(info.match.winner) === Number(mine) ? "You won the match" : Number(info.match.winner) < 0 ? "The match is drawn" : "You lost the match";
      actions.innerHTML = `<b id="result">${result}</b> (${winnerText(info, names)}) <a href="#/match/${encodeURIComponent(matchId)}">replay it</a> · <a href="#/play">play again</a>`;
    }
  }
  await hold;
}
