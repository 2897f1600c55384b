#!/usr/bin/env node
// The client of bench/soak.sh: plain Node 20 (global fetch), no packages. CLIENTS workers run a
// mixed load for DURATION seconds — reads (product by id, product lists, the signed-in `me`),
// password sign-ins, checkouts with the dummy provider (init → cart → checkout) and chat messages —
// while the server's resident memory (VmRSS of PID) is sampled every SAMPLE seconds. Prints a JSON
// summary (to RESULT too): answers per kind and status, 5xx, 4xx (every request of the mix is
// valid), connection failures, and memory. Growth is the median of the samples in the last WINDOW
// seconds against the median of the first WINDOW seconds after the warm-up (WARMUP s): single
// samples swing by ±20 % with the requests in flight, so one low sample after the warm-up made a
// flat run read as 28 % growth. The point-to-point figure is printed too. Exit 1 on any 5xx, 4xx or
// failed connection, or when memory grew by more than MAX_GROWTH percent.
//
// Environment: BASE, KEY (the server's STOA_SECRET_KEY), PRODUCT (bench/checkout.mjs setup), PID,
// CLIENTS (16), DURATION (s, 1800), WARMUP (s, 60), SAMPLE (s, 10), WINDOW (s, 300 or a fifth of
// the run), MAX_GROWTH (%, 10), RESULT.
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const env = process.env;
const BASE = (env.BASE || 'http://127.0.0.1:18093').replace(/\/$/, '');
const KEY = env.KEY || '';
const PRODUCT = env.PRODUCT;
const PID = env.PID;
const CLIENTS = Number(env.CLIENTS || 16);
const DURATION = Number(env.DURATION || 1800);
const WARMUP = Number(env.WARMUP || Math.min(60, DURATION / 5));
const SAMPLE = Number(env.SAMPLE || 10);
const MAX_GROWTH = Number(env.MAX_GROWTH || 10);
const WINDOW = Number(env.WINDOW || Math.min(300, DURATION / 5));
const AUTH = '/api/rbac/subjects/authentication';
const S = '/api/rbac/subjects';
const PASSWORD = 'soak-password-123';
const log = (...a) => console.error(`[soak ${new Date().toISOString().slice(11, 19)}]`, ...a);

const counts = {};
let fivexx = 0;
let failed = 0;
let refused = 0;
async function call(kind, method, path, { body, jwt, admin, who } = {}) {
  // An access token lives 15 minutes: a 401 for one that expired is answered by a refresh (the
  // client's job, as the web app does), then the request is made again.
  if (who) {
    const first = await send(kind, method, path, { body, jwt: who.jwt, admin, quiet401: true });
    if (first.status !== 401) return first;
    // One refresh at a time per account: two with the same token would be a reuse (the server
    // then revokes the session, as it should).
    if (first.jwt === who.jwt) {
      who.refreshing ??= send('refresh', 'POST', `${AUTH}/refresh`, { body: { refresh: who.refresh } })
        .then((r) => {
          if (r.status === 201) Object.assign(who, { jwt: r.data.jwt, refresh: r.data.refresh });
        })
        .finally(() => { who.refreshing = null; });
    }
    await who.refreshing;
    return send(kind, method, path, { body, jwt: who.jwt, admin });
  }
  return send(kind, method, path, { body, jwt, admin });
}

async function send(kind, method, path, { body, jwt, admin, quiet401 } = {}) {
  const headers = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (jwt) headers.authorization = `Bearer ${jwt}`;
  if (admin) headers['x-rbac-secret-key'] = KEY;
  let status = 0;
  let data;
  try {
    const r = await fetch(BASE + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(60_000) });
    status = r.status;
    const text = await r.text();
    try { data = JSON.parse(text)?.data; } catch { /* not JSON */ }
    if (status >= 500) log(`${kind}: ${status} ${text.slice(0, 200)}`);
  } catch (e) {
    log(`${kind}: ${e?.cause?.code || e?.name || e}`);
  }
  if (quiet401 && status === 401) return { status, data, jwt };
  const k = `${kind} ${status}`;
  counts[k] = (counts[k] || 0) + 1;
  if (status >= 500) fivexx++;
  if (status === 0) failed++;
  // Every request of the mix is valid: a 4xx means the script or the server broke.
  if (status >= 400 && status < 500) refused++;
  return { status, data };
}
const subjectOf = (jwt) => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url')).sub;

function rss() {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${PID}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function setup() {
  const users = [];
  for (let i = 0; i < 8; i++) {
    const email = `soak-${i}-${Date.now()}@example.com`;
    const r = await call('setup', 'POST', `${AUTH}/email-and-password/registration`, { body: { login: email, password: PASSWORD } });
    if (r.status !== 201) throw new Error(`registration: ${r.status}`);
    users.push({ email, jwt: r.data.jwt, refresh: r.data.refresh, subject: subjectOf(r.data.jwt) });
  }
  // Chats between pairs of anonymous members, each with a profile.
  const members = [];
  for (let i = 0; i < 16; i++) {
    const init = await call('setup', 'POST', `${AUTH}/init`, { body: {} });
    const m = { jwt: init.data.jwt, refresh: init.data.refresh, subject: subjectOf(init.data.jwt) };
    const p = await call('setup', 'POST', `${S}/${m.subject}/social-module/profiles`, { body: { title: `soak ${i}` }, jwt: m.jwt });
    m.profile = p.data.id;
    members.push(m);
  }
  for (let i = 0; i < members.length; i += 2) {
    const [a, b] = [members[i], members[i + 1]];
    const c = await call('setup', 'POST', `${S}/${a.subject}/social-module/profiles/${a.profile}/chats`, { body: { title: `soak chat ${i}`, profileIds: [b.profile] }, jwt: a.jwt });
    if (c.status !== 201) throw new Error(`chat: ${c.status}`);
    a.chat = b.chat = c.data.id;
  }
  return { users, members };
}

const pick = (list) => list[Math.floor(Math.random() * list.length)];

async function action({ users, members }, n) {
  const roll = Math.random();
  if (roll < 0.3) return call('read-by-id', 'GET', `/api/ecommerce/products/${PRODUCT}`);
  if (roll < 0.45) return call('read-list', 'GET', `/api/ecommerce/products?limit=20`);
  if (roll < 0.6) return call('read-me', 'GET', `${AUTH}/me`, { who: pick(users) });
  if (roll < 0.7) {
    const u = pick(users);
    return call('sign-in', 'POST', `${AUTH}/email-and-password/authentication`, { body: { login: u.email, password: PASSWORD } });
  }
  if (roll < 0.85) {
    const init = await call('checkout', 'POST', `${AUTH}/init`, { body: {} });
    if (init.status !== 201) return;
    const jwt = init.data.jwt;
    const orders = `${S}/${subjectOf(jwt)}/ecommerce-module/orders`;
    const add = await call('checkout', 'POST', orders, { body: { productId: PRODUCT, quantity: 1 }, jwt });
    if (add.status !== 201) return;
    return call('checkout', 'POST', `${orders}/checkout`, { body: { provider: 'dummy', email: `soak${n}@example.com` }, jwt });
  }
  const m = pick(members);
  return call('chat', 'POST', `${S}/${m.subject}/social-module/profiles/${m.profile}/chats/${m.chat}/messages`, { body: { description: `soak ${n}` }, who: m });
}

async function main() {
  if (!PRODUCT || !PID) throw new Error('PRODUCT and PID are required (bench/soak.sh sets them)');
  const world = await setup();
  const started = performance.now();
  const end = started + DURATION * 1000;
  const samples = [];
  const sampler = setInterval(() => samples.push({ s: Math.round((performance.now() - started) / 1000), mib: rss() }), SAMPLE * 1000);
  samples.push({ s: 0, mib: rss() });
  let seq = 0;
  const worker = async () => {
    while (performance.now() < end) await action(world, seq++);
  };
  await Promise.all(Array.from({ length: CLIENTS }, worker));
  clearInterval(sampler);
  samples.push({ s: Math.round((performance.now() - started) / 1000), mib: rss() });
  const afterWarmup = samples.find((x) => x.s >= WARMUP) ?? samples[0];
  const last = samples[samples.length - 1];
  const peak = Math.max(...samples.map((x) => x.mib));
  const pointGrowth = ((last.mib - afterWarmup.mib) / afterWarmup.mib) * 100;
  const median = (xs) => {
    const v = xs.map((x) => x.mib).sort((a, b) => a - b);
    return v.length ? (v[(v.length - 1) >> 1] + v[v.length >> 1]) / 2 : NaN;
  };
  const early = median(samples.filter((x) => x.s >= WARMUP && x.s <= WARMUP + WINDOW));
  const late = median(samples.filter((x) => x.s >= last.s - WINDOW));
  const growth = ((late - early) / early) * 100;
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  const summary = {
    durationS: DURATION,
    clients: CLIENTS,
    requests: total,
    perSecond: +(total / DURATION).toFixed(1),
    fivexx,
    refused4xx: refused,
    connectionFailures: failed,
    rssMiB: {
      start: +samples[0].mib.toFixed(1),
      afterWarmup: +afterWarmup.mib.toFixed(1),
      end: +last.mib.toFixed(1),
      peak: +peak.toFixed(1),
      pointGrowthPct: +pointGrowth.toFixed(1),
      windowS: WINDOW,
      earlyMedian: +early.toFixed(1),
      lateMedian: +late.toFixed(1),
      growthPct: +growth.toFixed(1),
    },
    counts,
    samples,
  };
  if (env.RESULT) writeFileSync(env.RESULT, JSON.stringify(summary, null, 2));
  const { samples: _, ...short } = summary;
  console.log(JSON.stringify(short, null, 2));
  if (fivexx || failed || refused || growth > MAX_GROWTH) {
    log(`FAIL: ${fivexx} 5xx, ${refused} 4xx, ${failed} failed connections, memory growth ${growth.toFixed(1)} % (window medians; point to point ${pointGrowth.toFixed(1)} %; limit ${MAX_GROWTH} %)`);
    process.exit(1);
  }
  log(`PASS: ${total} requests, 0 5xx, memory growth ${growth.toFixed(1)} % (window medians; point to point ${pointGrowth.toFixed(1)} %)`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
