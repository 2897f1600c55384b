// Starts a real `stoa` on a fresh SQLite database and a real Chromium, and gives each spec a page
// that records console errors, non-loopback requests, axe-core violations and screenshots.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { startSmtpSink } from "./smtp-sink.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
export const webDir = join(here, "..");
const repo = join(webDir, "..");
export const artifacts = join(here, "artifacts");
const AXE = readFileSync(join(webDir, "node_modules/axe-core/axe.min.js"), "utf8");

export const ADMIN = { email: "admin@e2e.test", password: "correct horse battery staple" };
/** `X-RBAC-SECRET-KEY` of the e2e server (server-to-server writes, as an admin). */
export const SECRET_KEY = "e2e-secret-key-0123456789abcdefghijklmnop";

async function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Starts the `stoa-fakes` binary for one provider: its address and the server settings that point
 * at it (the fake prints `listening URL`, then `env NAME=VALUE` lines). */
async function startFake(kind, webhookUrl) {
  const bin = process.env.STOA_FAKES_BIN ?? join(repo, "target/debug/stoa-fakes");
  const child = spawn(bin, ["--kind", kind, "--webhook-url", webhookUrl], { stdio: ["ignore", "pipe", "inherit"] });
  const env = {};
  let out = "";
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`stoa-fakes ${kind} did not start: ${out}`)), 10_000);
    child.stdout.on("data", (d) => {
      out += d;
      const lines = out.split("\n");
      const listening = lines.find((l) => l.startsWith("listening "));
      if (listening && lines.some((l) => l === "ready")) {
        for (const l of lines.filter((x) => x.startsWith("env "))) {
          const [k, ...v] = l.slice(4).split("=");
          env[k] = v.join("=");
        }
        clearTimeout(timer);
        resolve(listening.slice("listening ".length).trim());
      }
    });
    child.on("exit", (code) => reject(new Error(`stoa-fakes ${kind} exited ${code}: ${out}`)));
  });
  return { url, env, stop: () => child.kill("SIGTERM") };
}

/** A receiver of outgoing webhooks on a local port: every POST to `/hook` is kept (headers and
 * body) and answered 200. */
async function startHookReceiver() {
  const received = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (d) => {
      body += d;
    });
    req.on("end", () => {
      received.push({ path: req.url, headers: req.headers, body });
      res.writeHead(req.url === "/hook" ? 200 : 404, { "content-type": "text/plain" });
      res.end("ok");
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return { server, port, url: `http://127.0.0.1:${port}/hook`, received };
}

export async function startStack() {
  const bin = process.env.STOA_BIN ?? join(repo, "target/debug/stoa");
  const dir = mkdtempSync(join(tmpdir(), "stoa-e2e-"));
  rmSync(artifacts, { recursive: true, force: true });
  mkdirSync(artifacts, { recursive: true });
  const smtp = await startSmtpSink();
  const hooks = await startHookReceiver();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // Card payments go through local fakes of CloudPayments (a Russian bank), TipTop Pay (a Kazakh
  // one, in tenge) and Stripe (a foreign one); the cart keeps the dummy provider, offered first.
  const fakes = {};
  for (const kind of ["cloudpayments", "tiptoppay", "stripe"]) fakes[kind] = await startFake(kind, `${base}/api/billing/payment-intents/${kind}/webhook`);
  // Sign-in with an OpenID Connect provider goes through a local fake provider ("Example ID").
  fakes.oidc = await startFake("oidc", "");
  // AI assistant profiles answer through a local fake of the chat-completions API.
  fakes.ai = await startFake("chat", "");
  const env = {
    ...fakes.cloudpayments.env,
    ...fakes.tiptoppay.env,
    ...fakes.stripe.env,
    ...fakes.oidc.env,
    ...fakes.ai.env,
    STOA_PAYMENT_PROVIDERS: "dummy,cloudpayments,stripe,tiptoppay",
    ...process.env,
    DATABASE_URL: `sqlite://${dir}/stoa.db`,
    STOA_DATA_DIR: dir,
    STOA_ADDR: `127.0.0.1:${port}`,
    STOA_PUBLIC_URL: base,
    STOA_WEB_DIR: join(webDir, "dist"),
    STOA_SMTP_URL: smtp.url,
    STOA_MAIL_FROM: "Stoa <no-reply@e2e.test>",
    STOA_AUTH_RATE_BURST: "1000",
    // Every page of every spec comes from this one address: the whole suite makes more new image
    // sizes than one visitor may in ten minutes.
    STOA_IMAGE_SIZES_PER_ADDRESS: "100000",
    // …and holds more live streams open than one visitor may (specs keep their pages open).
    STOA_LIVE_PER_SUBJECT: "1000",
    STOA_LIVE_PER_ADDRESS: "1000",
    STOA_LOG: "warn",
    STOA_DUMMY_WEBHOOK_DELAY: "1",
    STOA_SECRET_KEY: SECRET_KEY,
    // Outgoing webhooks may reach the local receiver (every other private address is refused).
    STOA_HOOKS_ALLOW: `127.0.0.1:${hooks.port}`,
    STOA_HOOKS_RETRY_MS: "500",
    // A refused mail fails after two attempts a second apart (the default waits 30 s × 2ⁿ, 5 times).
    STOA_NOTIFY_ATTEMPTS: "2",
    STOA_NOTIFY_BACKOFF: "1",
    // The suites run a debug build on two cores beside the payments' background jobs: a page's
    // server render could miss the production budget (250 ms) and come as the browser-rendered
    // shell, and the server-HTML spec then failed now and then. (The image code behind receipts,
    // which took about a second a receipt unoptimised, is optimised in debug builds too; see
    // Cargo.toml.) The specs check what the server renders, not how fast.
    STOA_SSR_BUDGET_MS: process.env.STOA_SSR_BUDGET_MS ?? "2000",
  };
  // The suites run on the demo site ('for planet'), as `make run` serves it.
  const seeded = spawnSync(bin, ["seed", "--demo"], { env });
  if (seeded.status !== 0) throw new Error(`stoa seed --demo failed: ${seeded.stderr}`);
  const created = spawnSync(bin, ["admin", "create", "--email", ADMIN.email, "--password-stdin"], { env, input: `${ADMIN.password}\n` });
  if (created.status !== 0) throw new Error(`stoa admin create failed: ${created.stderr}`);
  const server = spawn(bin, ["serve"], { env, stdio: ["ignore", "inherit", "pipe"] });
  let serverLog = "";
  server.stderr.on("data", (d) => {
    serverLog += d;
  });
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/ready`)).ok) break;
    } catch {
      /* not up yet */
    }
    if (i > 200) throw new Error(`stoa did not start:\n${serverLog}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  // The render engines load the server script after `/ready` (a page asked for meanwhile waits
  // its 250 ms budget, then is served as the browser-rendered shell): the suites start once a
  // page comes rendered, or after 15 s (the server-HTML spec then says what is missing).
  for (let i = 0; i < 150; i++) {
    const html = await (await fetch(`${base}/ru/`)).text();
    if (!html.includes('<div id="root"></div>')) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-quic", "--disable-dev-shm-usage"],
  });
  return {
    base,
    smtp,
    browser,
    fakes,
    hooks,
    serverLog: () => serverLog,
    async stop() {
      await browser.close();
      server.kill("SIGTERM");
      for (const f of Object.values(fakes)) f.stop();
      await smtp.close();
      hooks.server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A browser context whose pages are watched for console errors, outside requests and a11y. */
export async function watchedContext(stack, { viewport = { width: 1280, height: 900 }, init } = {}) {
  const context = await stack.browser.newContext({ viewport, baseURL: stack.base });
  context.setDefaultTimeout(10000);
  // The admin keeps its language in the browser (else the site's default, Russian here); the
  // specs read it in English unless one of them chooses another.
  await context.addInitScript(() => {
    try {
      if (!localStorage.getItem("stoa.admin.language")) localStorage.setItem("stoa.admin.language", "en");
    } catch {
      // an opaque origin (about:blank) has no storage
    }
  });
  const problems = [];
  const allowed = new Set();
  if (init) await init(context);
  context.on("request", (req) => {
    const u = new URL(req.url());
    if (!["127.0.0.1", "localhost"].includes(u.hostname) && !["data:", "blob:"].includes(u.protocol)) {
      problems.push(`request to a non-loopback host: ${req.url()}`);
    }
  });
  const watch = (page) => {
    page.on("console", (msg) => {
      if (msg.type() !== "error") return;
      const text = msg.text();
      const status = /status of (\d{3})/.exec(text)?.[1];
      if (status && allowed.has(Number(status))) return;
      problems.push(`console error on ${page.url()}: ${text}`);
    });
    page.on("pageerror", (e) => problems.push(`uncaught error on ${page.url()}: ${e.message}`));
  };
  context.on("page", watch);
  // A server-rendered page shows before React takes it over; a click then would be lost. Every
  // navigation waits for `<html data-hydrated>` (set once the app has mounted).
  context.on("page", (p) => {
    const goto = p.goto.bind(p);
    p.goto = async (...args) => {
      const res = await goto(...args);
      await p.locator("html[data-hydrated]").waitFor({ state: "attached", timeout: 15000 }).catch(() => undefined);
      return res;
    };
  });
  const page = await context.newPage();
  return {
    context,
    page,
    problems,
    /** HTTP statuses the next steps expect (their console lines are not errors). */
    expectStatus: (...s) => s.forEach((x) => allowed.add(x)),
    clearExpected: () => allowed.clear(),
  };
}

let shot = 0;
/** Screenshot plus axe-core: any serious or critical violation fails the step. */
export async function screen(page, name) {
  shot += 1;
  await page.waitForLoadState("networkidle").catch(() => undefined);
  // Transitions still running (a toast fading in) would read as low contrast; infinite ones
  // (spinners) are not waited for.
  await page
    .waitForFunction(() => document.getAnimations().every((a) => a.playState !== "running" || a.effect?.getComputedTiming().iterations === Infinity), undefined, { timeout: 3000 })
    .catch(() => undefined);
  await page.screenshot({ path: join(artifacts, `${String(shot).padStart(2, "0")}-${name}.png`), fullPage: true });
  const result = await axeFindings(page);
  if (result.length) throw new Error(`axe-core on ${name}:\n  ${result.join("\n  ")}`);
}

/** The serious and critical axe-core findings on the page as it is now (no screenshot, no waiting):
 * for walks over many screens. */
export async function axeFindings(page) {
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE);
  return page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const r = await window.axe.run(document, { resultTypes: ["violations"] });
    return r.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")}`);
  });
}

/** A same-origin API call from a signed-in page (its cookies), answering the JSON body. 2xx only:
 * anything else throws (and a failed request would be a console error anyway). */
export async function pageCall(page, method, path, body) {
  const r = await page.evaluate(
    async ([m, p, b]) => {
      const res = await fetch(p, { method: m, headers: b ? { "content-type": "application/json" } : {}, body: b ? JSON.stringify(b) : undefined });
      return { status: res.status, json: await res.json().catch(() => null) };
    },
    [method, path, body],
  );
  if (r.status >= 300) throw new Error(`${method} ${path} answered ${r.status}: ${JSON.stringify(r.json)}`);
  return r.json;
}

/** Signs in through the login form; `redirect` is where the form sends the browser after. */
export async function signIn(page, { email, password }, redirect) {
  const q = redirect ? `?redirect=${encodeURIComponent(redirect)}` : "";
  await page.goto(`/en/rbac/subject/authentication/select-method${q}`);
  const form = page.getByRole("form", { name: "Sign in" });
  await form.getByLabel("Email").fill(email);
  await form.getByLabel("Password", { exact: true }).fill(password);
  await form.getByRole("button", { name: "Sign in" }).click();
}

/** Opens a record form's closed 'Advanced' section (slug, admin name, design, position), if closed. */
export async function openAdvanced(dialog) {
  const details = dialog.getByTestId("advanced-fields");
  if (!(await details.evaluate((d) => d.open))) await details.locator("summary").click();
}

export function expect(cond, message) {
  if (!cond) throw new Error(message);
}
