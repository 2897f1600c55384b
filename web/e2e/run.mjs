// Runs every end-to-end spec; exits non-zero on any failure, console error, non-loopback request
// or axe-core violation. Screenshots go to e2e/artifacts/.
//
// The spec files run in groups side by side, each group on a stack of its own (server, database,
// mail sink, provider fakes, Chromium) and in the files' order within it. One stack left most of a
// second core idle for ten minutes: a spec mostly waits on the browser, the browser on the server.
// E2E_GROUPS sets how many (default: one a core, at most two; one when a filter is given).
// A file's specs share what they set up (its pages, the records it made); a file that reads
// another's records names it (the fourth field below) and runs after it, on the same stack.
import { availableParallelism } from "node:os";
import { accountSpecs, s_problems } from "./account.spec.mjs";
import { auditProblems, auditSpecs } from "./admin-audit.spec.mjs";
import { blogSpecs } from "./blog.spec.mjs";
import { adminRecordsSpecs } from "./admin-records.spec.mjs";
import { adminToolsSpecs } from "./admin-tools.spec.mjs";
import { adminSpecs } from "./admin.spec.mjs";
import { adminWordsSpecs } from "./admin-words.spec.mjs";
import { adminEditorSpecs } from "./admin-editor.spec.mjs";
import { analyticsSpecs } from "./analytics.spec.mjs";
import { chatSpecs } from "./chat.spec.mjs";
import { donorSpecs } from "./donor.spec.mjs";
import { artifacts, startStack } from "./harness.mjs";
import { i18nSpecs } from "./i18n.spec.mjs";
import { mediaSpecs } from "./media.spec.mjs";
import { siteSpecs } from "./site.spec.mjs";
import { ssrSpecs } from "./ssr.spec.mjs";
import { visitorSpecs } from "./visitor.spec.mjs";
import { webhookSpecs } from "./webhooks.spec.mjs";
import { oidcSpecs } from "./oidc.spec.mjs";
import { mcpSpecs } from "./mcp.spec.mjs";

// Each file's specs with the seconds they took in a whole run (2026-12-01, debug server, one
// stack, 632 s in all): the groups are balanced on these. A new file without a figure counts as 30 s.
const files = [
  ["site", siteSpecs, 40],
  ["visitor", visitorSpecs, 96],
  ["ssr", ssrSpecs, 11],
  ["i18n", i18nSpecs, 11],
  ["admin", adminSpecs, 24],
  ["audit", auditSpecs, 34],
  ["records", adminRecordsSpecs, 14],
  ["tools", adminToolsSpecs, 41],
  ["words", adminWordsSpecs, 102],
  // The editor's start page and inbox read the CRM submission and the paid orders the site's specs
  // make.
  ["editor", adminEditorSpecs, 32, "site"],
  ["media", mediaSpecs, 4],
  ["account", accountSpecs, 41],
  ["chat", chatSpecs, 42],
  ["analytics", analyticsSpecs, 20],
  ["blog", blogSpecs, 33],
  ["donor", donorSpecs, 57],
  ["webhooks", webhookSpecs, 13],
  ["oidc", oidcSpecs, 7],
  ["mcp", mcpSpecs, 11],
];

const filter = process.argv[2];
const matches = ([name]) => !filter || filter.split("|").some((f) => name.includes(f));
const chosen = files.map(([file, specs, seconds, needs]) => ({ file, specs: specs.filter(matches), seconds: seconds ?? 30, needs })).filter((f) => f.specs.length > 0);
const count = Math.max(1, Math.min(chosen.length, Number(process.env.E2E_GROUPS ?? (filter ? 1 : Math.min(2, availableParallelism())))));

// A file and the files it needs go together; the longest such units first, each to the group with
// the least so far; each group then keeps the files' order above.
const root = (f) => {
  const needed = f.needs && chosen.find((x) => x.file === f.needs);
  return needed ? root(needed) : f;
};
const units = new Map();
for (const f of chosen) {
  const r = root(f);
  const u = units.get(r) ?? { files: [], seconds: 0 };
  u.files.push(f);
  u.seconds += f.seconds;
  units.set(r, u);
}
const groups = Array.from({ length: count }, () => ({ files: [], seconds: 0 }));
for (const u of [...units.values()].sort((a, b) => b.seconds - a.seconds)) {
  const g = groups.reduce((least, x) => (x.seconds < least.seconds ? x : least));
  g.files.push(...u.files);
  g.seconds += u.seconds;
}
for (const g of groups) g.files.sort((a, b) => chosen.indexOf(a) - chosen.indexOf(b));

/** Whether `v` is a browser context the harness opened (its page and the problems it saw). */
const isContext = (v) => Boolean(v) && typeof v === "object" && "page" in v && Array.isArray(v.problems);

/** Every browser context a group's specs kept in its state, at its top or one level down (the
 * chat's, by name): a new spec file's contexts are screenshotted and checked without a list here. */
function contexts(state) {
  return Object.values(state).flatMap((v) => (isContext(v) ? [v] : v && typeof v === "object" ? Object.values(v).filter(isContext) : []));
}

const started = Date.now();
// Every stack is up before any spec runs: a stack clears e2e/artifacts/ as it starts.
const stacks = await Promise.all(groups.map(() => startStack()));
let failed = 0;
const problems = [];

async function runGroup(g, i) {
  const stack = stacks[i];
  const state = {};
  const tag = count > 1 ? `[${i + 1}] ` : "";
  for (const { specs } of g.files) {
    for (const [name, fn] of specs) {
      const t0 = Date.now();
      try {
        await fn(stack, state);
        console.log(`  ${tag}✓ ${name} (${Date.now() - t0} ms)`);
      } catch (e) {
        failed += 1;
        const n = failed;
        console.log(`  ${tag}✗ ${name}\n    ${String(e?.stack ?? e).split("\n").slice(0, 8).join("\n    ")}`);
        for (const [j, w] of contexts(state).entries()) await w.page.screenshot({ path: `${artifacts}/failure-${n}-${j}.png` }).catch(() => undefined);
      }
    }
  }
  // The donor's page is left out, as it always was: its specs expect refused payments' errors.
  problems.push(...contexts(state).filter((w) => w !== state.donor).flatMap((w) => w.problems));
}

await Promise.all(groups.map(runGroup));
problems.push(...s_problems, ...auditProblems);
for (const p of problems) console.log(`  ✗ ${p}`);
await Promise.all(stacks.map((s) => s.stop()));
const total = chosen.reduce((n, f) => n + f.specs.length, 0);
console.log(`${total - failed}/${total} end-to-end specs passed in ${count} group${count > 1 ? "s" : ""}, ${problems.length} browser problems, ${((Date.now() - started) / 1000).toFixed(1)} s; screenshots in ${artifacts}`);
process.exit(failed || problems.length ? 1 : 0);
