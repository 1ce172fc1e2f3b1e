// The card table of one moment of a match, drawn from an information set (a seat's, or the
// public view of seat -1) and, in a replay with open cards, every hand and the talon.
import { cardSVG, cardText, esc, suitSymbol } from "./cards.js";

const POSITIONS = { 2: ["s", "n"], 3: ["s", "w", "e"], 4: ["s", "w", "n", "e"] };

/** A clock's time: "14:59" from a minute on (whole seconds, cut down: never "14:60"), "9.3s" below. */
export function fmtClock(ms) {
  const left = Math.max(0, Number(ms) || 0);
  if (left >= 60000) {
    const secs = Math.floor(left / 1000);
    return `${Math.floor(secs / 60)}:${String(secs % 60).padStart(2, "0")}`;
  }
  return `${(Math.floor(left / 100) / 10).toFixed(1)}s`;
}

/** Seat names told apart: a name that several seats share (three "house:greedy") gets "#1", "#2"... */
export function seatNames(names) {
  const count = new Map(), seen = new Map();
  for (const n of names) count.set(n, (count.get(n) || 0) + 1);
  return names.map((n) => {
    if (count.get(n) < 2) return n;
    seen.set(n, (seen.get(n) || 0) + 1);
    return `${n} #${seen.get(n)}`;
  });
}

const CONTRACTS = { negyalso: "Négy alsó", ellenparaszt: "Ellenparaszt", ellensnapszer: "Ellensnapszer", hivo: "Hívó",
  kilences: "Kilences", einfacher_rufer: "Einfacher Rufer", kontrabauernschnapser: "Kontrabauernschnapser" };
/** A contract's or a call's id as people write it: ``einfacher_rufer`` -> "Einfacher Rufer". */
export function contractName(id) {
  const s = String(id || "");
  if (CONTRACTS[s]) return CONTRACTS[s];
  return s.split("_").map((w) => (w ? w[0].toUpperCase() + w.slice(1) : w)).join(" ");
}

/** A reason id (``target_reached``) as words. */
export function reasonText(id) {
  return String(id || "").replace(/_/g, " ");
}

function seatName(model, s) {
  return model.names[s] ?? `seat ${s}`;
}

/** The match's outcome in words from a view's ``match`` (winner: a team, or a seat without teams). */
export function winnerText(view, names) {
  const m = view.match, w = Number(m.winner);
  if (w < 0 || Number.isNaN(w)) return "The match is drawn";
  const teams = view.team_of_seat || [];
  const seats = names.map((_, s) => s).filter((s) => (teams.length ? Number(teams[s]) === w : s === w));
  const who = seats.map((s) => esc(names[s] ?? `seat ${s}`));
  if (who.length === 1 && names[seats[0]] === "you") return "You win the match";
  return `${who.join(" and ")} ${who.length > 1 ? "win" : "wins"} the match`;
}

/** One line of text for an event (Event message as JSON). */
export function eventText(e, names, lang = "en") {
  const n = (s) => esc(names[s] ?? `seat ${s}`);
  const c = (code) => cardText(code, lang);
  // "seat 1 plays", but "you play" (the play page names the player's seat "you")
  const does = (s, verb) => `${n(s)} ${names[s] === "you" ? verb.replace(/(ss)es$|s$/, "$1") : verb}`;
  const [kind] = Object.keys(e).filter((k) => k !== "version" && k !== "deal_number");
  const f = e[kind] || {};
  switch (kind) {
    case "deal_started": return `Deal ${Number(e.deal_number) + 1}: ${does(f.dealer, "deals")}` + (f.trump_card ? `, trump card ${c(f.trump_card)}` : "");
    case "card_played": return `${does(f.seat, "plays")} ${c(f.card)}`;
    case "trick_completed": return `${does(f.winner, "takes")} the trick (${f.cards.map((x) => c(x.card)).join(", ")})`;
    case "marriage_announced": return `${does(f.seat, "announces")} ${f.points} (${f.shown_cards.map(c).join(", ")})`;
    case "trump_exchanged": return `${does(f.seat, "exchanges")} ${c(f.card_down)} for ${c(f.card_up)}`;
    case "talon_closed": return `${does(f.seat, "closes")} the talon`;
    case "card_drawn": return `${does(f.seat, "draws")} ${f.card ? c(f.card) : "a card"}`;
    case "declared": return `${does(f.seat, "declares")} ${f.deal_points} (${f.correct ? "correct" : "wrong"})`;
    case "deal_ended": {
      const r = f.result;
      const gp = (r.game_points || []).map((g, s) => (g ? `${n(s)} +${g}` : "")).filter(Boolean).join(", ");
      return `Deal ${Number(r.deal_number) + 1} over (${esc(reasonText(r.reason))}): ${gp || "no game points"}`;
    }
    case "match_ended": {
      const firsts = (f.result.placements || []).map((p, s) => (Number(p) === 1 ? s : -1)).filter((s) => s >= 0);
      const who = firsts.length ? firsts.map(n).join(" and ") : Number(f.result.winner) >= 0 ? n(f.result.winner) : "";
      return `Match over: ${esc(reasonText(f.result.reason))}` + (who ? `, ${who} ${firsts.length > 1 || who === "you" ? "win" : "wins"}` : "");
    }
    case "resigned": return `${does(f.seat, "resigns")}`;
    case "timeout": return `${n(f.seat)}: ${esc(reasonText(f.reason))}`;
    case "bid": return `${does(f.seat, "bids")} ${esc(contractName(f.call))}`;
    case "contract": return `Contract ${esc(contractName(f.name))} by ${n(f.declarer)}` + (f.kontra_level ? ` (kontra x${2 ** f.kontra_level})` : "");
    case "passed": return `${does(f.seat, "passes")}`;
    case "trump_named": return `${n(f.seat)} names trump ${esc(f.suit)}`;
    case "cards_laid_away": return `${n(f.seat)} lays ${f.count} cards away`;
    case "cards_taken_up": return `${n(f.seat)} takes up ${f.count} cards`;
    case "cards_shown": return `${n(f.seat)} shows ${f.cards.map(c).join(", ")}`;
    default: return esc(kind || "event");
  }
}

/**
 * HTML of the table. model: {view, names, lang, viewer, hands?, talon?, laidAway?, legal?, trick?, dealResult?}
 * hands/talon/laidAway: open cards (replay "all cards"); legal: the viewer's legal actions;
 * trick: a completed trick to show in the middle (a ``trick_completed`` event's fields);
 * dealResult: the result of the deal that just ended (a ``deal_ended`` event's ``result``).
 */
export function tableHTML(model) {
  const v = model.view, d = v.deal, m = v.match;
  const n = v.num_seats;
  const viewer = model.viewer >= 0 ? model.viewer : 0;
  const pos = POSITIONS[n] || POSITIONS[4];
  const legal = model.legal || [];
  const legalPlay = new Map(legal.filter((a) => a.kind === "play").map((a) => [a.card, a.id]));
  const playing = new Set(d.seats.map(Number));
  const laidCount = new Array(n).fill(0); // public: how many cards each seat laid away (not which)
  for (const e of d.history) {
    if (e.cards_laid_away) laidCount[Number(e.cards_laid_away.seat)] += Number(e.cards_laid_away.count);
    if (e.cards_taken_up) laidCount.fill(0);
  }
  let seats = "";
  for (let k = 0; k < n; k++) {
    const s = (viewer + k) % n;
    const own = model.viewer === s;
    let cards = "";
    const open = model.hands ? model.hands[s] : own ? d.hand : null;
    if (open) cards = open.map((c) => cardSVG(c, { lang: model.lang, legal: own && legalPlay.has(c), action: legalPlay.get(c) })).join("");
    else cards = Array.from({ length: Number(d.hand_sizes[s] || 0) }, () => cardSVG("", { back: true })).join("");
    const clock = (v.clocks || []).find((c) => Number(c.seat) === s);
    const clockHTML = clock ? `<span class="clock${clock.running ? " running" : ""}" data-seat="${s}" `
      + `data-remaining="${clock.remaining_ms}" data-running="${clock.running ? 1 : 0}">${fmtClock(Number(clock.remaining_ms))}</span>` : "";
    const laidOpen = model.laidAway ? model.laidAway[s] : own ? d.laid_away : null;
    const laid = laidOpen?.length
      ? `<div class="laid">laid away: ${laidOpen.map((c) => cardSVG(c, { lang: model.lang, small: true })).join("")}</div>`
      : laidCount[s] ? `<div class="laid">${laidCount[s]} cards laid away</div>` : "";
    const team = v.team_of_seat && n === 4 ? `<span class="team">team ${Number(v.team_of_seat[s]) + 1}</span>` : "";
    seats += `<section class="seat pos-${pos[k]}${own ? " own" : ""}${Number(d.to_act) === s ? " to-act" : ""}${playing.has(s) ? "" : " out"}" data-seat="${s}" aria-label="${esc(seatName(model, s))}">`
      + `<h3><span class="name">${esc(seatName(model, s))}</span> <span class="seatno">seat ${s}</span> ${team}${clockHTML}</h3>`
      + `<div class="meta"><span data-testid="gp-${s}" class="gp">${m.game_points[s]}</span> game points · `
      + `tricks ${d.tricks_won[s]} · cards ${d.hand_sizes[s]}${playing.has(s) ? "" : " · sits this deal out"}`
      + `${Number(d.to_act) === s ? " · <b>to act</b>" : ""}</div>`
      + `<div class="hand">${cards}</div>${laid}</section>`;
  }
  const shown = model.trick ? model.trick.cards : d.current_trick;
  const trick = shown.map((t) => `<figure class="played${model.trick && Number(t.seat) === Number(model.trick.winner) ? " taker" : ""}">`
    + `${cardSVG(t.card, { lang: model.lang })}<figcaption>${esc(seatName(model, Number(t.seat)))}</figcaption></figure>`).join("");
  const taken = model.trick ? `<div class="taken" id="taken">${esc(seatName(model, Number(model.trick.winner)))} takes the trick</div>` : "";
  let lastTrick = "";
  if (!model.trick) {
    const prev = [...(d.history || [])].reverse().find((e) => e.trick_completed)?.trick_completed;
    if (prev) {
      lastTrick = `<details class="last-trick" id="last-trick"><summary>last trick</summary><div class="trick">`
        + prev.cards.map((t) => `<figure class="played">${cardSVG(t.card, { lang: model.lang, small: true })}`
          + `<figcaption>${esc(seatName(model, Number(t.seat)))}</figcaption></figure>`).join("")
        + `</div><div>taken by ${esc(seatName(model, Number(prev.winner)))}</div></details>`;
    }
  }
  let talon = "";
  const faceDown = (model.talon || []).filter((c) => c !== d.trump_card); // the face-up card is drawn apart
  if (faceDown.length) {
    talon = `<div class="talon open" aria-label="talon, top first">${faceDown.map((c) => cardSVG(c, { lang: model.lang, small: true })).join("")}</div>`;
  } else if (Number(d.talon_size) > 0) {
    talon = `<div class="talon">${cardSVG("", { back: true })}<span class="count">${d.talon_size}</span></div>`;
  }
  const trump = d.trump_card ? cardSVG(d.trump_card, { lang: model.lang }) : "";
  const state = { TALON_STATE_OPEN: "open", TALON_STATE_CLOSED: `closed by ${esc(seatName(model, Number(d.closed_by)))}`,
    TALON_STATE_EXHAUSTED: "exhausted" }[d.talon_state] || "";
  const auction = d.auction || null;
  let contract = "";
  if (auction) {
    const c = auction.contract;
    contract = `<div class="contract">${c && c.name ? `Contract <b>${esc(contractName(c.name))}</b> by ${esc(seatName(model, Number(c.declarer)))}`
      + (c.partners?.length ? ` with ${c.partners.map((p) => esc(seatName(model, Number(p)))).join(", ")}` : "")
      + (c.kontra_level ? ` · kontra x${2 ** c.kontra_level}` : "") + ` · ${c.base_points} point${Number(c.base_points) === 1 ? "" : "s"}` : "Bidding"}`
      + (auction.bids.length ? `<div class="bids">${auction.bids.map((b) => `${esc(seatName(model, Number(b.seat)))}: ${esc(contractName(b.call))}`).join(" · ")}</div>` : "")
      + "</div>";
  }
  const marriages = d.marriages.map((x) => `${esc(seatName(model, Number(x.seat)))} ${suitSymbol(x.suit)} ${x.points}`).join(" · ");
  const center = `<section class="center" data-trump="${esc(d.trump_suit)}">`
    + `<div class="trump-row">${d.trump_suit ? `<span class="trumpsuit">trump ${suitSymbol(d.trump_suit, 18)} ${esc(d.trump_suit)}</span>` : ""}`
    + `${trump}${talon}${state ? `<span class="talon-state">talon ${state}</span>` : ""}</div>`
    + `<div class="trick${model.trick ? " completed" : ""}" role="group" aria-label="${model.trick ? "completed trick" : "current trick"}">${trick}</div>${taken}${lastTrick}${contract}`
    + (marriages ? `<div class="marriages">marriages: ${marriages}</div>` : "") + "</section>";
  const score = `<div class="score" id="score">Deal ${Number(m.deal_number) + 1} · target ${m.target}`
    + ` · ${m.game_points.map((g, s) => `${esc(seatName(model, s))} <b>${g}</b>`).join(" : ")}`
    + (m.over ? ` · <b class="over">match over</b>` : "") + "</div>";
  const banner = m.over ? `<div class="banner" id="winner" role="status">${winnerText(v, model.names)}`
    + ` · ${m.game_points.map((g, s) => `${esc(seatName(model, s))} ${g}`).join(" : ")}</div>` : "";
  return `${banner}${score}${model.dealResult ? dealResultHTML(model.dealResult, model) : ""}<div class="table seats-${n}">${seats}${center}</div>`;
}

/** The panel at the end of a deal: deal points, game points won, why it ended, the match score after it. */
export function dealResultHTML(r, model) {
  const n = model.view.num_seats, before = model.view.match.game_points;
  const rows = Array.from({ length: n }, (_, s) => `<tr><th scope="row">${esc(seatName(model, s))}</th>`
    + `<td>${(r.deal_points || [])[s] ?? ""}</td><td>${(r.tricks_won || [])[s] ?? ""}</td>`
    + `<td>${Number((r.game_points || [])[s] || 0) ? `+${r.game_points[s]}` : "0"}</td>`
    + `<td>${Number(before[s] || 0) + Number((r.game_points || [])[s] || 0)}</td></tr>`).join("");
  const extra = [r.contract ? `contract ${esc(contractName(r.contract))}` : "", r.schwarz ? "schwarz" : "",
    Number(r.multiplier) > 1 ? `x${r.multiplier}` : ""].filter(Boolean).join(" · ");
  return `<section class="deal-result" id="deal-result" aria-labelledby="deal-result-h"><h3 id="deal-result-h">Deal ${Number(r.deal_number) + 1} over: `
    + `${esc(reasonText(r.reason))}</h3>${extra ? `<p>${extra}</p>` : ""}<table><thead><tr><th scope="col">seat</th><th scope="col">deal points</th>`
    + `<th scope="col">tricks</th><th scope="col">game points</th><th scope="col">total</th></tr></thead><tbody>${rows}</tbody></table></section>`;
}

/** Make the running clocks in ``root`` tick (returns a stop function). */
export function tickClocks(root) {
  const started = performance.now();
  const id = setInterval(() => {
    for (const el of root.querySelectorAll(".clock[data-running='1']")) {
      el.textContent = fmtClock(Number(el.dataset.remaining) - (performance.now() - started));
    }
  }, 200);
  return () => clearInterval(id);
}

/** The moment a trick is complete, drawn on ``model`` (the version before its last card): the
 * trick's cards in the middle, the last one out of its player's hand, nobody to act. */
export function completedTrickModel(model, trick) {
  const last = trick.cards[trick.cards.length - 1];
  const s = Number(last.seat), d = model.view.deal;
  const deal = { ...d, current_trick: [], to_act: -1, hand: (d.hand || []).filter((c) => c !== last.card),
    hand_sizes: d.hand_sizes.map((h, i) => (i === s ? Math.max(0, Number(h) - 1) : h)) };
  const hands = model.hands && model.hands.map((h, i) => (i === s ? h.filter((c) => c !== last.card) : h));
  return { ...model, view: { ...model.view, deal }, hands, trick, legal: [] };
}
