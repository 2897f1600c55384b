// Screen-to-screen navigation in the admin, measured in a real browser (issue 49: ≤ 200 ms).
//
// Starts the e2e stack (its `stoa`, the demo site, the admin), signs in, and moves through the
// side list's screens by clicking their links, as an editor does: each step is timed from the
// click to the new screen showing its rows (a table's count, or a module screen's list). Round 1
// is cold (each screen's code chunk and data fetched the first time), rounds 2–3 warm (lists
// cached, refetched behind). The reference in the same run: a full reload of /admin to its first
// screen. Prints p50/p95 per round kind; `--json` for machines.
//
//   node bench/admin-nav.mjs            (STOA_BIN=target/release/stoa for a release build)
import { dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
// (The harness runs from web/: a binary named relative to here is found from here.)
if (process.env.STOA_BIN && !isAbsolute(process.env.STOA_BIN)) process.env.STOA_BIN = resolve(process.env.STOA_BIN);
process.chdir(join(root, "web"));
const { startStack, watchedContext, signIn, ADMIN } = await import(join(root, "web", "e2e", "harness.mjs"));

const SCREENS = [
  ["blog", "article"],
  ["host", "page"],
  ["host", "widget"],
  ["ecommerce", "product"],
  ["ecommerce", "order"],
  ["crm", "request"],
  ["rbac", "subject"],
  ["blog", "category"],
  ["website-builder", "button"],
  ["notification", "notification"],
  ["file-storage", "file"],
  ["ecommerce", "store"],
  ["social", "profile"],
  ["platform", "job"],
];

function pct(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

const stack = await startStack();
try {
  const w = await watchedContext(stack, { viewport: { width: 1366, height: 900 } });
  const { page } = w;
  await signIn(page, ADMIN, "/admin");
  const nav = page.getByRole("navigation", { name: "Sections" });
  await nav.waitFor();
  // The reference: a full load of the admin to its start page's first card.
  const reloads = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    await page.goto("/admin");
    await page.getByTestId("attention-card").waitFor();
    reloads.push(performance.now() - t0);
  }
  const rounds = [];
  for (let round = 0; round < 3; round++) {
    const times = [];
    for (const [module, name] of SCREENS) {
      const link = nav.locator(`a[href="/admin/${module}/${name}"]`);
      if (!(await link.count())) continue;
      const t0 = performance.now();
      await link.click();
      await page.waitForFunction(
        (sel) => {
          const s = document.querySelector(sel);
          if (!s) return false;
          if (s.hasAttribute("data-custom")) return !!s.querySelector("tbody tr, [data-testid$=-empty], p") && !document.querySelector("main [data-loading]");
          return (s.querySelector("[data-testid=total]")?.textContent ?? "") !== "";
        },
        `main [data-screen="${module}.${name}"]`,
        { polling: "raf" },
      );
      times.push(performance.now() - t0);
    }
    rounds.push(times);
  }
  const cold = rounds[0];
  const warm = rounds.slice(1).flat();
  const out = {
    screens: cold.length,
    reloadMs: { p50: pct(reloads, 50) },
    coldMs: { p50: pct(cold, 50), p95: pct(cold, 95) },
    warmMs: { p50: pct(warm, 50), p95: pct(warm, 95) },
  };
  if (process.argv.includes("--json")) console.log(JSON.stringify(out));
  else {
    const f = (x) => `${x.toFixed(0)} ms`;
    console.log(`admin navigation over ${out.screens} screens (click → rows shown), binary ${process.env.STOA_BIN ?? "target/debug/stoa"}`);
    console.log(`  full reload of /admin (reference): p50 ${f(out.reloadMs.p50)}`);
    console.log(`  first visit (cold):  p50 ${f(out.coldMs.p50)}  p95 ${f(out.coldMs.p95)}  (${(out.coldMs.p50 / out.reloadMs.p50).toFixed(2)}× a reload)`);
    console.log(`  return visits (warm): p50 ${f(out.warmMs.p50)}  p95 ${f(out.warmMs.p95)}  (${(out.warmMs.p50 / out.reloadMs.p50).toFixed(2)}× a reload)`);
  }
} finally {
  await stack.stop();
}
