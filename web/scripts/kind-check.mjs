// Proves the web's types follow the server's schemas: copies the project, changes the generated
// schemas the way a change in Rust would, and expects `tsc` to fail on each change:
// - a field kind the admin does not handle, added to MetaField (src/api/meta.ts);
// - a page-bundle field renamed or removed (src/site/content.ts, checked by
//   src/site/content.types.test.ts), or a new required one (the records the tests build).
// Run by `make test` after the type check.
import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);

/** `text` with `from` replaced by `to` at its first place after `anchor`. */
function after(text, anchor, from, to) {
  const start = text.indexOf(anchor);
  const at = start < 0 ? -1 : text.indexOf(from, start + anchor.length);
  if (at < 0) throw new Error(`${anchor} … ${from} not found in src/api/schema.d.ts`);
  return `${text.slice(0, at)}${to}${text.slice(at + from.length)}`;
}

// Each case: what it changes, the change, and the files `tsc` checks (the whole project if none).
// A new required bundle field fails where records are built (the tests' fixtures): the site only
// reads bundles, so that is where it should.
const bundleTest = ["src/site/content.types.test.ts"];
const cases = [
  { name: "an unhandled field kind", edit: (t) => after(t, "MetaField: {", 'kind: "', 'kind: "fake_kind" | "') },
  { name: "a bundle field renamed (HostBundleLink._to)", files: bundleTest, edit: (t) => after(t, "HostBundleLink: ", "_to: ", "_target: ") },
  { name: "a bundle field removed (HostBundleRecord._list)", files: bundleTest, edit: (t) => after(t, "HostBundleRecord: {", "_list?: ", "_unused?: ") },
  { name: "a new required bundle field (HostBundleRecord)", edit: (t) => after(t, "HostBundleRecord: {", "\n", "\n_fake: string;\n") },
];

const here = fileURLToPath(new URL("..", import.meta.url));
const text = readFileSync(join(here, "src/api/schema.d.ts"), "utf8");

/** A copy of the project with `c`'s change made, checked by `tsc`: the files where it fails. */
async function check(c) {
  const dir = mkdtempSync(join(tmpdir(), "stoa-kind-check-"));
  try {
    for (const f of ["src", "tsconfig.json"]) cpSync(join(here, f), join(dir, f), { recursive: true });
    for (const f of ["tsconfig.app.json", "tsconfig.node.json", "vite.config.ts", "e2e"]) {
      try {
        cpSync(join(here, f), join(dir, f), { recursive: true });
      } catch {
        // optional
      }
    }
    symlinkSync(join(here, "node_modules"), join(dir, "node_modules"), "dir");
    writeFileSync(join(dir, "src/api/schema.d.ts"), c.edit(text));
    let project = "tsconfig.json";
    if (c.files) {
      project = "tsconfig.check.json";
      writeFileSync(join(dir, project), JSON.stringify({ extends: "./tsconfig.json", include: [], files: c.files }));
    }
    try {
      await run(join(here, "node_modules/.bin/tsc"), ["--noEmit", "-p", project], { cwd: dir });
      return null;
    } catch (e) {
      const output = `${e.stdout ?? ""}`;
      return [...new Set(output.split("\n").filter((l) => l.includes("error TS")).map((l) => l.split("(")[0]))];
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// The cases are independent: each checks its own copy, as many at once as there are cores.
const results = new Array(cases.length);
let next = 0;
async function worker() {
  while (next < cases.length) {
    const i = next++;
    results[i] = await check(cases[i]);
  }
}
await Promise.all(Array.from({ length: Math.min(availableParallelism(), cases.length) }, worker));
let bad = 0;
for (const [i, c] of cases.entries()) {
  if (results[i] === null) {
    console.error(`kind-check: tsc accepted ${c.name}`);
    bad++;
  } else {
    console.log(`kind-check: ${c.name} fails tsc in ${results[i].join(", ")}`);
  }
}
if (bad) process.exit(1);
