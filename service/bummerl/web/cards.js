// Cards as inline SVG: every suit has its own shape (club, spade, heart, diamond) and letter, so
// suits are told apart without colour; the variant's own card names (German, Hungarian, ...) are
// the card's title and caption. Card codes are rank + suit: ranks A T K Q J 9, suits C S H D.

export const SUIT_NAMES = { C: "clubs", S: "spades", H: "hearts", D: "diamonds" };
const RANK_LABEL = { A: "A", T: "10", K: "K", Q: "Q", J: "J", 9: "9" };
const RED = { H: true, D: true };

// Suit symbols in a 100 x 100 box.
const SHAPES = {
  H: '<path d="M50 88 C12 60 2 36 22 20 C36 10 47 19 50 30 C53 19 64 10 78 20 C98 36 88 60 50 88 Z"/>',
  D: '<path d="M50 6 L86 50 L50 94 L14 50 Z"/>',
  S: '<path d="M50 8 C88 42 100 62 78 72 C64 78 56 70 54 64 L62 92 L38 92 L46 64 C44 70 36 78 22 72 C0 62 12 42 50 8 Z"/>',
  C: '<circle cx="50" cy="28" r="18"/><circle cx="28" cy="58" r="18"/><circle cx="72" cy="58" r="18"/>'
     + '<path d="M45 50 L38 94 L62 94 L55 50 Z"/>',
};

export function esc(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

let NAMES = {}; // card code -> {lang: name}, from GET /v1/variants
let LANGS = {}; // variant id or alias -> the language of its card names (VariantInfo.card_language)

/** Languages of the card names the page offers (the decks' ``local_names``), with their own names. */
export const CARD_LANGS = { de: "Deutsch", hu: "magyar", hr: "hrvatski", bg: "български", en: "English" };
const LANG_KEY = "bummerl.cardLang";

/** The reader's choice of card-name language ("" = each variant's own), kept in localStorage. */
export function chosenLang() {
  try { return localStorage.getItem(LANG_KEY) || ""; } catch { return ""; }
}

export function chooseLang(lang) {
  try { if (lang) localStorage.setItem(LANG_KEY, lang); else localStorage.removeItem(LANG_KEY); } catch { /* private mode */ }
}

/** The language the cards of ``variant`` are named in: the reader's choice, else the variant's own
 * (VariantInfo.card_language from GET /v1/variants; "en" before it arrives). */
export function langOf(variant) {
  return chosenLang() || LANGS[variant] || "en";
}

export function learnNames(variants) {
  for (const v of variants) {
    for (const c of v.deck || []) NAMES[c.code] = { ...(NAMES[c.code] || {}), ...c.local_names };
    for (const id of [v.id, ...(v.aliases || [])]) LANGS[id] = v.card_language || "en";
  }
}

export function cardName(code, lang) {
  const names = NAMES[code] || {};
  const rank = { A: "ace", T: "ten", K: "king", Q: "queen", J: "jack", 9: "nine" }[code[0]] || code[0];
  return names[lang] || names.en || `${rank} of ${SUIT_NAMES[code[1]] || code[1]}`;
}

/** A card's name as text in running prose (the move list, the log), marked with its language. */
export function cardText(code, lang) {
  if (!code) return "a card";
  return `<span class="cn" lang="${esc(lang)}" data-card="${esc(code)}">${esc(cardName(code, lang))}</span>`;
}

/** Card codes in a server text (an action's label, "marriage KH QH") in local names. */
export function namesInText(text, lang) {
  return esc(text).replace(/(?<![A-Za-z0-9])([ATKQJ9][CSHD])(?![A-Za-z0-9])/g, (c) => cardName(c, lang))
    .replace(/^(trump|name|color|colour) ([CSHD])$/i, (_, w, x) => `${w} ${SUIT_NAMES[x]}`);
}

export function suitSymbol(suit, size = 14) {
  if (!SHAPES[suit]) return "";
  return `<svg class="suit ${RED[suit] ? "red" : "black"}" width="${size}" height="${size}" viewBox="0 0 100 100" `
    + `role="img" aria-label="${SUIT_NAMES[suit]}"><title>${SUIT_NAMES[suit]}</title>${SHAPES[suit]}</svg>`;
}

/** One card. opts: {lang, back, small, legal, action}. The card's name is its title, its
 * accessible name and (not on small cards) an HTML caption under it, in ``lang``. */
export function cardSVG(code, opts = {}) {
  const cls = ["card"];
  if (opts.small) cls.push("small");
  if (opts.back || !code) {
    return `<span class="${cls.join(" ")} back" data-card="" role="img" aria-label="face-down card">`
      + '<svg viewBox="0 0 64 90" aria-hidden="true">'
      + '<rect x="1" y="1" width="62" height="88" rx="6" class="back-face"/>'
      + '<path d="M8 8 L56 82 M56 8 L8 82 M32 8 L32 82 M8 45 L56 45" class="back-lines"/></svg></span>';
  }
  const rank = code[0], suit = code[1];
  const lang = opts.lang || "en";
  const name = cardName(code, lang);
  const color = RED[suit] ? "red" : "black";
  if (opts.legal) cls.push("legal");
  const svg = `<svg viewBox="0 0 64 90" class="${color}" aria-hidden="true"><title>${esc(name)}</title>`
    + '<rect x="1" y="1" width="62" height="88" rx="6" class="face"/>'
    + `<text x="6" y="17" class="rank">${RANK_LABEL[rank] || rank}</text>`
    + `<g transform="translate(5 21) scale(0.14)">${SHAPES[suit] || ""}</g>`
    + `<text x="58" y="17" class="letter" text-anchor="end">${suit}</text>`
    + `<g transform="translate(14 34) scale(0.36)">${SHAPES[suit] || ""}</g>`
    + "</svg>" + (opts.small ? "" : `<span class="caption" aria-hidden="true">${esc(name)}</span>`);
  if (opts.legal) {
    return `<button type="button" class="${cls.join(" ")}" lang="${esc(lang)}" data-card="${code}" data-action="${opts.action ?? ""}" `
      + `aria-label="play ${esc(name)}" title="play ${esc(name)}">${svg}</button>`;
  }
  return `<span class="${cls.join(" ")}" lang="${esc(lang)}" data-card="${code}" role="img" aria-label="${esc(name)}">${svg}</span>`;
}
