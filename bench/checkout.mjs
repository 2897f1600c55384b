#!/usr/bin/env node
// The checkout client of bench/checkout.sh and bench/kill-checkout.sh: plain Node 20 (global
// fetch, keep-alive), no packages. Each of CLIENTS workers repeats one buyer's checkout:
// POST …/authentication/init (a new anonymous subject) → add the product to the cart → checkout
// with the dummy provider. The dummy provider pays by its own webhook (a delayed job) through the
// webhook inbox; another job applies it and the order goes paying → approving.
//
//   node bench/checkout.mjs setup    # the catalogue (currency, price key, store, product, price);
//                                    # prints the product id
//   node bench/checkout.mjs bench    # load for DURATION s (or COUNT checkouts), then waits until
//                                    # every acknowledged order is approving, audits, prints one
//                                    # markdown table row (and the JSON summary to RESULT)
//   node bench/checkout.mjs kill     # load that survives the server being killed and restarted;
//                                    # every acknowledged checkout is appended to ACKS at once; after
//                                    # each, the invoice's webhook is also posted directly 2-3 times
//                                    # (identical copies, some concurrently, and a copy with other bytes)
//   node bench/checkout.mjs verify   # after the kill: waits up to DRAIN_TIMEOUT s for the inbox and
//                                    # the job queue to drain, prints PASS/FAIL lines, exit 1 on FAIL
//
// Environment: BASE (http://127.0.0.1:18092), KEY (the server's STOA_SECRET_KEY: admin reads and the
// setup), PRODUCT (from setup), CLIENTS (32), DURATION (s, 20), COUNT (checkouts in all; replaces
// DURATION), PAY_TIMEOUT (s the bench waits for the payments, and then for the background work,
// 120), BACKGROUND (1: after the payments, also wait until no job is due or running and log the
// CPU per checkout in all; 0: skip), ACKS (file of acknowledged
// checkouts), DRAIN_TIMEOUT (s, 400), RESTARTED_AT (ms epoch of the restart, for the report),
// LABEL (first column of the row), RESULT (file for the JSON summary).
import { appendFileSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import http from 'node:http';

const env = process.env;
const BASE = (env.BASE || 'http://127.0.0.1:18092').replace(/\/$/, '');
const KEY = env.KEY || '';
const CLIENTS = Number(env.CLIENTS || 32);
const DURATION = Number(env.DURATION || 20);
const COUNT = env.COUNT ? Number(env.COUNT) : null;
const PAY_TIMEOUT = Number(env.PAY_TIMEOUT || 120);
const DRAIN_TIMEOUT = Number(env.DRAIN_TIMEOUT || 400);
const BACKGROUND = env.BACKGROUND !== '0';
const AUTH = '/api/rbac/subjects/authentication';
const HOOK = '/api/billing/payment-intents/dummy/webhook';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (...a) => console.error(`[checkout ${new Date().toISOString().slice(11, 23)}]`, ...a);

/** Keep-alive connections, one per client at most: Node's `http` costs the client a third of
 *  what `fetch` did per request (the client shares the machine's two cores with the server). */
const agent = new http.Agent({ keepAlive: true, maxSockets: Math.max(CLIENTS, 8) * 2 });
const base = new URL(BASE);

/** One request: {status, data, text, headers (a Headers), ms}; status 0 when the connection
 *  failed or timed out. */
function call(method, path, { body, jwt, admin, timeout = 60_000 } = {}) {
  const headers = {};
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  if (payload !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = Buffer.byteLength(payload);
  }
  if (jwt) headers.authorization = `Bearer ${jwt}`;
  if (admin) headers['x-rbac-secret-key'] = KEY;
  const t = performance.now();
  return new Promise((resolve) => {
    const failed = (e) => resolve({ status: 0, text: String(e?.code || e?.message || e), ms: performance.now() - t });
    const req = http.request(
      { host: base.hostname, port: base.port, path, method, headers, agent, timeout },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('error', failed);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json = null;
          try { json = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') h.set(k, v);
          resolve({ status: res.statusCode, data: json?.data, text, headers: h, ms: performance.now() - t });
        });
      },
    );
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.on('error', failed);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

const admin = (method, path, body) => call(method, path, { body, admin: true });

async function create(path, body) {
  const r = await admin('POST', path, body);
  if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${r.text}`);
  return r.data;
}

/** The catalogue of crates/testkit/tests/api/commerce.rs `catalog`: one product "tree" at 199 ₽. */
async function setup() {
  const rub = await create('/api/billing/currencies', { slug: 'rub', symbol: '₽', title: 'Рубль', isDefault: true });
  const key = await create('/api/ecommerce/attribute-keys', { slug: 'price', type: 'price', field: 'number' });
  const store = await create('/api/ecommerce/stores', { slug: 'shop' });
  const p = await create('/api/ecommerce/products', { slug: 'tree', title: { en: 'tree', ru: 'дерево' } });
  await create('/api/ecommerce/stores-to-products', { storeId: store.id, productId: p.id, sku: 'tree' });
  const a = await create('/api/ecommerce/attributes', { number: '199' });
  await create('/api/ecommerce/products-to-attributes', { productId: p.id, attributeId: a.id });
  await create('/api/ecommerce/attribute-keys-to-attributes', { attributeKeyId: key.id, attributeId: a.id });
  await create('/api/ecommerce/attributes-to-billing-module-currencies', { attributeId: a.id, billingModuleCurrencyId: rub.id });
  console.log(p.id);
}

// ---- the load -------------------------------------------------------------------------------

const stats = { acked: 0, errors: {}, latencies: [], webhooks: {}, started: 0, loadEnd: 0 };
const fail = (what, r) => {
  const k = `${what} ${r.status || r.text}`;
  stats.errors[k] = (stats.errors[k] || 0) + 1;
};

/** The subject id of an access token (its `sub` claim). */
const subjectOf = (jwt) => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url')).sub;

/** One buyer: init → add to cart → checkout. The acknowledged checkout, or null. */
async function buyer(n, product) {
  const init = await call('POST', `${AUTH}/init`, { body: {} });
  if (init.status !== 201) return fail('init', init), null;
  const jwt = init.data.jwt;
  const orders = `/api/rbac/subjects/${subjectOf(jwt)}/ecommerce-module/orders`;
  const add = await call('POST', orders, { body: { productId: product, quantity: 1 }, jwt });
  if (add.status !== 201) return fail('add', add), null;
  const co = await call('POST', `${orders}/checkout`, { body: { provider: 'dummy', email: `b${n}@example.com` }, jwt });
  if (co.status) stats.latencies.push(co.ms); // every answered checkout, refused ones too
  if (co.status !== 201) return fail('checkout', co), null;
  stats.acked++;
  return {
    n,
    orders: co.data.ecommerceModule.orders,
    invoices: co.data.billingModule.invoices.map((i) => i.id),
    at: Date.now(),
  };
}

/** Posts `body` to the dummy webhook until it gets an answer (the server may be down a while). */
async function hook(body) {
  for (let i = 0; i < 100; i++) {
    const r = await call('POST', HOOK, { body, timeout: 30_000 });
    if (r.status !== 0) {
      stats.webhooks[r.status] = (stats.webhooks[r.status] || 0) + 1;
      return r;
    }
    await sleep(200);
  }
  stats.webhooks.gaveUp = (stats.webhooks.gaveUp || 0) + 1;
}

/** The dummy provider's webhook for an invoice, posted directly: 2-3 copies per checkout. The
 *  first shape has the same bytes as the dummy job's own webhook (so it meets the inbox's unique
 *  key); the second has other bytes (a new inbox entry, which must change nothing). */
async function directWebhooks(n, invoice) {
  let inv;
  for (let i = 0; i < 100; i++) {
    inv = await admin('GET', `/api/billing/invoices/${invoice}`);
    if (inv.status !== 0) break;
    await sleep(200);
  }
  if (inv.status !== 200) return fail('invoice', inv);
  const token = inv.data.providerId;
  const same = JSON.stringify({ data: { id: invoice, token, status: 'paid' } });
  const other = JSON.stringify({ data: { status: 'paid', id: invoice, token } });
  switch (n % 3) {
    case 0: // two identical at once, then one with other bytes
      await Promise.all([hook(same), hook(same)]);
      await hook(other);
      break;
    case 1: // the same twice in a row
      await hook(same);
      await hook(same);
      break;
    default: // three at once, both shapes
      await Promise.all([hook(same), hook(other), hook(same)]);
  }
}

async function load({ kill }) {
  const product = env.PRODUCT;
  if (!product) throw new Error('PRODUCT is not set (node bench/checkout.mjs setup prints it)');
  const acks = [];
  let seq = 0;
  stats.started = Date.now();
  const deadline = stats.started + DURATION * 1000;
  const next = () => (COUNT !== null ? (seq < COUNT ? seq++ : null) : Date.now() < deadline ? seq++ : null);
  const worker = async () => {
    for (let n = next(); n !== null; n = next()) {
      const ack = await buyer(n, product);
      if (ack) {
        acks.push(ack);
        if (kill) {
          // Written before anything else happens: these are the checkouts the client was promised.
          appendFileSync(env.ACKS, JSON.stringify(ack) + '\n');
          for (const inv of ack.invoices) await directWebhooks(n, inv);
        }
      } else if (kill) {
        await sleep(100); // the server may be down: do not spin
      }
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, worker));
  stats.loadEnd = Date.now();
  return acks;
}

// ---- reading the outcome through the admin API ------------------------------------------------

function query(filters = [], extra = '') {
  const parts = [];
  filters.forEach(([column, method, value], i) => {
    parts.push(`filters[and][${i}][column]=${encodeURIComponent(column)}`, `filters[and][${i}][method]=${method}`);
    if (value !== undefined) parts.push(`filters[and][${i}][value]=${encodeURIComponent(value)}`);
  });
  return parts.join('&') + extra;
}

/** Every row of an admin list, 1000 per page in id order (keyset paging: the server bounds offsets). */
async function all(path, filters = []) {
  const rows = [];
  for (let after = ''; ;) {
    const cursor = after ? `&after=${encodeURIComponent(after)}` : '';
    const r = await admin('GET', `${path}?${query(filters, `&orderBy[and][0][column]=id&orderBy[and][0][method]=asc&limit=1000${cursor}`)}`);
    if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.text}`);
    rows.push(...r.data);
    after = r.headers.get('x-next-cursor') || '';
    if (r.data.length < 1000 || !after) return rows;
  }
}

/** The number of rows matching `filters` (exact up to the server's count cap of 10 000). */
async function count(path, filters = []) {
  const r = await admin('GET', `${path}?${query(filters, '&limit=1&count=true')}`);
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.text}`);
  return Number(r.headers.get('x-total-count'));
}

const tally = (xs) => xs.reduce((m, x) => ((m[x] = (m[x] || 0) + 1), m), {});

/** What the database says about the acknowledged checkouts, the inbox and the job queue. */
async function audit(acks) {
  const orders = new Map((await all('/api/ecommerce/orders')).map((o) => [o.id, o.status]));
  const approvals = await all('/api/ecommerce/order-status-changes', [['to', 'eq', 'approving']]);
  const perOrder = tally(approvals.filter((c) => c.from === 'paying').map((c) => c.orderId));
  const webhooks = await all('/api/billing/webhooks');
  const applied = tally(webhooks.filter((w) => w.status === 'processed').map((w) => w.invoiceId));
  const invoices = await all('/api/billing/invoices');
  const acked = acks.flatMap((a) => a.orders);
  const ours = new Set(acked);
  const lastPaid = approvals.filter((c) => ours.has(c.orderId)).reduce((t, c) => Math.max(t, Date.parse(c.createdAt)), 0);
  const now = new Date().toISOString();
  const due = await all('/api/platform/jobs', [['status', 'eq', 'queued'], ['runAt', 'lte', now]]);
  const running = await all('/api/platform/jobs', [['status', 'eq', 'running']]);
  const dead = await all('/api/platform/jobs', [['status', 'eq', 'dead']]);
  return {
    acked: acked.length,
    missing: acked.filter((id) => !orders.has(id)),
    notPaid: acked.filter((id) => orders.get(id) !== 'approving'),
    // Paying orders no client got a 201 for (a checkout cut short).
    payingUnacked: [...orders].filter(([id, st]) => st === 'paying' && !ours.has(id)).map(([id]) => id),
    orderStatuses: tally([...orders.values()]),
    ordersApprovedTwice: Object.entries(perOrder).filter(([, n]) => n > 1).map(([id]) => id),
    invoicesPaidTwice: Object.entries(applied).filter(([, n]) => n > 1).map(([id]) => id),
    invoiceStatuses: tally(invoices.map((i) => i.status)),
    webhookStatuses: tally(webhooks.map((w) => w.status)),
    received: webhooks.filter((w) => w.status === 'received').length,
    jobsDue: due.map((j) => j.name),
    jobsRunning: running.map((j) => `${j.name} (locked until ${j.lockedUntil})`),
    jobsDead: dead.map((j) => `${j.name}: ${j.lastError}`),
    lastPaid,
  };
}

const pct = (xs, p) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

/** CPU seconds the server (SERVER_PID) has used so far, from /proc; null when unknown. */
function serverCpu() {
  try {
    const f = readFileSync(`/proc/${env.SERVER_PID}/stat`, 'utf8');
    const fields = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in USER_HZ (100)
  } catch {
    return null;
  }
}

/** SQLite's write transactions, group commits and seconds the writer connection was held so
 *  far (`/metrics`), with when they were read; null on PostgreSQL. */
async function writes() {
  const r = await admin('GET', '/metrics');
  const read = (state) => {
    const m = (r.text || '').match(new RegExp(`^stoa_db_sqlite_writes_total\\{state="${state}"\\} (\\d+)`, 'm'));
    return m ? Number(m[1]) : null;
  };
  const [transactions, commits] = [read('transactions'), read('commits')];
  const busy = (r.text || '').match(/^stoa_db_sqlite_writer_busy_seconds_total\{state="held"\} ([\d.e+-]+)/m);
  return transactions === null ? null : { transactions, commits, busy: busy ? Number(busy[1]) : null, at: Date.now() };
}

async function bench() {
  const approving = () => count('/api/ecommerce/orders', [['status', 'eq', 'approving']]);
  const before = await approving(); // 0 on the fresh database of checkout.sh
  const writesBefore = await writes();
  const cpuBefore = serverCpu();
  const clientBefore = process.cpuUsage();
  const sinkBefore = env.SMTP_STATUS ? await (await fetch(env.SMTP_STATUS)).json() : null;
  const acks = await load({ kill: false });
  const client = process.cpuUsage(clientBefore); // the load only, not the wait for the payments
  log(`load done: ${stats.acked} checkouts acknowledged in ${((stats.loadEnd - stats.started) / 1000).toFixed(1)} s; waiting for the payments`);
  const until = Date.now() + PAY_TIMEOUT * 1000;
  const acked = acks.reduce((n, a) => n + a.orders.length, 0);
  for (;;) {
    const paying = await count('/api/ecommerce/orders', [['status', 'eq', 'paying']]);
    if (paying === 0 || (await approving()) - before >= acked) break;
    if (Date.now() > until) { log(`timed out: ${paying} orders still paying`); break; }
    await sleep(250);
  }
  const cpuAfter = serverCpu(); // the payments are done; the background mail may go on
  const writesAfter = await writes(); // before the audit's reads (they write nothing anyway)
  const a = await audit(acks);
  // The background work behind the payments: jobs by name and status.
  a.jobs = tally((await all('/api/platform/jobs')).map((j) => `${j.name} ${j.status}`));
  const paidAfter = (a.lastPaid - stats.started) / 1000;
  const loadS = (stats.loadEnd - stats.started) / 1000;
  const errors = Object.values(stats.errors).reduce((x, y) => x + y, 0);
  const fiveXX = Object.entries(stats.errors).filter(([k]) => / 5\d\d$/.test(k)).reduce((x, [, n]) => x + n, 0);
  const s = {
    label: env.LABEL || '',
    clients: CLIENTS,
    loadSeconds: loadS,
    acknowledged: stats.acked,
    errors: stats.errors,
    ackedPerSecond: stats.acked / loadS,
    lastPaidAfterSeconds: paidAfter,
    paidPerSecond: stats.acked / paidAfter,
    checkoutP50: pct(stats.latencies, 50),
    checkoutP99: pct(stats.latencies, 99),
    lost: a.notPaid.length,
    doublePaid: a.ordersApprovedTwice.length + a.invoicesPaidTwice.length,
    ...a,
  };
  if (cpuBefore !== null && cpuAfter !== null) {
    s.serverCpuMsPerCheckout = ((cpuAfter - cpuBefore) * 1000) / Math.max(1, stats.acked);
    log(`server CPU: ${(cpuAfter - cpuBefore).toFixed(1)} s, ${s.serverCpuMsPerCheckout.toFixed(1)} ms per paid checkout (receipts and mail still queued not included)`);
  }
  s.clientCpuMsPerCheckout = ((client.user + client.system) / 1000) / Math.max(1, stats.acked);
  log(`client CPU during the load: ${((client.user + client.system) / 1e6).toFixed(1)} s, ${s.clientCpuMsPerCheckout.toFixed(2)} ms per acknowledged checkout (the client shares the machine's cores)`);
  if (writesBefore && writesAfter) {
    // Every write of the run (the buyers' requests and the jobs behind the payments), per
    // acknowledged checkout, and how many writers shared each fsync.
    const tx = writesAfter.transactions - writesBefore.transactions;
    const commits = writesAfter.commits - writesBefore.commits;
    s.writeTransactionsPerCheckout = tx / Math.max(1, stats.acked);
    s.writersPerCommit = tx / Math.max(1, commits);
    log(`SQLite: ${tx} write transactions (${s.writeTransactionsPerCheckout.toFixed(1)} per checkout) in ${commits} commits (${s.writersPerCommit.toFixed(1)} writers per fsync)`);
    if (writesBefore.busy !== null && writesAfter.busy !== null) {
      // Near 100 %, the one writer connection is what limits the checkouts.
      const busy = writesAfter.busy - writesBefore.busy;
      s.writerBusyShare = busy / ((writesAfter.at - writesBefore.at) / 1000);
      s.writerHeldMsPerCheckout = (busy * 1000) / Math.max(1, stats.acked);
      log(`SQLite's writer connection held ${(s.writerBusyShare * 100).toFixed(0)} % of the time (${s.writerHeldMsPerCheckout.toFixed(2)} ms per checkout, ${((busy * 1e6) / Math.max(1, tx)).toFixed(0)} µs per write transaction)`);
    }
  }
  if (BACKGROUND && cpuBefore !== null) {
    // The whole cost of a paid order: wait until the background work behind the payments (the
    // receipt and the buyer's and admins' mail) is done too, i.e. no job due or running.
    const limit = Date.now() + PAY_TIMEOUT * 1000;
    let left = null;
    for (;;) {
      const now = new Date().toISOString();
      left = (await count('/api/platform/jobs', [['status', 'eq', 'queued'], ['runAt', 'lte', now]]))
        + (await count('/api/platform/jobs', [['status', 'eq', 'running']]));
      if (left === 0 || Date.now() > limit) break;
      await sleep(250);
    }
    const cpuAll = serverCpu();
    const doneAfter = (Date.now() - stats.started) / 1000;
    s.backgroundDone = left === 0;
    s.allDoneAfterSeconds = doneAfter;
    s.fullyProcessedPerSecond = stats.acked / doneAfter;
    s.serverCpuMsPerCheckoutInAll = ((cpuAll - cpuBefore) * 1000) / Math.max(1, stats.acked);
    log(`${left === 0 ? 'all background work (receipts, mail) done' : `gave up waiting with ${left} jobs left`} ${doneAfter.toFixed(1)} s after the start: `
      + `${s.fullyProcessedPerSecond.toFixed(1)} checkouts fully processed/s, ${s.serverCpuMsPerCheckoutInAll.toFixed(1)} ms of server CPU per checkout in all`);
    s.afterLoadSeconds = doneAfter - loadS;
    log(`the background work was done ${s.afterLoadSeconds.toFixed(1)} s after the load's end`);
  }
  if (env.SMTP_STATUS) {
    // What reached the mail server: every paid order's mail, each with its receipt attached.
    const sink = await (await fetch(env.SMTP_STATUS)).json();
    const got = sink.messages - (sinkBefore?.messages ?? 0);
    const attached = sink.withAttachment - (sinkBefore?.withAttachment ?? 0);
    s.mail = { messages: got, withReceipt: attached, connections: sink.connections - (sinkBefore?.connections ?? 0),
      megabytes: (sink.bytes - (sinkBefore?.bytes ?? 0)) / 1e6, sinkCpuMsPerMail: (sink.cpuMs - (sinkBefore?.cpuMs ?? 0)) / Math.max(1, got) };
    log(`mail: ${got} messages over SMTP (${attached} with the receipt attached; ${stats.acked} orders paid), `
      + `${s.mail.megabytes.toFixed(1)} MB over ${s.mail.connections} connections; the sink spent ${s.mail.sinkCpuMsPerMail.toFixed(2)} ms of CPU a message`);
    // One mail per paid order (the bench's buyers are the only recipients): more is a mail sent
    // twice, fewer one lost or still queued.
    if (got !== stats.acked || attached !== stats.acked) log(`MAIL MISMATCH: ${got} messages, ${attached} with a receipt, for ${stats.acked} paid orders`);
  }
  if (env.RESULT) writeFileSync(env.RESULT, JSON.stringify(s, null, 2));
  if (errors) log('errors:', JSON.stringify(stats.errors));
  const f = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '—');
  console.log(`| ${s.label} | ${CLIENTS} | ${f(loadS)} | ${s.acknowledged} | ${errors}${fiveXX ? ` (${fiveXX} 5xx)` : ''} | ${f(s.ackedPerSecond)} | ${f(s.paidPerSecond)} | ${f(paidAfter)} | ${f(s.checkoutP50)} | ${f(s.checkoutP99)} | ${s.lost} | ${s.doublePaid} |`);
}

async function kill() {
  if (!env.ACKS) throw new Error('ACKS is not set');
  const acks = await load({ kill: true });
  const summary = { acknowledged: stats.acked, errors: stats.errors, webhookAnswers: stats.webhooks, seconds: (stats.loadEnd - stats.started) / 1000 };
  log('kill-mode load done:', JSON.stringify(summary));
  if (env.RESULT) writeFileSync(env.RESULT, JSON.stringify(summary, null, 2));
  return acks;
}

async function verify() {
  const acks = existsSync(env.ACKS) ? readFileSync(env.ACKS, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
  const until = Date.now() + DRAIN_TIMEOUT * 1000;
  let a;
  let shown = 0;
  for (;;) {
    a = await audit(acks);
    const settled = a.received === 0 && a.jobsDue.length === 0 && a.jobsRunning.length === 0 && a.notPaid.length === 0;
    if (settled || Date.now() > until) break;
    if (Date.now() - shown > 10_000) {
      shown = Date.now();
      log(`waiting for the drain: ${a.received} webhooks received, ${a.jobsDue.length} jobs due, ${a.jobsRunning.length} running`
        + `${a.jobsRunning.length ? ` (${a.jobsRunning[0]})` : ''}, ${a.notPaid.length} acknowledged orders not yet approving`);
    }
    await sleep(1000);
  }
  const restarted = Number(env.RESTARTED_AT || 0);
  const drainedAfter = restarted ? ((Date.now() - restarted) / 1000).toFixed(1) : '?';
  const checks = [
    ['every acknowledged checkout is in the database', a.missing.length === 0, `${a.acked} acknowledged orders; missing: ${a.missing.slice(0, 5).join(', ') || 'none'}`],
    ['every acknowledged checkout was paid (approving)', a.notPaid.length === 0, `not approving: ${a.notPaid.length}${a.notPaid.length ? ` e.g. ${a.notPaid[0]}` : ''}`],
    ['no order paid twice (at most one paying→approving change)', a.ordersApprovedTwice.length === 0, `orders with 2+: ${a.ordersApprovedTwice.slice(0, 5).join(', ') || 'none'}`],
    ['no invoice paid twice (at most one applied webhook)', a.invoicesPaidTwice.length === 0, `invoices with 2+: ${a.invoicesPaidTwice.slice(0, 5).join(', ') || 'none'}`],
    ['the inbox is drained (no webhook left received)', a.received === 0, `webhooks by status: ${JSON.stringify(a.webhookStatuses)}`],
    ['no job due or running left', a.jobsDue.length === 0 && a.jobsRunning.length === 0, `due: ${JSON.stringify(tally(a.jobsDue))}; running: ${a.jobsRunning.slice(0, 3).join('; ') || 'none'}`],
    ['no dead job', a.jobsDead.length === 0, a.jobsDead.slice(0, 3).join('; ') || 'none'],
  ];
  let failed = 0;
  for (const [what, ok, detail] of checks) {
    if (!ok) failed++;
    console.log(`${ok ? 'PASS' : 'FAIL'}  ${what} — ${detail}`);
  }
  console.log(`INFO  orders by status: ${JSON.stringify(a.orderStatuses)}; invoices by status: ${JSON.stringify(a.invoiceStatuses)}; checked ${drainedAfter} s after the (last) restart`);
  if (a.payingUnacked.length) {
    console.log(`INFO  ${a.payingUnacked.length} order(s) left paying whose checkout no client saw answered (cut by the kill), e.g. ${a.payingUnacked[0]}`);
  }
  process.exitCode = failed ? 1 : 0;
}

const mode = process.argv[2];
const modes = { setup, bench, kill, verify };
if (!modes[mode]) {
  console.error('usage: node bench/checkout.mjs setup|bench|kill|verify (see the header)');
  process.exit(2);
}
modes[mode]().catch((e) => {
  console.error(e);
  process.exit(2);
});
