// The card table of one moment of a match, drawn from an information set (a seat's, or the
// public view of seat -1) and, in a replay with open cards, every hand and the talon.
import { cardSVG, esc, suitSymbol } from "./cards.js";

const POSITIONS = { 2: ["s", "n"], 3: ["s", "w", "e"], 4: ["s", "w", "n", "e"] };

export function fmtClock(ms) {
  const t = Math.max(0, Math.round(ms / 100) / 10);
  const m = Math.floor(t / 60), s = t - m * 60;
  return m ? `${m}:${s.toFixed(0).padStart(2, "0")}` : `${s.toFixed(1)}s`;
}

function seatName(model, s) {
  return model.names[s] ?? `seat ${s}`;
}

/** One line of text for an event (Event message as JSON). */
export function eventText(e, names) {
  const n = (s) => esc(names[s] ?? `seat ${s}`);
  // "seat 1 plays", but "you play" (the play page names the player's seat "you")
  const does = (s, verb) => `${n(s)} ${names[s] === "you" ? verb.replace(/(ss)es$|s$/, "$1") : verb}`;
  const [kind] = Object.keys(e).filter((k) => k !== "version" && k !== "deal_number");
  const f = e[kind] || {};
  switch (kind) {
    case "deal_started": return `Deal ${Number(e.deal_number) + 1}: ${does(f.dealer, "deals")}` + (f.trump_card ? `, trump card ${f.trump_card}` : "");
    case "card_played": return `${does(f.seat, "plays")} ${f.card}`;
    case "trick_completed": return `${does(f.winner, "takes")} the trick (${f.cards.map((c) => c.card).join(" ")})`;
    case "marriage_announced": return `${does(f.seat, "announces")} ${f.points} (${f.shown_cards.join(" ")})`;
    case "trump_exchanged": return `${does(f.seat, "exchanges")} ${f.card_down} for ${f.card_up}`;
    case "talon_closed": return `${does(f.seat, "closes")} the talon`;
    case "card_drawn": return `${does(f.seat, "draws")} ${f.card || "a card"}`;
    case "declared": return `${does(f.seat, "declares")} ${f.deal_points} (${f.correct ? "correct" : "wrong"})`;
    case "deal_ended": {
      const r = f.result;
      const gp = (r.game_points || []).map((g, s) => (g ? `${n(s)} +${g}` : "")).filter(Boolean).join(", ");
      return `Deal ${Number(r.deal_number) + 1} over (${esc(r.reason)}): ${gp || "no game points"}`;
    }
    case "match_ended": {
      const firsts = (f.result.placements || []).map((p, s) => (Number(p) === 1 ? s : -1)).filter((s) => s >= 0);
      const who = firsts.length ? firsts.map(n).join(" and ") : Number(f.result.winner) >= 0 ? n(f.result.winner) : "";
      return `Match over: ${esc(f.result.reason)}` + (who ? `, ${who} ${firsts.length > 1 || who === "you" ? "win" : "wins"}` : "");
    }
    case "resigned": return `${does(f.seat, "resigns")}`;
    case "timeout": return `${n(f.seat)}: ${esc(f.reason)}`;
    case "bid": return `${does(f.seat, "bids")} ${esc(f.call)}`;
    case "contract": return `Contract ${esc(f.name)} by ${n(f.declarer)}` + (f.kontra_level ? ` (kontra x${2 ** f.kontra_level})` : "");
    case "passed": return `${does(f.seat, "passes")}`;
    case "trump_named": return `${n(f.seat)} names trump ${esc(f.suit)}`;
    case "cards_laid_away": return `${n(f.seat)} lays ${f.count} cards away`;
    case "cards_taken_up": return `${n(f.seat)} takes up ${f.count} cards`;
    case "cards_shown": return `${n(f.seat)} shows ${f.cards.join(" ")}`;
    default: return esc(kind || "event");
  }
}

/**
 * HTML of the table. model: {view, names, lang, viewer, hands?, talon?, laidAway?, legal?, clocksAt}
 * hands/talon/laidAway: open cards (replay "all cards"); legal: the viewer's legal actions.
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
    seats += `<section class="seat pos-${pos[k]}${Number(d.to_act) === s ? " to-act" : ""}${playing.has(s) ? "" : " out"}" data-seat="${s}">`
      + `<h3><span class="name">${esc(seatName(model, s))}</span> <span class="seatno">seat ${s}</span> ${team}${clockHTML}</h3>`
      + `<div class="meta"><span data-testid="gp-${s}" class="gp">${m.game_points[s]}</span> game points · `
      + `tricks ${d.tricks_won[s]} · cards ${d.hand_sizes[s]}${playing.has(s) ? "" : " · sits this deal out"}`
      + `${Number(d.to_act) === s ? " · <b>to act</b>" : ""}</div>`
      + `<div class="hand">${cards}</div>${laid}</section>`;
  }
  const trick = d.current_trick.map((t) => `<figure class="played">${cardSVG(t.card, { lang: model.lang })}`
    + `<figcaption>${esc(seatName(model, Number(t.seat)))}</figcaption></figure>`).join("");
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
    contract = `<div class="contract">${c && c.name ? `Contract <b>${esc(c.name)}</b> by ${esc(seatName(model, Number(c.declarer)))}`
      + (c.partners?.length ? ` with ${c.partners.map((p) => esc(seatName(model, Number(p)))).join(", ")}` : "")
      + (c.kontra_level ? ` · kontra x${2 ** c.kontra_level}` : "") + ` · ${c.base_points} point${Number(c.base_points) === 1 ? "" : "s"}` : "Bidding"}`
      + (auction.bids.length ? `<div class="bids">${auction.bids.map((b) => `${esc(seatName(model, Number(b.seat)))}: ${esc(b.call)}`).join(" · ")}</div>` : "")
      + "</div>";
  }
  const marriages = d.marriages.map((x) => `${esc(seatName(model, Number(x.seat)))} ${suitSymbol(x.suit)} ${x.points}`).join(" · ");
  const center = `<section class="center" data-trump="${esc(d.trump_suit)}">`
    + `<div class="trump-row">${d.trump_suit ? `<span class="trumpsuit">trump ${suitSymbol(d.trump_suit, 18)} ${esc(d.trump_suit)}</span>` : ""}`
    + `${trump}${talon}${state ? `<span class="talon-state">talon ${state}</span>` : ""}</div>`
    + `<div class="trick" aria-label="current trick">${trick}</div>${contract}`
    + (marriages ? `<div class="marriages">marriages: ${marriages}</div>` : "") + "</section>";
  const score = `<div class="score" id="score">Deal ${Number(m.deal_number) + 1} · target ${m.target}`
    + ` · ${m.game_points.map((g, s) => `${esc(seatName(model, s))} <b>${g}</b>`).join(" : ")}`
    + (m.over ? ` · <b class="over">match over</b>` : "") + "</div>";
  return `${score}<div class="table seats-${n}">${seats}${center}</div>`;
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
