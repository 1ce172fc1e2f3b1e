// What every page shares: the REST calls (JSON and NDJSON streams), the variants (card names),
// the clean-up of the page being left, the tab's title and the screen-reader announcements.
import { learnNames } from "./cards.js";

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

/** JSON of a GET, read as it arrives: ``progress(bytes)`` after each chunk (a long replay's seat views). */
export async function apiProgress(path, { headers = {}, progress = () => {} } = {}) {
  const r = await fetch(path, { headers: { Accept: "application/json", ...headers } });
  if (!r.ok) {
    const body = await r.json().catch(() => ({}));
    throw Object.assign(new Error(body.message || `${r.status} ${r.statusText}`), { status: r.status });
  }
  const reader = r.body.getReader(), parts = [];
  let got = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    parts.push(value);
    got += value.length;
    progress(got);
  }
  return JSON.parse(await new Blob(parts).text());
}

let cleanup = [];
export function onCleanup(fn) { cleanup.push(fn); }
export function runCleanup() { for (const fn of cleanup.splice(0)) fn(); }

/** Marks the first drawn table of a page load (read by ``bummerl bench web``). */
export function markRendered() {
  if (!performance.getEntriesByName("bummerl-first-render").length) performance.mark("bummerl-first-render");
  markContent();
}

/** Marks the first time a page load shows its content (any page; read by ``bummerl bench web``). */
export function markContent() {
  if (!performance.getEntriesByName("bummerl-content").length) performance.mark("bummerl-content");
}

/** The tab's title: "<what> · Bummerl". */
export function setTitle(what) {
  document.title = what ? `${what} · Bummerl` : "Bummerl";
}

/** Says ``text`` to screen readers (the page's polite live region). */
export function announce(text) {
  const el = document.getElementById("announce");
  if (el) el.textContent = text;
}

let variantsCache = null;
export async function variants() {
  if (!variantsCache) {
    variantsCache = (await api("/v1/variants")).variants;
    learnNames(variantsCache);
  }
  return variantsCache;
}

/** ``text`` as a download named ``name`` (a data: URL: the pages make no other request). */
export function download(name, text, type = "application/json") {
  const a = document.createElement("a");
  a.href = `data:${type};charset=utf-8,${encodeURIComponent(text)}`;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
}
