// The public site's first-load JavaScript budget: the entry chunk of `index.html` and every chunk
// it imports statically (what the browser must fetch before the app runs), gzip-compressed as
// `compress.mjs` serves it. Chunks loaded later (`lazyPart` widgets, `React.lazy` parts) are not
// counted. Run after `npm run build` (reads `dist/.vite/manifest.json`); exits 1 over budget.
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";

const BUDGET = 120 * 1024;
const dist = new URL("../dist/", import.meta.url);
const manifest = JSON.parse(readFileSync(new URL(".vite/manifest.json", dist), "utf8"));

const entry = Object.entries(manifest).find(([key, chunk]) => chunk.isEntry && key === "index.html");
if (!entry) {
  console.error("budget: no index.html entry in dist/.vite/manifest.json (build first)");
  process.exit(1);
}
const seen = new Set();
const files = [];
(function visit(key) {
  if (seen.has(key)) return;
  seen.add(key);
  const chunk = manifest[key];
  if (!chunk) throw new Error(`budget: ${key} is not in the manifest`);
  files.push(chunk.file);
  for (const next of chunk.imports ?? []) visit(next);
})(entry[0]);

const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
let raw = 0;
let gzip = 0;
for (const file of files) {
  const bytes = readFileSync(new URL(file, dist));
  const gz = gzipSync(bytes, { level: 9 }).length;
  raw += bytes.length;
  gzip += gz;
  console.log(`${file.padEnd(40)} ${kb(bytes.length).padStart(10)} raw ${kb(gz).padStart(10)} gzip`);
}
console.log(`${"total".padEnd(40)} ${kb(raw).padStart(10)} raw ${kb(gzip).padStart(10)} gzip (budget ${kb(BUDGET)})`);
if (gzip > BUDGET) {
  console.error(`budget: the public site's first-load JavaScript is ${kb(gzip)} gzip, over the ${kb(BUDGET)} budget`);
  process.exit(1);
}
