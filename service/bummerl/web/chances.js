// A light "chances" estimate for live two-player matches (issue 39), from the public view only:
// the game points, and each side's deal points as a spectator counts them (the cards of the tricks
// it took, its marriages that count). No hidden card is used, so it cannot leak one: it reads
// exactly the frame every spectator gets. It is an estimate, labelled as one, not an evaluation.

const CARD_POINTS = { A: 11, T: 10, K: 4, Q: 3, J: 2, 9: 0 };
// How a won deal scores (game points 1, 2, 3): about how often, over bot play.
const DEAL_POINTS = [[1, 0.55], [2, 0.3], [3, 0.15]];

/** Each seat's deal points as a spectator can count them: tricks taken and counted marriages. */
export function publicDealPoints(view) {
  const pts = [0, 0];
  for (const e of view.deal?.history || []) {
    const t = e.trick_completed;
    if (!t) continue;
    const w = Number(t.winner);
    if (w < 0 || w > 1) continue;
    for (const c of t.cards || []) pts[w] += CARD_POINTS[String(c.card || "")[0]] || 0;
  }
  for (const m of view.deal?.marriages || []) {
    const s = Number(m.seat);
    if (m.counted && (s === 0 || s === 1)) pts[s] += Number(m.points || 0);
  }
  return pts;
}

/** P(seat 0 wins the match) when it needs ``a`` game points and seat 1 needs ``b``, each later
 *  deal a coin flip scored as DEAL_POINTS. */
function matchWin(a, b, memo = new Map()) {
  if (a <= 0) return 1;
  if (b <= 0) return 0;
  const key = `${a},${b}`;
  if (memo.has(key)) return memo.get(key);
  let p = 0;
  for (const [g, w] of DEAL_POINTS) p += w * (0.5 * matchWin(a - g, b, memo) + 0.5 * matchWin(a, b - g, memo));
  memo.set(key, p);
  return p;
}

/** [P(seat 0 wins the match), P(seat 1)] from a two-player public view, or null (another kind
 *  of match, or over). */
export function chances(view) {
  const m = view?.match;
  if (!m || m.over || Number(view.num_seats) !== 2 || !(view.deal?.history)) return null;
  const target = Number(m.target || 7), gp = (m.game_points || [0, 0]).map(Number);
  const down = String(m.direction || "").endsWith("DOWN");
  const need = down ? gp : gp.map((g) => target - g);
  const [d0, d1] = publicDealPoints(view);
  const dealP0 = 1 / (1 + Math.exp(-(d0 - d1) / 14));  // the side ahead in points usually takes the deal
  let p0 = 0;
  for (const [g, w] of DEAL_POINTS) p0 += w * (dealP0 * matchWin(need[0] - g, need[1]) + (1 - dealP0) * matchWin(need[0], need[1] - g));
  return [p0, 1 - p0];
}

/** The bar's HTML for ``names`` (two seats), or "" when there is no estimate (a <meter>: the
 *  pages' CSP allows no inline style). */
export function chancesHTML(view, names, esc) {
  const c = chances(view);
  if (!c) return "";
  const p0 = Math.round(c[0] * 100), p1 = 100 - p0;
  return `<div class="chances"><label for="chances">chances</label> ${esc(names[0])} <meter id="chances" min="0" max="100" `
    + `value="${p0}" data-p0="${p0}" data-p1="${p1}" aria-label="chances: ${esc(names[0])} ${p0} percent, ${esc(names[1])} ${p1} percent">`
    + `${p0}%</meter> ${esc(names[1])}<span class="muted chances-text"> · ${p0}% : ${p1}%, an estimate from what every `
    + `spectator sees (game points, the tricks taken)</span></div>`;
}
