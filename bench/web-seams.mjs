// Counts what issue 50 measures in web/src: imports that point up the layers, and folder
// circles. Layers, lowest first: the base (api, lib, i18n, ui, query), the kits (site, admin),
// the modules (modules/*), the app (app, main, entry-server, ssr). An import from a folder into a
// higher layer is "upward"; two folders that import each other (directly or round a longer loop)
// are a circle.
//   node bench/web-seams.mjs [--list]
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const src = resolve(dirname(fileURLToPath(import.meta.url)), "../web/src");
const list = process.argv.includes("--list");

function files(dir) {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) return files(p);
    return /\.(ts|tsx)$/.test(n) && !/\.test\.(ts|tsx)$/.test(n) && !n.endsWith(".d.ts") ? [p] : [];
  });
}

/** The folder a file belongs to: `modules/<name>`, or its top folder, or the app. */
function folder(file) {
  const parts = relative(src, file).split("/");
  if (parts[0] === "modules") return parts.length > 2 ? `modules/${parts[1]}` : "modules";
  if (parts.length === 1) {
    const base = parts[0].replace(/\.(ts|tsx)$/, "");
    return ["query", "test-setup", "test-fetch", "test-meta", "test-xhr", "test-session"].includes(base) ? "base" : "app";
  }
  return parts[0];
}

function layer(f) {
  if (["api", "lib", "i18n", "ui", "base"].includes(f)) return 0;
  if (["site", "admin"].includes(f)) return 1;
  if (f.startsWith("modules")) return 2;
  return 3; // app, ssr
}

const edges = new Map();
let upward = 0;
const ups = [];
for (const file of files(src)) {
  const text = readFileSync(file, "utf8");
  const from = folder(file);
  for (const m of text.matchAll(/(?:import|export)[^'"`;]*?from\s+["']((?:\.|@\/)[^"']+)["']|import\(\s*["']((?:\.|@\/)[^"']+)["']\s*\)/g)) {
    const spec = m[1] ?? m[2];
    const target = spec.startsWith("@/") ? join(src, spec.slice(2)) : resolve(dirname(file), spec);
    const asDir = existsSync(target) && statSync(target).isDirectory();
    const to = folder(asDir ? join(target, "index.ts") : /\.(ts|tsx|css)$/.test(target) ? target : `${target}.ts`);
    if (to === from) continue;
    if (!edges.has(from)) edges.set(from, new Set());
    edges.get(from).add(to);
    if (layer(to) > layer(from)) {
      upward += 1;
      ups.push(`${relative(src, file)} -> ${spec}`);
    }
  }
}

// Circles: strongly connected components of more than one folder (Tarjan).
let index = 0;
const idx = new Map();
const low = new Map();
const stack = [];
const on = new Set();
const circles = [];
function visit(v) {
  idx.set(v, index);
  low.set(v, index);
  index += 1;
  stack.push(v);
  on.add(v);
  for (const w of edges.get(v) ?? []) {
    if (!idx.has(w)) {
      visit(w);
      low.set(v, Math.min(low.get(v), low.get(w)));
    } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
  }
  if (low.get(v) === idx.get(v)) {
    const c = [];
    let w;
    do {
      w = stack.pop();
      on.delete(w);
      c.push(w);
    } while (w !== v);
    if (c.length > 1) circles.push(c.sort());
  }
}
for (const v of edges.keys()) if (!idx.has(v)) visit(v);

const arrows = [...edges].flatMap(([a, bs]) => [...bs].filter((b) => layer(b) > layer(a)).map((b) => `${a} -> ${b}`));
console.log(`upward imports in web/src: ${upward} (${arrows.length} folder arrows: ${arrows.join(", ")})`);
console.log(`folder circles in web/src: ${circles.length}${circles.length ? ` (${circles.map((c) => c.join(" ⇄ ")).join("; ")})` : ""}`);
if (list) for (const u of ups) console.log(`  up: ${u}`);
if (process.argv.includes("--edges")) for (const [a, b] of edges) console.log(`  ${a} -> ${[...b].join(", ")}`);
