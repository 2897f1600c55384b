#!/usr/bin/env python3
"""The attacks of the second security review (issue 47), replayed against a running `stoa`.

Started by bench/abuse.sh, which starts the server and passes, in the environment:
  BASE        http://127.0.0.1:<port> of the server
  KEY         its STOA_SECRET_KEY (admin rights through the X-RBAC-SECRET-KEY header)
  SERVER_PID  the server's pid (its /proc figures are read)
  DATA_DIR    its STOA_DATA_DIR; DB its SQLite file
  RESULT      where the JSON summary goes (optional)
  SCENARIOS   which scenarios to run (default "1 2 3 4 5 6")
and the scale of each scenario (see CONFIG below).

Scenario 2 (image variants) runs last: the work it starts may go on after its requests end.
Prints one markdown row per scenario on stdout (progress goes to stderr):
  scenario | what was sent | answers | RssAnon growth MB | server CPU s | honest client result

The figures:
  answers            the attacker's answers by status, with the median seconds until each came
                     (closed = the server closed the connection without an answer; none = no
                     answer when the attack's time was up)
  RssAnon growth MB  the server's anonymous resident memory (RssAnon of /proc/<pid>/status: heap
                     and stacks, not the database's mmap) at its peak during the attack, and when
                     the attack ended, minus what it was just before; MB here are MiB (2^20 bytes)
  server CPU s       user + system CPU seconds of the server process over the attack
                     (utime + stime of /proc/<pid>/stat, over CLK_TCK)
  honest client      what a well-behaved client at another loopback address (127.0.0.2) got
                     meanwhile: its answers and latencies

Standard library only: no third-party modules.
"""

import errno
import json
import os
import resource
import selectors
import socket
import statistics
import struct
import sys
import threading
import time
import urllib.parse
import uuid
import zlib
from base64 import urlsafe_b64decode
from collections import Counter

# --- configuration --------------------------------------------------------------------------


def env_int(name, default):
    v = os.environ.get(name, "")
    return int(v) if v.strip() else default


def env_float(name, default):
    v = os.environ.get(name, "")
    return float(v) if v.strip() else default


BASE = os.environ.get("BASE", "http://127.0.0.1:8080")
_u = urllib.parse.urlsplit(BASE)
HOST, PORT = _u.hostname or "127.0.0.1", _u.port or 80
KEY = os.environ.get("KEY", "")
PID = env_int("SERVER_PID", 0)
DATA_DIR = os.environ.get("DATA_DIR", "")
DB = os.environ.get("DB", "")

CONFIG = {
    # 1. slow bodies: connections per route, the length they declare, how long they are held
    #    (default: the server's STOA_BODY_TIMEOUT + 5 s, so a 408 at the body timeout is seen).
    "SLOW_CONNECTIONS": env_int("SLOW_CONNECTIONS", 300),
    "SLOW_LENGTH": env_int("SLOW_LENGTH", 2 * 1024 * 1024),
    "SLOW_HOLD": env_float("SLOW_HOLD", env_int("STOA_BODY_TIMEOUT", 10) + 5.0),
    # 2. image variants: the side of the large flat PNG, the concurrent requests per round and
    #    rounds, and how long one request may take at the client.
    "IMAGE_SIDE": env_int("IMAGE_SIDE", 6000),
    "IMAGE_CONCURRENCY": env_int("IMAGE_CONCURRENCY", 3),
    "IMAGE_ROUNDS": env_int("IMAGE_ROUNDS", 2),
    "IMAGE_TIMEOUT": env_float("IMAGE_TIMEOUT", 40.0),
    "IMAGE_FORMAT": os.environ.get("IMAGE_FORMAT", "avif"),
    # 3. search with offset: articles, attacking clients, the offset and how long they loop.
    "ARTICLES": env_int("ARTICLES", 3000),
    "SEARCH_CLIENTS": env_int("SEARCH_CLIENTS", 6),
    "SEARCH_OFFSET": env_int("SEARCH_OFFSET", 10000),
    "SEARCH_SECONDS": env_float("SEARCH_SECONDS", 10.0),
    # 4. CRM relay: form submissions with distinct victim addresses.
    "CRM_POSTS": env_int("CRM_POSTS", 60),
    # 5. forged webhooks: posts, padding headers per post and the bytes of each.
    "WEBHOOK_POSTS": env_int("WEBHOOK_POSTS", 100),
    "WEBHOOK_HEADERS": env_int("WEBHOOK_HEADERS", 40),
    "WEBHOOK_HEADER_BYTES": env_int("WEBHOOK_HEADER_BYTES", 8192),
    "WEBHOOK_PROVIDER": os.environ.get("WEBHOOK_PROVIDER", "stripe"),
    # 6. share images: anonymous guests and profiles per guest.
    "SHARE_GUESTS": env_int("SHARE_GUESTS", 5),
    "SHARE_PROFILES": env_int("SHARE_PROFILES", 4),
}

ATTACKER = "127.0.0.1"  # where the attacks come from (as in the review)
HONEST = "127.0.0.2"  # the honest client: another address, its own per-address budgets
GUESTS = "127.0.0.6"  # scenario 6's guests: not sharing 127.0.0.1's sign-in rate budget


def log(*a):
    print("[abuse]", *a, file=sys.stderr, flush=True)


class NotSetUp(Exception):
    """A scenario's setup failed: its row says why and the script goes on."""


# --- the server's figures from /proc ---------------------------------------------------------

CLK_TCK = os.sysconf("SC_CLK_TCK")


def rss_anon_mib(pid=PID):
    """RssAnon of the process in MiB (0 when it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return 0.0


def cpu_seconds(pid=PID):
    """utime + stime of the process in seconds."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            # The command name may hold spaces: fields are counted after its closing ')'.
            rest = f.read().rsplit(")", 1)[1].split()
        # rest[0] is field 3 (state): utime and stime are fields 14 and 15.
        return (int(rest[11]) + int(rest[12])) / CLK_TCK
    except (OSError, IndexError, ValueError):
        return 0.0


def alive():
    return PID > 0 and os.path.exists(f"/proc/{PID}")


class Probe:
    """The server's memory and CPU over one attack: RssAnon before, at its peak (sampled every
    50 ms) and at the end, and CPU seconds between start() and stop()."""

    def __init__(self):
        self.before = self.peak = self.end = 0.0
        self.cpu = 0.0
        self._halt = threading.Event()
        self._thread = None

    def start(self):
        self.before = self.peak = rss_anon_mib()
        self._cpu0 = cpu_seconds()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self):
        while not self._halt.wait(0.05):
            self.peak = max(self.peak, rss_anon_mib())

    def stop(self):
        self._halt.set()
        if self._thread:
            self._thread.join()
        self.end = rss_anon_mib()
        self.peak = max(self.peak, self.end)
        self.cpu = cpu_seconds() - self._cpu0
        return self

    def rss_text(self):
        return f"peak {self.peak - self.before:+.0f} (end {self.end - self.before:+.0f}; before {self.before:.0f})"

    def cpu_text(self):
        return f"{self.cpu:.1f}"

    def as_dict(self):
        return {
            "rss_anon_before_mib": round(self.before, 1),
            "rss_anon_peak_mib": round(self.peak, 1),
            "rss_anon_end_mib": round(self.end, 1),
            "cpu_s": round(self.cpu, 2),
        }


def settle(limit=15.0):
    """Waits until the server is idle (under 5 % of a core over 0.5 s), at most `limit` s, so one
    scenario's leftovers (background jobs, freed memory) do not count in the next. Returns the
    server's last CPU use, in cores (above 0.05: it was still busy when the wait ended)."""
    end = time.monotonic() + limit
    busy = 0.0
    while time.monotonic() < end and alive():
        c0 = cpu_seconds()
        time.sleep(0.5)
        busy = (cpu_seconds() - c0) / 0.5
        if busy < 0.05:
            break
    return busy


# --- a small HTTP/1.1 client (one connection per request, `Connection: close`) -----------------


class Resp:
    def __init__(self, status=None, headers=None, body=b"", secs=0.0, error=None):
        self.status = status  # None: no answer (closed, reset, timed out: see error)
        self.headers = headers or {}
        self.body = body
        self.secs = secs
        self.error = error

    def json(self):
        try:
            return json.loads(self.body.decode("utf-8", "replace"))
        except ValueError:
            return None

    def data(self):
        j = self.json()
        return j.get("data") if isinstance(j, dict) else None

    def label(self):
        return str(self.status) if self.status is not None else (self.error or "none")

    def why(self):
        """A short reason for a setup failure."""
        text = self.body.decode("utf-8", "replace").replace("\n", " ").replace("|", "/")
        return f"{self.label()} {text[:160]}".strip()


def _dechunk(b):
    out = bytearray()
    while True:
        line, sep, rest = b.partition(b"\r\n")
        if not sep:
            break
        try:
            n = int(line.split(b";")[0].strip() or b"0", 16)
        except ValueError:
            break
        if n == 0:
            break
        out += rest[:n]
        b = rest[n + 2:]
    return bytes(out)


def request(method, path, body=None, headers=None, source=None, timeout=30.0):
    """One request; never raises. `source`: the local address to send from (another loopback
    address is another client to the server's per-address budgets)."""
    started = time.monotonic()
    deadline = started + timeout
    hdrs = {"Host": f"{HOST}:{PORT}", "Connection": "close"}
    hdrs.update(headers or {})
    if body is not None or method in ("POST", "PUT", "PATCH"):
        body = body or b""
        hdrs["Content-Length"] = str(len(body))
    head = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in hdrs.items()) + "\r\n"
    try:
        s = socket.create_connection(
            (HOST, PORT), timeout=timeout, source_address=(source, 0) if source else None
        )
    except OSError as e:
        return Resp(error=f"connect: {e.__class__.__name__}", secs=time.monotonic() - started)
    buf = bytearray()
    try:
        s.sendall(head.encode("latin-1") + (body or b""))
        need = None  # the whole answer's length once its head is read (Content-Length)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise socket.timeout()
            s.settimeout(left)
            chunk = s.recv(262144)
            if not chunk:
                break
            buf += chunk
            if need is None and b"\r\n\r\n" in buf:
                h = bytes(buf).split(b"\r\n\r\n", 1)[0].lower()
                for line in h.split(b"\r\n"):
                    if line.startswith(b"content-length:"):
                        need = len(h) + 4 + int(line.split(b":")[1])
            if need is not None and len(buf) >= need:
                break
    except socket.timeout:
        s.close()
        if b"\r\n" in buf:
            pass  # a head arrived: report it
        else:
            return Resp(error="timeout", secs=time.monotonic() - started)
    except OSError as e:
        s.close()
        if b"\r\n" not in buf:
            return Resp(error=f"closed ({e.__class__.__name__})", secs=time.monotonic() - started)
    else:
        s.close()
    secs = time.monotonic() - started
    if b"\r\n" not in buf:
        return Resp(error="closed", secs=secs)
    head_b, _, payload = bytes(buf).partition(b"\r\n\r\n")
    lines = head_b.decode("latin-1").split("\r\n")
    try:
        status = int(lines[0].split()[1])
    except (IndexError, ValueError):
        return Resp(error="bad answer", secs=secs)
    hs = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        hs[k.strip().lower()] = v.strip()
    if "chunked" in hs.get("transfer-encoding", ""):
        payload = _dechunk(payload)
    return Resp(status, hs, payload, secs)


def api(method, path, obj=None, admin=True, token=None, source=None, timeout=30.0, raw=None, ctype=None):
    """A JSON API call, as admin (the secret key) unless `admin` is false."""
    headers = {"Accept": "application/json"}
    body = None
    if obj is not None:
        body = json.dumps(obj).encode()
        headers["Content-Type"] = "application/json"
    if raw is not None:
        body = raw
        headers["Content-Type"] = ctype
    if admin:
        headers["X-RBAC-SECRET-KEY"] = KEY
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return request(method, path, body, headers, source, timeout)


def qs(params):
    return urllib.parse.urlencode(params, safe="[]")


# --- reporting helpers -------------------------------------------------------------------------


def samples(rs):
    """The first answer's body (cut) per status: what a refusal said, for the JSON summary."""
    out = {}
    for r in rs:
        if r.label() not in out:
            ctype = r.headers.get("content-type", "")
            if r.status is None:
                out[r.label()] = r.error
            elif "json" in ctype or ctype.startswith("text/"):
                out[r.label()] = r.body[:200].decode("utf-8", "replace")
            else:
                out[r.label()] = f"{len(r.body)} bytes of {ctype or 'no type'}"
    return out


def ms(s):
    return f"{s * 1000:.0f} ms" if s < 10 else f"{s:.1f} s"


def count_text(c):
    """Counter of answers → `201×10, 429×50`, most frequent first."""
    return ", ".join(f"{k}×{v}" for k, v in c.most_common()) or "nothing"


def latency_text(rs):
    """Answers and latencies of a list of Resp: `200×12, p50 5 ms, max 20 ms`."""
    if not rs:
        return "no request made"
    c = Counter(r.label() for r in rs)
    lat = [r.secs for r in rs]
    return f"{count_text(c)}; p50 {ms(statistics.median(lat))}, max {ms(max(lat))}"


class Honest(threading.Thread):
    """An honest client repeating `calls` (name → function returning a Resp) every `every`
    seconds until stopped; each call at least once."""

    def __init__(self, calls, every=1.0, delay=0.0):
        super().__init__(daemon=True)
        self.calls = calls
        self.every = every
        self.delay = delay
        self.results = {name: [] for name in calls}
        self._halt = threading.Event()

    def run(self):
        self._halt.wait(self.delay)  # stopped meanwhile: the calls still run once
        while True:
            t0 = time.monotonic()
            for name, call in self.calls.items():
                self.results[name].append(call())
            if self._halt.is_set():
                return
            self._halt.wait(max(0.0, self.every - (time.monotonic() - t0)))
            if self._halt.is_set():
                return

    def finish(self):
        self._halt.set()
        self.join()
        return self

    def text(self):
        return "; ".join(f"{name}: {latency_text(rs)}" for name, rs in self.results.items())


def health_from_honest():
    return request("GET", "/health", source=HONEST, timeout=10)


# --- 1. slow bodies -------------------------------------------------------------------------


def slow_bodies(path, n, length, admin, hold):
    """`n` connections from ATTACKER, each declaring `length` bytes of JSON and sending all but
    the last 100, then holding the rest back; one thread drives them all (non-blocking sockets).
    Returns (answers: Counter, seconds to each answer by status, bytes sent, probe, honest)."""
    key = f"X-RBAC-SECRET-KEY: {KEY}\r\n" if admin else ""
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {HOST}:{PORT}\r\nContent-Type: application/json\r\n"
        f"{key}Content-Length: {length}\r\n\r\n"
    ).encode()
    prefix = b'{"title": "' if admin else b'{"refresh": "'
    payload = memoryview(head + prefix + b"a" * (length - 100 - len(prefix)))
    sel = selectors.DefaultSelector()
    slots = []  # per connection: [socket, bytes sent, bytes read, result, seconds]
    answers = Counter()
    when = {}
    sent_total = 0

    def finish(slot, result):
        sock = slot[0]
        try:
            sel.unregister(sock)
        except (KeyError, ValueError):
            pass
        sock.close()
        slot[3] = result
        slot[4] = time.monotonic() - t0
        answers[result] += 1
        when.setdefault(result, []).append(slot[4])

    probe = Probe().start()
    t0 = time.monotonic()
    # Non-blocking connects: all of them are under way at once, and the times of the answers
    # count from here.
    for _ in range(n):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        slot = [s, 0, bytearray(), None, 0.0]
        slots.append(slot)
        try:
            s.bind((ATTACKER, 0))
            err = s.connect_ex((HOST, PORT))
        except OSError as e:
            err = e.errno
        if err not in (0, errno.EINPROGRESS):
            finish(slot, "refused")
            continue
        sel.register(s, selectors.EVENT_READ | selectors.EVENT_WRITE, slot)
    # The honest client starts shortly after, while the bodies are on their way.
    honest = Honest(
        {
            "GET /health": health_from_honest,
            "small POST": lambda: api(
                "POST", "/api/analytic/metrics", {"title": "honest", "value": 1}, source=HONEST, timeout=10
            ),
        },
        every=1.0,
        delay=0.3,
    )
    honest.start()
    deadline = time.monotonic() + hold
    while sel.get_map() and time.monotonic() < deadline:
        for k, mask in sel.select(0.2):
            slot = k.data
            s = slot[0]
            if mask & selectors.EVENT_READ:
                try:
                    chunk = s.recv(65536)
                except BlockingIOError:
                    chunk = None
                except OSError:
                    finish(slot, "closed")
                    continue
                if chunk is not None:
                    if not chunk:
                        finish(slot, "closed")  # the server closed it without an answer
                        continue
                    slot[2] += chunk
                    if b"\r\n" in slot[2]:
                        try:
                            finish(slot, bytes(slot[2]).split()[1].decode())
                        except IndexError:
                            finish(slot, "bad answer")
                        continue
            if mask & selectors.EVENT_WRITE and slot[3] is None:
                if slot[1] == 0 and s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
                    finish(slot, "refused")  # the connect failed
                    continue
                try:
                    k2 = s.send(payload[slot[1]: slot[1] + 262144])
                except BlockingIOError:
                    continue
                except OSError:
                    # Refused or reset while sending: its answer may still be readable.
                    sel.modify(s, selectors.EVENT_READ, slot)
                    continue
                slot[1] += k2
                sent_total += k2
                if slot[1] >= len(payload):
                    sel.modify(s, selectors.EVENT_READ, slot)  # the last 100 bytes are held back
    for slot in slots:
        if slot[3] is None:
            finish(slot, "none")
    probe.stop()
    honest.finish()
    return answers, when, sent_total, probe, honest


def scenario_slow(label, path, admin):
    n, length, hold = CONFIG["SLOW_CONNECTIONS"], CONFIG["SLOW_LENGTH"], CONFIG["SLOW_HOLD"]
    if admin:
        r = api("POST", "/api/analytic/metrics", {"title": "setup", "value": 1})
        if r.status != 201:
            raise NotSetUp(f"POST /api/analytic/metrics as admin: {r.why()}")
    answers, when, sent, probe, honest = slow_bodies(path, n, length, admin, hold)
    ans = ", ".join(
        f"{k}×{v}" + (f" @{statistics.median(when[k]):.1f}s" if k not in ("none",) else "")
        for k, v in answers.most_common()
    )
    return {
        "scenario": label,
        "sent": f"{n} conns from {ATTACKER} → POST {path}{' (secret key)' if admin else ''}, "
        f"Content-Length {length}, {length - 100} B each then held ≤{hold:.0f} s; "
        f"{sent / 2**20:.0f} MiB sent in all",
        "answers": ans,
        "rss": probe.rss_text(),
        "cpu": probe.cpu_text(),
        "honest": f"from {HONEST}: " + honest.text(),
        "figures": {**probe.as_dict(), "answers": dict(answers), "sent_bytes": sent},
    }


# --- 2. image variants --------------------------------------------------------------------------


def png(width, height, row):
    """A PNG (8-bit RGB) whose row y is row(y) (3 × width bytes), compressed as it is made."""

    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)

    z = zlib.compressobj(6)
    parts = []
    for y in range(height):
        parts.append(z.compress(b"\x00" + row(y)))
    parts.append(z.flush())
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", b"".join(parts))
        + chunk(b"IEND", b"")
    )


def flat_png(side):
    """`side` × `side`, one colour but for a small gradient in the corner: huge when decoded
    (side² × 3 bytes), small on the wire."""
    flat = bytes((40, 120, 200)) * side
    detail = {y: bytes(v for x in range(64) for v in ((x * 7 + y * 3) & 255, (x * 5) & 255, (y * 9) & 255)) for y in range(64)}
    return png(side, side, lambda y: detail[y] + flat[192:] if y < 64 else flat)


def gradient_png(w, h):
    return png(w, h, lambda y: bytes(v for x in range(w) for v in ((x * 255) // w, (y * 255) // h, 128)))


def upload(data, name):
    """Uploads a PNG as admin (multipart, a `file` part); returns its URL (/files/<sha256>.png)."""
    boundary = "abuse" + uuid.uuid4().hex
    body = (
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n"
        f"Content-Type: image/png\r\n\r\n"
    ).encode() + data + f"\r\n--{boundary}--\r\n".encode()
    r = api("POST", "/api/file-storage/files", raw=body, ctype=f"multipart/form-data; boundary={boundary}", timeout=60)
    d = r.data() or {}
    url = d.get("file") or d.get("url")
    if r.status != 201 or not url:
        raise NotSetUp(f"upload to /api/file-storage/files: {r.why()}")
    return url


def scenario_images():
    side, conc, rounds = CONFIG["IMAGE_SIDE"], CONFIG["IMAGE_CONCURRENCY"], CONFIG["IMAGE_ROUNDS"]
    fmt, timeout = CONFIG["IMAGE_FORMAT"], CONFIG["IMAGE_TIMEOUT"]
    big = flat_png(side)
    small = gradient_png(320, 240)
    big_url = upload(big, "abuse-flat.png")
    small_url = upload(small, "abuse-small.png")
    log(f"images: {big_url} ({len(big)} bytes, {side}×{side}), {small_url}")
    probe = Probe().start()
    # The honest client: the small image at w=64 (its first request makes that size, during
    # the attack; the later ones are served from what was made).
    honest = Honest({"GET small?w=64": lambda: request("GET", f"{small_url}?w=64", source=HONEST, timeout=timeout)}, every=0.5, delay=0.3)
    honest.start()
    per_round = []
    for _ in range(rounds):
        results = [None] * conc

        def get(i):
            results[i] = request("GET", f"{big_url}?format={fmt}", source=ATTACKER, timeout=timeout)

        threads = [threading.Thread(target=get, args=(i,)) for i in range(conc)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        per_round.append(results)
    honest.finish()
    probe.stop()
    ans = " then ".join(
        "[" + ", ".join(f"{r.label()} {r.secs:.1f}s" for r in rs) + "]" for rs in per_round
    )
    hr = honest.results["GET small?w=64"]
    first = hr[0] if hr else None
    rest = hr[1:]
    htext = f"first (made meanwhile): {first.label()} in {ms(first.secs)}" if first else "no request made"
    if rest:
        htext += f"; then {latency_text(rest)}"
    return {
        "scenario": "2 image variants",
        "sent": f"{side}×{side} flat PNG ({len(big) / 1024:.0f} KiB) uploaded as admin; "
        f"{rounds} rounds of {conc} concurrent anonymous GET <url>?format={fmt}",
        "answers": ans,
        "rss": probe.rss_text(),
        "cpu": probe.cpu_text(),
        "honest": f"from {HONEST}, GET <small>?w=64 every 0.5 s: " + htext,
        "figures": {
            **probe.as_dict(),
            "rounds": [[{"status": r.status, "error": r.error, "s": round(r.secs, 2), "bytes": len(r.body)} for r in rs] for rs in per_round],
            "honest": [{"status": r.status, "s": round(r.secs, 3)} for r in hr],
            "samples": samples([r for rs in per_round for r in rs] + hr),
        },
    }


# --- 3. search with offset -------------------------------------------------------------------


def scenario_search():
    k, clients, offset, secs = CONFIG["ARTICLES"], CONFIG["SEARCH_CLIENTS"], CONFIG["SEARCH_OFFSET"], CONFIG["SEARCH_SECONDS"]
    route = "/api/blog/articles"
    # The fields: adminTitle and slug have defaults; title is per language. One first, so a 422
    # says what is missing.
    tag = uuid.uuid4().hex[:6]

    def article(i):
        return {
            "adminTitle": f"alpha beta article {tag} {i}",
            "title": {"en": f"Alpha beta {i}", "ru": f"Альфа бета {i}"},
            "slug": f"abuse-{tag}-{i}",
        }

    r = api("POST", route, article(0))
    if r.status != 201:
        raise NotSetUp(f"POST {route}: {r.why()}")
    made, t0 = 1, time.monotonic()
    while made < k:
        batch = [{"data": article(i)} for i in range(made, min(k, made + 100))]
        r = api("POST", f"{route}/bulk", batch, timeout=60)
        if r.status != 201:
            raise NotSetUp(f"POST {route}/bulk after {made} articles: {r.why()}")
        made += len(batch)
    log(f"search: {made} articles in {time.monotonic() - t0:.1f} s")
    honest_path = f"{route}?{qs({'search': 'beta', 'limit': 300})}"
    attack_path = f"{route}?{qs({'offset': offset, 'limit': 1, 'search': 'alpha'})}"
    # The honest search alone first: what it costs when nobody attacks.
    baseline = [request("GET", honest_path, source=HONEST, timeout=30) for _ in range(3)]
    settle(5)
    probe = Probe().start()
    stop_at = time.monotonic() + secs
    attack = []
    lock = threading.Lock()

    def attacker():
        while time.monotonic() < stop_at:
            r = request("GET", attack_path, source=ATTACKER, timeout=30)
            with lock:
                attack.append(r)

    threads = [threading.Thread(target=attacker) for _ in range(clients)]
    honest = []

    def honest_client():
        while time.monotonic() < stop_at:
            honest.append(request("GET", honest_path, source=HONEST, timeout=30))

    h = threading.Thread(target=honest_client)
    for t in threads + [h]:
        t.start()
    for t in threads + [h]:
        t.join()
    probe.stop()
    rows = (baseline[0].data() or []) if baseline else []
    return {
        "scenario": "3 search with offset",
        "sent": f"{made} articles; {clients} anonymous clients loop GET {attack_path} for {secs:.0f} s",
        "answers": f"{count_text(Counter(r.label() for r in attack))} "
        f"({len(attack) / secs:.1f} req/s; p50 {ms(statistics.median([r.secs for r in attack])) if attack else '-'})",
        "rss": probe.rss_text(),
        "cpu": probe.cpu_text(),
        "honest": f"GET ?search=beta&limit=300 ({len(rows)} rows) alone: {latency_text(baseline)}; during: {latency_text(honest)}",
        "figures": {
            **probe.as_dict(),
            "attack": dict(Counter(r.label() for r in attack)),
            "honest_baseline_s": [round(r.secs, 3) for r in baseline],
            "honest_during_s": [round(r.secs, 3) for r in honest],
            "samples": samples(attack + honest),
        },
    }


# --- 4. CRM relay -----------------------------------------------------------------------------


def total(path):
    """The admin API's count of an entity's rows (X-Total-Count with count=true), or None."""
    sep = "&" if "?" in path else "?"
    r = api("GET", f"{path}{sep}count=true&limit=1")
    if r.status != 200:
        return None
    n = r.headers.get("x-total-count")
    return int(n) if n and n.isdigit() else None


def form_with_email():
    """A form with an email input (and a text one for the message): an existing one, else one
    made here. Returns (form id, email slug, message slug or None)."""
    r = api("GET", "/api/crm/forms?limit=50")
    if r.status != 200:
        raise NotSetUp(f"GET /api/crm/forms: {r.why()}")
    for form in r.data() or []:
        links = api("GET", "/api/crm/forms-to-inputs?" + qs({
            "filters[and][0][column]": "formId", "filters[and][0][method]": "eq",
            "filters[and][0][value]": form["id"], "limit": 50}))
        inputs = []
        for link in links.data() or []:
            i = api("GET", f"/api/crm/inputs/{link.get('inputId')}").data()
            if i:
                inputs.append(i)
        email = next((i["slug"] for i in inputs if i.get("type") == "email"), None)
        text = next((i["slug"] for i in inputs if i.get("type") in ("textarea", "text", "default")), None)
        if email:
            return form["id"], email, text, f"existing form {form.get('slug')}"
    tag = uuid.uuid4().hex[:6]
    f = api("POST", "/api/crm/forms", {"adminTitle": "Abuse bench contact", "slug": f"abuse-contact-{tag}",
                                       "title": {"en": "Contact us", "ru": "Напишите нам"}})
    if f.status != 201:
        raise NotSetUp(f"POST /api/crm/forms: {f.why()}")
    fid = f.data()["id"]
    slugs = {}
    for kind, required in (("email", True), ("textarea", False)):
        slug = f"abuse-{kind}-{tag}"
        i = api("POST", "/api/crm/inputs", {"adminTitle": kind, "slug": slug, "type": kind, "isRequired": required,
                                            "label": {"en": kind.title(), "ru": kind}})
        if i.status != 201:
            raise NotSetUp(f"POST /api/crm/inputs: {i.why()}")
        link = api("POST", "/api/crm/forms-to-inputs", {"formId": fid, "inputId": i.data()["id"]})
        if link.status != 201:
            raise NotSetUp(f"POST /api/crm/forms-to-inputs: {link.why()}")
        slugs[kind] = slug
    return fid, slugs["email"], slugs["textarea"], "form made here"


def scenario_crm():
    n = CONFIG["CRM_POSTS"]
    fid, email, message, origin = form_with_email()
    outbox = "/api/notification/notifications"
    victims_q = outbox + "?" + qs({"filters[and][0][column]": "reciever", "filters[and][0][method]": "like",
                                   "filters[and][0][value]": "%@victims.example"})
    before, victims_before = total(outbox), total(victims_q)
    if before is None:
        raise NotSetUp(f"cannot count {outbox} (admin, count=true)")
    probe = Probe().start()
    tag = uuid.uuid4().hex[:6]
    rs = []
    for i in range(n):
        values = {email: f"victim{i}-{tag}@victims.example"}
        if message:
            values[message] = f"You won! Claim it at https://claim-prize.example/{tag}/{i} before tonight."
        rs.append(api("POST", f"/api/crm/forms/{fid}/requests", values, admin=False, source=ATTACKER, timeout=15))
    probe.stop()
    time.sleep(0.5)
    after, victims_after = total(outbox), total(victims_q)
    # An honest sender from another address afterwards: is the form still open to it?
    values = {email: f"honest-{tag}@example.org"}
    if message:
        values[message] = "Hello, I would like a quote."
    honest = api("POST", f"/api/crm/forms/{fid}/requests", values, admin=False, source=HONEST, timeout=15)
    queued = None if after is None else after - before
    to_victims = None if victims_after is None or victims_before is None else victims_after - victims_before
    return {
        "scenario": "4 CRM relay",
        "sent": f"{n} anonymous POST /api/crm/forms/<id>/requests ({origin}) from {ATTACKER}, distinct "
        f"victim emails, message with a link",
        "answers": f"{count_text(Counter(r.label() for r in rs))}; outbox +{queued} rows "
        f"({to_victims if to_victims is not None else '?'} addressed to the victims)",
        "rss": probe.rss_text(),
        "cpu": probe.cpu_text(),
        "honest": f"a submission from {HONEST} afterwards: {honest.label()} in {ms(honest.secs)}",
        "figures": {**probe.as_dict(), "answers": dict(Counter(r.label() for r in rs)),
                    "outbox_rows_queued": queued, "to_victims": to_victims, "samples": samples(rs + [honest])},
    }


# --- 5. forged webhooks -----------------------------------------------------------------------


def db_bytes():
    """The SQLite file plus its -wal, in bytes."""
    n = 0
    for suffix in ("", "-wal"):
        try:
            n += os.path.getsize(DB + suffix)
        except OSError:
            pass
    return n


def scenario_webhooks():
    n, nh, hb = CONFIG["WEBHOOK_POSTS"], CONFIG["WEBHOOK_HEADERS"], CONFIG["WEBHOOK_HEADER_BYTES"]
    offered = api("GET", "/api/billing/providers", admin=False).data() or []
    names = [p.get("provider") for p in offered if isinstance(p, dict)]
    pad = {f"X-Bench-Pad-{i:02d}": "a" * hb for i in range(nh)}
    body = json.dumps({"id": "evt_forged", "type": "payment_intent.succeeded",
                       "data": {"object": {"id": "pi_forged", "amount": 100}}}).encode()

    def post(provider, i):
        headers = {"Content-Type": "application/json",
                   "Stripe-Signature": f"t={int(time.time())},v1={'0' * 64}", **pad}
        return request("POST", f"/api/billing/payment-intents/{provider}/webhook", body, headers,
                       source=ATTACKER, timeout=15)

    # The provider asked for, if the server has it (a 404 says it is not enabled), else dummy.
    provider = CONFIG["WEBHOOK_PROVIDER"]
    note = ""
    probe_r = post(provider, -1)
    if probe_r.status == 404 and provider != "dummy":
        note = f" ({provider} not enabled: {probe_r.why()[:60]}; dummy used)"
        provider = "dummy"
    settle(3)
    size0 = db_bytes()
    rejected0 = total("/api/billing/webhooks?" + qs({"filters[and][0][column]": "status",
                                                     "filters[and][0][method]": "eq", "filters[and][0][value]": "rejected"}))
    probe = Probe().start()
    honest = Honest({"GET /health": health_from_honest}, every=0.5)
    honest.start()
    rs = [post(provider, i) for i in range(n)]
    honest.finish()
    probe.stop()
    time.sleep(1.0)  # let the writer commit
    grown = (db_bytes() - size0) / 2**20
    # What the inbox kept of them, as the admin API shows it: the rejected rows' body and headers.
    q = qs({"filters[and][0][column]": "status", "filters[and][0][method]": "eq",
            "filters[and][0][value]": "rejected", "orderBy[and][0][column]": "createdAt",
            "orderBy[and][0][method]": "desc", "limit": n})
    r = api("GET", f"/api/billing/webhooks?{q}", timeout=60)
    stored = "not visible"
    rows = r.data() if r.status == 200 else None
    if isinstance(rows, list):
        kept = sum(len((w.get("body") or "").encode()) + len(json.dumps(w.get("headers") or {})) for w in rows)
        per = kept / len(rows) if rows else 0
        stored = f"{len(rows)} rejected rows shown, body+headers {kept / 2**20:.1f} MiB ({per / 1024:.0f} KiB each)"
    elif r.status != 200:
        stored = f"not visible ({r.why()[:60]})"
    rejected1 = total("/api/billing/webhooks?" + qs({"filters[and][0][column]": "status",
                                                     "filters[and][0][method]": "eq", "filters[and][0][value]": "rejected"}))
    new_rejected = None if rejected0 is None or rejected1 is None else rejected1 - rejected0
    return {
        "scenario": "5 forged webhooks",
        "sent": f"{n} POST /api/billing/payment-intents/{provider}/webhook, bad signature, {nh} headers × "
        f"{hb // 1024} KiB{note} (offered: {','.join(n_ for n_ in names if n_) or '?'})",
        "answers": f"{count_text(Counter(r.label() for r in rs))}; DB (+wal) +{grown:.1f} MiB; "
        f"inbox +{new_rejected if new_rejected is not None else '?'} rejected; {stored}",
        "rss": probe.rss_text(),
        "cpu": probe.cpu_text(),
        "honest": "GET /health meanwhile: " + honest.text().split(": ", 1)[1],
        "figures": {**probe.as_dict(), "answers": dict(Counter(r.label() for r in rs)), "db_growth_mib": round(grown, 2),
                    "rejected_rows_new": new_rejected, "stored": stored, "provider": provider, "samples": samples(rs)},
    }


# --- 6. share images --------------------------------------------------------------------------


def dir_files(path, skip=()):
    """Bytes and number of the files under `path` (but those in `skip`)."""
    n = count = 0
    for root, _dirs, files in os.walk(path):
        for f in files:
            p = os.path.join(root, f)
            if p in skip:
                continue
            try:
                n += os.path.getsize(p)
                count += 1
            except OSError:
                pass
    return n, count


def jwt_subject(jwt):
    try:
        payload = jwt.split(".")[1]
        return json.loads(urlsafe_b64decode(payload + "=" * (-len(payload) % 4))).get("sub")
    except (IndexError, ValueError, AttributeError):
        return None


def scenario_share():
    guests, per = CONFIG["SHARE_GUESTS"], CONFIG["SHARE_PROFILES"]
    template = "/social/profiles/[social.profiles.slug]"
    # The page that shows a profile (the demo site has it; a fresh database has none).
    pages = api("GET", "/api/host/pages?" + qs({"filters[and][0][column]": "url", "filters[and][0][method]": "eq",
                                                "filters[and][0][value]": template}))
    if not (pages.data() or []):
        r = api("POST", "/api/host/pages", {"adminTitle": "Profile", "title": "Profile", "url": template})
        if r.status != 201:
            raise NotSetUp(f"POST /api/host/pages {template}: {r.why()}")
    skip = {DB + s for s in ("", "-wal", "-shm", "-journal")}
    tag = uuid.uuid4().hex[:6]
    slugs, setup = [], Counter()
    for g in range(guests):
        t = api("POST", "/api/rbac/subjects/authentication/init", admin=False, source=GUESTS)
        setup[f"init {t.label()}"] += 1
        jwt = (t.data() or {}).get("jwt")
        sub = jwt_subject(jwt) if jwt else None
        if not sub:
            continue
        for p in range(per):
            # A guest names its profile with a string of 1 to 100 characters; the slug is made.
            words = " ".join(uuid.uuid4().hex[:8] for _ in range(6))
            r = api("POST", f"/api/rbac/subjects/{sub}/social-module/profiles", {"title": f"Guest {g}.{p} {words}"},
                    admin=False, token=jwt, source=GUESTS)
            setup[f"profile {r.label()}"] += 1
            slug = (r.data() or {}).get("slug")
            if r.status == 201 and slug:
                slugs.append(slug)
    origin = "by guests"
    if not slugs:
        # Guests may not make profiles here: the admin makes them, to measure the images alone.
        origin = "by the admin (guests could not)"
        for i in range(guests * per):
            words = " ".join(uuid.uuid4().hex[:8] for _ in range(6))
            r = api("POST", "/api/social/profiles", {"title": {"en": f"P{i} {words}", "ru": f"П{i} {words}"},
                                                     "slug": f"abuse-{tag}-a{i}"})
            if r.status == 201:
                slugs.append((r.data() or {}).get("slug"))
        if not slugs:
            raise NotSetUp(f"no social profile could be made ({count_text(setup)})")
    settle(5)
    size0, files0 = dir_files(DATA_DIR, skip)
    probe = Probe().start()
    honest = Honest({"GET /health": health_from_honest}, every=0.5)
    honest.start()
    rs = []
    for slug in slugs:
        for lang in ("en", "ru"):
            rs.append(request("GET", f"/files/share/{lang}/social/profiles/{slug}.png", source=ATTACKER, timeout=30))
    honest.finish()
    probe.stop()
    size1, files1 = dir_files(DATA_DIR, skip)
    grown = (size1 - size0) / 2**20
    return {
        "scenario": "6 share images",
        "sent": f"{guests} anonymous inits from {GUESTS} ({count_text(setup)}); {len(slugs)} profiles made {origin}; "
        f"GET /files/share/{{en,ru}}/social/profiles/<slug>.png each",
        "answers": f"{count_text(Counter(r.label() for r in rs))} (p50 {ms(statistics.median([r.secs for r in rs]))}); "
        f"data dir files (without the database) +{grown:.2f} MiB in {files1 - files0} new files",
        "rss": probe.rss_text(),
        "cpu": probe.cpu_text(),
        "honest": "GET /health meanwhile: " + honest.text().split(": ", 1)[1],
        "figures": {**probe.as_dict(), "answers": dict(Counter(r.label() for r in rs)), "files_growth_mib": round(grown, 3), "new_files": files1 - files0,
                    "setup": dict(setup), "samples": samples(rs)},
    }


# --- main -------------------------------------------------------------------------------------

# Run in this order: the image scenario goes last, as the work it starts may go on in the
# background after its requests are answered (or timed out) and would be counted in the next one.
SCENARIOS = [
    ("1", "1a slow bodies → refresh", lambda: scenario_slow("1a slow bodies → refresh", "/api/rbac/subjects/authentication/refresh", False)),
    ("1", "1b slow bodies → admin JSON", lambda: scenario_slow("1b slow bodies → admin JSON", "/api/analytic/metrics", True)),
    ("3", "3 search with offset", scenario_search),
    ("4", "4 CRM relay", scenario_crm),
    ("5", "5 forged webhooks", scenario_webhooks),
    ("6", "6 share images", scenario_share),
    ("2", "2 image variants", scenario_images),
]


def cell(s):
    return str(s).replace("|", "/").replace("\n", " ")


def main():
    if not KEY or not PID:
        sys.exit("abuse.py: KEY and SERVER_PID must be set (run bench/abuse.sh)")
    # Room for SLOW_CONNECTIONS sockets at once (the soft limit is often 1024).
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (min(65536, hard) if hard != resource.RLIM_INFINITY else 65536, hard))
        except (ValueError, OSError):
            pass
    wanted = os.environ.get("SCENARIOS", "1 2 3 4 5 6").replace(",", " ").split()
    print("| scenario | what was sent | answers | RssAnon growth MB | server CPU s | honest client result |")
    print("|---|---|---|---|---|---|", flush=True)
    rows = []
    for num, label, run in SCENARIOS:
        if num not in wanted and label.split()[0] not in wanted:
            continue
        log(f"{label} …")
        busy = settle()
        t0 = time.monotonic()
        if not alive() or request("GET", "/health", timeout=10).status != 200:
            row = {"scenario": label, "sent": "not set up: the server does not answer /health (exited?)"}
        else:
            try:
                row = run()
            except NotSetUp as e:
                row = {"scenario": label, "sent": f"not set up: {e}"}
            except Exception as e:  # noqa: BLE001 — one scenario's failure must not end the run
                row = {"scenario": label, "sent": f"not set up: {e.__class__.__name__}: {e}"}
        row["seconds"] = round(time.monotonic() - t0, 1)
        if busy >= 0.05 and "cpu" in row:
            row["cpu"] += f" (server at {busy * 100:.0f} % CPU before it began)"
        rows.append(row)
        print("| " + " | ".join(cell(row.get(k, "")) for k in ("scenario", "sent", "answers", "rss", "cpu", "honest")) + " |", flush=True)
        log(f"{label}: {row['seconds']} s")
    print()
    print("answers: status×count with the median seconds until it came; closed = the server closed the "
          "connection without an answer; none = no answer when the attack's time was up. RssAnon growth: "
          "the server's anonymous resident memory at its peak during the attack and at its end, minus just "
          "before, in MiB. Server CPU: user + system seconds over the attack. Honest client: another "
          "loopback address (127.0.0.2) meanwhile.")
    result = os.environ.get("RESULT")
    if result:
        with open(result, "w") as f:
            json.dump({"base": BASE, "config": CONFIG, "rows": rows}, f, indent=2, ensure_ascii=False)


if __name__ == "__main__":
    main()
