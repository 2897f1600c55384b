#!/usr/bin/env node
// The client of bench/chat.sh: live chat delivery. Plain Node 18+ (global fetch), no packages; the
// Server-Sent Events of `GET /api/live` are read by hand from fetch's response body stream.
//
//   1. setup: SUBSCRIBERS anonymous accounts (POST …/authentication/init; the subject id is the
//      token's `sub`), one profile each, CHATS group chats of SUBSCRIBERS / CHATS members (titled,
//      so each is a new group chat; every account is in exactly one chat);
//   2. one `GET /api/live` stream per account, each waited for until its `hello`; the server's
//      RSS is read once the streams have been idle IDLE_WAIT s;
//   3. load: RATE messages/s for DURATION s, open loop (message k is due at k / RATE s), each from
//      a random member of a random chat, at most POSTERS posts in flight (a post that cannot start
//      on time because all are busy counts as a late start; its latency is timed from when it was
//      actually sent, so keep POSTERS above RATE × POST latency). The text carries the
//      send time, `bench k=<k> t=<performance.timeOrigin + performance.now()>`, taken just before
//      the POST; every subscriber that receives the `chat.message` event records receive time −
//      send time (one process, one clock). The author's own stream counts too: each message is
//      due on every member's stream, CHAT_SIZE deliveries per message;
//   4. then waits until every delivery of every acknowledged message has arrived, at most GRACE s;
//      what has not arrived by then is `missed`.
// Prints one markdown table row (the header is bench/chat.sh's) and writes a JSON summary to
// RESULT.
//
// The server's VmRSS/VmHWM and CPU time come from /proc/SERVER_PID (same machine): before setup,
// after setup (no streams), idle with every stream open, sampled every 250 ms during the load (the
// peak), and VmHWM at the end. CPU % is of one core, during the load: the server, this client,
// and every other process on the machine (PostgreSQL's backends, and anything else running: a
// large figure there means the run was disturbed).
//
// Environment: BASE (http://127.0.0.1:18093), SERVER_PID, CLK_TCK (100), SUBSCRIBERS (1000),
// CHATS (200), RATE (messages/s, 200), DURATION (s, 20), POSTERS (64), GRACE (s, 5), IDLE_WAIT
// (s, 3), SETUP_CONCURRENCY (16), LABEL (first column), RESULT (file for the JSON summary).
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const env = process.env;
const BASE = (env.BASE || 'http://127.0.0.1:18093').replace(/\/$/, '');
const SERVER_PID = env.SERVER_PID || '';
const CLK_TCK = Number(env.CLK_TCK || 100);
const SUBSCRIBERS = Number(env.SUBSCRIBERS || 1000);
const CHATS = Number(env.CHATS || 200);
const RATE = Number(env.RATE || 200);
const DURATION = Number(env.DURATION || 20);
const POSTERS = Number(env.POSTERS || 64);
const GRACE = Number(env.GRACE || 5);
const IDLE_WAIT = Number(env.IDLE_WAIT || 3);
const SETUP_CONCURRENCY = Number(env.SETUP_CONCURRENCY || 16);
const AUTH = '/api/rbac/subjects/authentication';
const S = '/api/rbac/subjects';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (...a) => console.error(`[chat ${new Date().toISOString().slice(11, 23)}]`, ...a);
const clock = () => performance.timeOrigin + performance.now();

/** One request: {status, data, text, ms}; status 0 when the connection failed or timed out. */
async function call(method, path, { body, jwt, timeout = 60_000 } = {}) {
  const headers = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (jwt) headers.authorization = `Bearer ${jwt}`;
  const t = performance.now();
  try {
    const r = await fetch(BASE + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeout),
    });
    const text = await r.text();
    let json = null;
    try { json = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
    return { status: r.status, data: json?.data, text, ms: performance.now() - t };
  } catch (e) {
    return { status: 0, text: String(e?.cause?.code || e?.cause?.message || e?.name || e), ms: performance.now() - t };
  }
}

async function must(status, method, path, opts) {
  const r = await call(method, path, opts);
  if (r.status !== status) throw new Error(`${method} ${path}: ${r.status} ${r.text.slice(0, 300)}`);
  return r.data;
}

/** Runs `f(i)` for i in 0..n, `width` at a time. */
async function pool(n, width, f) {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < n; i = next++) await f(i);
  };
  await Promise.all(Array.from({ length: Math.min(width, n) }, worker));
}

// ---- the server process -----------------------------------------------------------------------

/** {rss, hwm} of the server in KiB, or null. */
function mem() {
  if (!SERVER_PID) return null;
  try {
    const s = readFileSync(`/proc/${SERVER_PID}/status`, 'utf8');
    const kb = (k) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(s)?.[1] ?? NaN);
    return { rss: kb('VmRSS'), hwm: kb('VmHWM'), threads: kb('Threads') };
  } catch {
    return null;
  }
}

/** The server's CPU time (user + system), seconds. */
function serverCpu() {
  if (!SERVER_PID) return NaN;
  try {
    const s = readFileSync(`/proc/${SERVER_PID}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / CLK_TCK; // utime, stime (fields 14, 15)
  } catch {
    return NaN;
  }
}

/** CPU time of the whole machine (every core, every process), busy and all, seconds. */
function machineCpu() {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const all = f.slice(0, 8).reduce((a, b) => a + b, 0); // user … steal (guest is inside user)
    const idle = f[3] + (f[4] || 0); // idle + iowait
    return { busy: (all - idle) / CLK_TCK, all: all / CLK_TCK };
  } catch {
    return { busy: NaN, all: NaN };
  }
}

const clientCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

// ---- setup ------------------------------------------------------------------------------------

/** The subject id of an access token (its `sub` claim). */
const subjectOf = (jwt) => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url')).sub;

async function setup() {
  const members = new Array(SUBSCRIBERS);
  let t = performance.now();
  await pool(SUBSCRIBERS, SETUP_CONCURRENCY, async (i) => {
    const init = await must(201, 'POST', `${AUTH}/init`, { body: {} });
    members[i] = { i, jwt: init.jwt, subject: subjectOf(init.jwt) };
  });
  // The token's `sub` is the subject `me` names (checked once).
  const me = await must(200, 'GET', `${AUTH}/me`, { jwt: members[0].jwt });
  const meId = me?.id ?? me?.subject?.id ?? me?.rbacModule?.subject?.id;
  if (meId && meId !== members[0].subject) throw new Error(`me says ${meId}, the token ${members[0].subject}`);
  log(`${SUBSCRIBERS} anonymous accounts in ${((performance.now() - t) / 1000).toFixed(1)} s`);

  t = performance.now();
  await pool(SUBSCRIBERS, SETUP_CONCURRENCY, async (i) => {
    const m = members[i];
    const p = await must(201, 'POST', `${S}/${m.subject}/social-module/profiles`, { body: { title: `member ${i}` }, jwt: m.jwt });
    m.profile = p.id;
  });
  log(`${SUBSCRIBERS} profiles in ${((performance.now() - t) / 1000).toFixed(1)} s`);

  // Chat c: members c, c + CHATS, c + 2·CHATS, … (every account in exactly one chat).
  t = performance.now();
  const chats = Array.from({ length: CHATS }, (_, c) => ({ c, members: [] }));
  members.forEach((m, i) => {
    const chat = chats[i % CHATS];
    m.chat = chat;
    chat.members.push(m);
  });
  await pool(CHATS, SETUP_CONCURRENCY, async (c) => {
    const chat = chats[c];
    const [owner, ...others] = chat.members;
    const path = `${S}/${owner.subject}/social-module/profiles/${owner.profile}/chats`;
    const v = await must(201, 'POST', path, { body: { title: `bench chat ${c}`, profileIds: others.map((m) => m.profile) }, jwt: owner.jwt });
    chat.id = v.id;
    if ((v.members?.length ?? chat.members.length) !== chat.members.length) throw new Error(`chat ${c}: ${v.members.length} members`);
  });
  log(`${CHATS} chats of ${SUBSCRIBERS / CHATS} members in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  return { members, chats };
}

// ---- live streams -----------------------------------------------------------------------------

const stats = {
  posted: 0,
  postErrors: {},
  postMs: [],
  lateStarts: 0, // posts that began more than 20 ms after they were due (the client fell behind)
  sent: new Map(), // k → {t: send time, chat, acked}
  got: new Map(), // k → Set of member indices that received it
  latencies: [], // ms, every delivery of an acknowledged message (filled at the end)
  arrivals: [], // [k, member, ms] as they come
  duplicates: 0,
  foreign: 0, // events of a chat the member is not in (must be 0)
  resets: 0,
  streamErrors: {},
  streamsEnded: 0,
  otherEvents: {},
  revalidated: {}, // entity → revalidate events naming it (summed over the streams)
  sendLag: [], // ms each POST began after it was due (client-side queueing: POSTERS all busy)
};
const bump = (o, k) => { o[k] = (o[k] || 0) + 1; };

/** One subscriber's `GET /api/live`; resolves when `hello` arrived (rejects on a refusal). */
function subscribe(m, controller) {
  return new Promise((resolve, reject) => {
    let hello = false;
    const onEvent = (kind, data) => {
      if (kind === 'hello') {
        hello = true;
        resolve();
        return;
      }
      if (kind === 'reset') return void stats.resets++;
      if (kind === 'revalidate') {
        bump(stats.otherEvents, kind);
        try { for (const e of JSON.parse(data).entities ?? []) bump(stats.revalidated, e); } catch { /* ignore */ }
        return;
      }
      if (kind !== 'chat.message') return void bump(stats.otherEvents, kind);
      const now = clock();
      let v;
      try { v = JSON.parse(data); } catch { return void bump(stats.otherEvents, 'unparsable'); }
      if (v.chatId !== m.chat.id) return void stats.foreign++;
      const match = /^bench k=(\d+) t=([\d.]+)$/.exec(v.message?.description ?? '');
      if (!match) return void bump(stats.otherEvents, 'chat.message (not ours)');
      const k = Number(match[1]);
      let set = stats.got.get(k);
      if (!set) stats.got.set(k, (set = new Set()));
      if (set.has(m.i)) return void stats.duplicates++;
      set.add(m.i);
      stats.arrivals.push([k, m.i, now - Number(match[2])]);
    };
    (async () => {
      const r = await fetch(`${BASE}/api/live`, {
        headers: { authorization: `Bearer ${m.jwt}`, accept: 'text/event-stream' },
        signal: controller.signal,
      });
      if (r.status !== 200) {
        reject(new Error(`GET /api/live: ${r.status} ${(await r.text()).slice(0, 200)}`));
        return;
      }
      // The SSE wire format: events end with a blank line; `event:`, `data:` (joined by \n),
      // `id:` fields; lines starting with `:` are comments (the keep-alive).
      const decoder = new TextDecoder();
      let buf = '';
      for await (const chunk of r.body) {
        buf += decoder.decode(chunk, { stream: true });
        if (buf.includes('\r')) buf = buf.replace(/\r\n?/g, '\n');
        let end;
        while ((end = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, end);
          buf = buf.slice(end + 2);
          let kind = 'message';
          const data = [];
          for (const line of block.split('\n')) {
            if (!line || line[0] === ':') continue;
            const colon = line.indexOf(':');
            const field = colon < 0 ? line : line.slice(0, colon);
            let value = colon < 0 ? '' : line.slice(colon + 1);
            if (value[0] === ' ') value = value.slice(1);
            if (field === 'event') kind = value;
            else if (field === 'data') data.push(value);
          }
          if (data.length) onEvent(kind, data.join('\n'));
        }
      }
      stats.streamsEnded++;
      if (!hello) reject(new Error('the stream ended before hello'));
    })().catch((e) => {
      if (controller.signal.aborted) return;
      bump(stats.streamErrors, String(e?.cause?.code || e?.cause?.message || e?.name || e));
      if (!hello) reject(e);
    });
  });
}

// ---- the load ---------------------------------------------------------------------------------

async function load(chats) {
  const total = Math.round(RATE * DURATION);
  let next = 0;
  const t0 = performance.now();
  const poster = async () => {
    for (let k = next++; k < total; k = next++) {
      const due = t0 + (k * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const lag = performance.now() - due;
      stats.sendLag.push(lag);
      if (lag > 20) stats.lateStarts++;
      const chat = chats[Math.floor(Math.random() * chats.length)];
      const m = chat.members[Math.floor(Math.random() * chat.members.length)];
      const t = clock();
      const rec = { t, chat, acked: false, ms: NaN, second: Math.floor((k / RATE)) };
      stats.sent.set(k, rec);
      const r = await call('POST', `${S}/${m.subject}/social-module/profiles/${m.profile}/chats/${chat.id}/messages`, {
        body: { description: `bench k=${k} t=${t.toFixed(3)}` },
        jwt: m.jwt,
        timeout: 30_000,
      });
      if (r.status) stats.postMs.push(r.ms);
      rec.ms = r.ms;
      if (r.status === 201) {
        rec.acked = true;
        stats.posted++;
      } else {
        bump(stats.postErrors, r.status || r.text);
      }
    }
  };
  await Promise.all(Array.from({ length: POSTERS }, poster));
  return (performance.now() - t0) / 1000;
}

/** Deliveries still due: acknowledged messages × their chat's members, minus what arrived. */
function outstanding() {
  let due = 0;
  for (const [k, rec] of stats.sent) {
    if (!rec.acked) continue;
    due += rec.chat.members.length - (stats.got.get(k)?.size ?? 0);
  }
  return due;
}

const pct = (xs, p) => {
  if (!xs.length) return NaN;
  return xs[Math.min(xs.length - 1, Math.max(0, Math.ceil((p / 100) * xs.length) - 1))];
};

async function main() {
  const mib = (kb) => kb / 1024;
  const memStart = mem();
  const { members, chats } = await setup();
  const memSetup = mem();

  let t = performance.now();
  const controllers = [];
  await pool(members.length, 50, async (i) => {
    const c = new AbortController();
    controllers.push(c);
    await subscribe(members[i], c);
  });
  log(`${members.length} live streams open (hello received) in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  await sleep(IDLE_WAIT * 1000);
  const memIdle = mem();
  log(`server RSS: ${mib(memStart?.rss).toFixed(1)} MiB at start, ${mib(memSetup?.rss).toFixed(1)} after setup, ${mib(memIdle?.rss).toFixed(1)} idle with ${members.length} streams (${memIdle?.threads} threads)`);

  // Sample the server's RSS during the load.
  let peakRss = memIdle?.rss ?? NaN;
  const sampler = setInterval(() => {
    const m = mem();
    if (m && !(m.rss <= peakRss)) peakRss = m.rss;
  }, 250);
  // How late the event loop runs (it delays both posting and reading).
  const { monitorEventLoopDelay } = await import('node:perf_hooks');
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const cpu0 = { server: serverCpu(), client: clientCpu(), machine: machineCpu(), wall: performance.now() };
  const loadS = await load(chats);
  const cpu1 = { server: serverCpu(), client: clientCpu(), machine: machineCpu(), wall: performance.now() };
  loopDelay.disable();
  log(`load done: ${stats.posted} messages acknowledged in ${loadS.toFixed(1)} s; waiting up to ${GRACE} s for the deliveries`);

  const until = performance.now() + GRACE * 1000;
  while (outstanding() > 0 && performance.now() < until) await sleep(50);
  clearInterval(sampler);
  const memEnd = mem();
  if (memEnd && !(memEnd.rss <= peakRss)) peakRss = memEnd.rss;

  const acked = new Set([...stats.sent].filter(([, r]) => r.acked).map(([k]) => k));
  const latencies = stats.arrivals.filter(([k]) => acked.has(k)).map(([, , ms]) => ms).sort((a, b) => a - b);
  const postMs = [...stats.postMs].sort((a, b) => a - b);
  // Delivery after the POST was answered (negative: the event came first): the fan-out beyond the
  // write, which the delivery latency includes.
  const afterAnswer = stats.arrivals.filter(([k]) => acked.has(k)).map(([k, , ms]) => ms - stats.sent.get(k).ms).sort((a, b) => a - b);
  // Per second of the load: messages due, slowest POST, p99 delivery (where the stalls are).
  const seconds = [];
  for (const [k, , ms] of stats.arrivals) {
    const rec = stats.sent.get(k);
    if (!rec?.acked) continue;
    const b = (seconds[rec.second] ??= { second: rec.second, messages: new Set(), maxPostMs: 0, deliveries: [] });
    b.messages.add(k);
    b.maxPostMs = Math.max(b.maxPostMs, rec.ms);
    b.deliveries.push(ms);
  }
  const timeline = seconds.filter(Boolean).map((b) => {
    b.deliveries.sort((x, y) => x - y);
    return { second: b.second, messages: b.messages.size, maxPostMs: +b.maxPostMs.toFixed(1), deliveryP99Ms: +pct(b.deliveries, 99).toFixed(1) };
  });
  const expected = [...acked].reduce((n, k) => n + stats.sent.get(k).chat.members.length, 0);
  const missed = outstanding();
  const postErrors = Object.values(stats.postErrors).reduce((a, b) => a + b, 0);
  const wall = (cpu1.wall - cpu0.wall) / 1000;
  const s = {
    label: env.LABEL || '',
    subscribers: members.length,
    chats: chats.length,
    membersPerChat: members.length / chats.length,
    targetRate: RATE,
    posters: POSTERS,
    loadSeconds: loadS,
    acknowledged: stats.posted,
    postErrors: stats.postErrors,
    achievedRate: stats.posted / loadS,
    lateStarts: stats.lateStarts,
    sendLagMs: (() => { const l = [...stats.sendLag].sort((a, b) => a - b); return { p50: pct(l, 50), p99: pct(l, 99), max: l.at(-1) }; })(),
    expectedDeliveries: expected,
    deliveries: latencies.length,
    missed,
    duplicates: stats.duplicates,
    foreign: stats.foreign,
    resets: stats.resets,
    streamErrors: stats.streamErrors,
    streamsEnded: stats.streamsEnded,
    otherEvents: stats.otherEvents,
    revalidated: stats.revalidated,
    deliveryMs: { p50: pct(latencies, 50), p95: pct(latencies, 95), p99: pct(latencies, 99), max: latencies.at(-1) },
    postMs: { p50: pct(postMs, 50), p99: pct(postMs, 99), max: postMs.at(-1) },
    deliveryAfterAnswerMs: { p50: pct(afterAnswer, 50), p99: pct(afterAnswer, 99), max: afterAnswer.at(-1) },
    serverRssMiB: {
      start: mib(memStart?.rss),
      afterSetup: mib(memSetup?.rss),
      idleWithStreams: mib(memIdle?.rss),
      peakDuringLoad: mib(peakRss),
      end: mib(memEnd?.rss),
      hwm: mib(memEnd?.hwm),
    },
    serverThreads: memEnd?.threads,
    cpuPercentOfOneCore: {
      server: (100 * (cpu1.server - cpu0.server)) / wall,
      client: (100 * (cpu1.client - cpu0.client)) / wall,
      // Everything else on the machine (PostgreSQL's backends among it): the cores are shared.
      other: Math.max(0, 100 * (cpu1.machine.busy - cpu0.machine.busy - (cpu1.server - cpu0.server) - (cpu1.client - cpu0.client))) / wall,
      machineCores: Math.round((cpu1.machine.all - cpu0.machine.all) / wall),
    },
    timeline,
    clientEventLoopDelayMs: { p50: loopDelay.percentile(50) / 1e6, p99: loopDelay.percentile(99) / 1e6, max: loopDelay.max / 1e6 },
  };
  if (env.RESULT) writeFileSync(env.RESULT, JSON.stringify(s, null, 2));
  if (postErrors) log('POST errors:', JSON.stringify(stats.postErrors));
  if (Object.keys(stats.streamErrors).length) log('stream errors:', JSON.stringify(stats.streamErrors));
  if (stats.duplicates || stats.foreign || stats.resets) log(`duplicates ${stats.duplicates}, foreign ${stats.foreign}, resets ${stats.resets}`);
  if (stats.lateStarts) log(`${stats.lateStarts} posts began > 20 ms after they were due (all ${POSTERS} posters busy, or the event loop late); send lag p99 ${s.sendLagMs.p99.toFixed(1)} ms`);
  if (stats.otherEvents.revalidate) log(`revalidate events received: ${stats.otherEvents.revalidate} (${(stats.otherEvents.revalidate / members.length).toFixed(1)} per stream), naming ${JSON.stringify(stats.revalidated)}`);
  log(`delivery after the POST's answer: p50 ${s.deliveryAfterAnswerMs.p50.toFixed(1)} ms, p99 ${s.deliveryAfterAnswerMs.p99.toFixed(1)} ms; slowest POST per second: ${timeline.map((b) => Math.round(b.maxPostMs)).join(' ')}`);
  log(`CPU during the load (% of one core): server ${s.cpuPercentOfOneCore.server.toFixed(0)}, client ${s.cpuPercentOfOneCore.client.toFixed(0)}, other processes ${s.cpuPercentOfOneCore.other.toFixed(0)} (of ${s.cpuPercentOfOneCore.machineCores * 100}); client event-loop delay p99 ${s.clientEventLoopDelayMs.p99.toFixed(1)} ms`);
  const f = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '—');
  const r = s.serverRssMiB;
  console.log(`| ${s.label} | ${s.subscribers} / ${s.chats} | ${f(loadS)} | ${s.acknowledged} | ${postErrors} | ${f(s.achievedRate)} | ${s.deliveries} | ${missed} | ${f(s.deliveryMs.p50)} | ${f(s.deliveryMs.p95)} | ${f(s.deliveryMs.p99)} | ${f(s.deliveryMs.max)} | ${f(s.postMs.p50)} | ${f(s.postMs.p99)} | ${f(r.afterSetup)} → ${f(r.idleWithStreams)} | ${f(r.peakDuringLoad)} / ${f(r.hwm)} | ${f(s.cpuPercentOfOneCore.server, 0)} / ${f(s.cpuPercentOfOneCore.client, 0)} / ${f(s.cpuPercentOfOneCore.other, 0)} |`);
  for (const c of controllers) c.abort();
  process.exit(0);
}

main().catch((e) => {
  console.error(e);
  process.exit(2);
});
