/**
 * What the public site's code expects of its surroundings, for the engine `stoa` renders pages in
 * (QuickJS: the language without the browser's or Node's globals). Timers never fire — a render
 * is synchronous and whatever a component schedules belongs to the browser.
 */
import { DateTimeFormat, getCanonicalLocales, NumberFormat, PluralRules } from "@/lib/intl";

const g = globalThis as Record<string, unknown>;

if (typeof g.console === "undefined") {
  const out: unknown[] = [];
  const keep = (level: string) => (...args: unknown[]) => {
    if (out.length < 50) out.push(`${level}: ${args.map(String).join(" ")}`);
  };
  g.console = { log: keep("log"), info: keep("info"), debug: keep("debug"), warn: keep("warn"), error: keep("error") };
  /** Messages logged during renders (read and cleared by the host after each one). */
  g["__stoaLogs"] = out;
}
if (typeof g.setTimeout === "undefined") {
  g.setTimeout = () => 0;
  g.clearTimeout = () => undefined;
  g.setInterval = () => 0;
  g.clearInterval = () => undefined;
}
if (typeof g.queueMicrotask === "undefined") {
  g.queueMicrotask = (f: () => void) => void Promise.resolve().then(f);
}
if (typeof g.process === "undefined") g.process = { env: { NODE_ENV: "production" } };


/** Enough of `URLSearchParams` for routing: parse, read, write, serialise. */
class SearchParams {
  private list: [string, string][] = [];
  constructor(init?: string | Record<string, string> | [string, string][] | SearchParams) {
    if (typeof init === "string") {
      for (const part of init.replace(/^\?/, "").split("&")) {
        if (!part) continue;
        const i = part.indexOf("=");
        const dec = (s: string) => {
          try {
            return decodeURIComponent(s.replace(/\+/g, " "));
          } catch {
            return s;
          }
        };
        this.list.push(i < 0 ? [dec(part), ""] : [dec(part.slice(0, i)), dec(part.slice(i + 1))]);
      }
    } else if (init instanceof SearchParams) this.list = [...init.list];
    else if (Array.isArray(init)) this.list = init.map(([k, v]) => [String(k), String(v)]);
    else if (init) this.list = Object.entries(init).map(([k, v]) => [k, String(v)]);
  }
  get size() {
    return this.list.length;
  }
  get(k: string) {
    return this.list.find((e) => e[0] === k)?.[1] ?? null;
  }
  getAll(k: string) {
    return this.list.filter((e) => e[0] === k).map((e) => e[1]);
  }
  has(k: string) {
    return this.list.some((e) => e[0] === k);
  }
  append(k: string, v: string) {
    this.list.push([k, String(v)]);
  }
  set(k: string, v: string) {
    const i = this.list.findIndex((e) => e[0] === k);
    this.list = this.list.filter((e, j) => e[0] !== k || j === i);
    if (i < 0) this.list.push([k, String(v)]);
    else this.list[this.list.findIndex((e) => e[0] === k)] = [k, String(v)];
  }
  delete(k: string) {
    this.list = this.list.filter((e) => e[0] !== k);
  }
  sort() {
    this.list.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  }
  forEach(f: (v: string, k: string, p: SearchParams) => void) {
    for (const [k, v] of this.list) f(v, k, this);
  }
  keys() {
    return this.list.map((e) => e[0])[Symbol.iterator]();
  }
  values() {
    return this.list.map((e) => e[1])[Symbol.iterator]();
  }
  entries() {
    return this.list.map((e) => [e[0], e[1]] as [string, string])[Symbol.iterator]();
  }
  [Symbol.iterator]() {
    return this.entries();
  }
  toString() {
    return this.list.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&");
  }
}

/** Enough of `URL` for routing: absolute `scheme://host/path?query#hash`, or a path against a base. */
class SimpleUrl {
  protocol = "";
  host = "";
  pathname = "/";
  search = "";
  hash = "";
  constructor(input: string, base?: string | SimpleUrl) {
    const s = String(input);
    const m = /^([a-z][a-z0-9+.-]*:)(?:\/\/([^/?#]*))?([^?#]*)(\?[^#]*)?(#.*)?$/i.exec(s);
    if (m) {
      this.protocol = (m[1] ?? "").toLowerCase();
      this.host = (m[2] ?? "").toLowerCase();
      this.pathname = m[3] || (m[2] !== undefined ? "/" : "");
      this.search = m[4] && m[4] !== "?" ? m[4] : "";
      this.hash = m[5] && m[5] !== "#" ? m[5] : "";
      return;
    }
    if (base === undefined) throw new TypeError(`Invalid URL: ${s}`);
    const b = typeof base === "string" ? new SimpleUrl(base) : base;
    this.protocol = b.protocol;
    const r = /^(\/\/[^/?#]*)?([^?#]*)(\?[^#]*)?(#.*)?$/.exec(s) ?? [];
    this.host = r[1] ? r[1].slice(2).toLowerCase() : b.host;
    const path = r[2] ?? "";
    if (r[1]) this.pathname = path || "/";
    else if (path.startsWith("/")) this.pathname = path;
    else if (path) this.pathname = b.pathname.replace(/[^/]*$/, "") + path;
    else this.pathname = b.pathname;
    this.search = r[3] && r[3] !== "?" ? r[3] : !path && !r[1] && !r[3] ? b.search : "";
    this.hash = r[4] && r[4] !== "#" ? r[4] : "";
  }
  get hostname() {
    return this.host.replace(/:\d+$/, "");
  }
  get port() {
    return /:(\d+)$/.exec(this.host)?.[1] ?? "";
  }
  get origin() {
    return this.host ? `${this.protocol}//${this.host}` : "null";
  }
  get href() {
    return `${this.protocol}${this.host || this.protocol === "http:" || this.protocol === "https:" ? `//${this.host}` : ""}${this.pathname}${this.search}${this.hash}`;
  }
  get searchParams() {
    return new SearchParams(this.search);
  }
  toString() {
    return this.href;
  }
  toJSON() {
    return this.href;
  }
}

if (typeof g.Intl === "undefined") g.Intl = { NumberFormat, PluralRules, DateTimeFormat, getCanonicalLocales };
if (typeof g.URLSearchParams === "undefined") g.URLSearchParams = SearchParams;
if (typeof g.URL === "undefined") g.URL = SimpleUrl;
