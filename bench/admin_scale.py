#!/usr/bin/env python3
"""Admin list and search at scale (issue 4): seeds 1 000 000 blog articles and times the requests
the admin table makes. Latency is measured at the client, sequentially, on loopback (so it bounds
the server time from above); each scenario runs WARMUP + N requests and reports p50/p95/max.

  python3 bench/admin_scale.py seed-sqlite DB_PATH ROWS
  python3 bench/admin_scale.py seed-postgres DATABASE_URL ROWS
  python3 bench/admin_scale.py measure BASE_URL [N]
"""
import json, random, sqlite3, statistics, subprocess, sys, time, urllib.request, uuid

WORDS = ["far", "calm", "bold", "kind", "wise", "swift", "bright", "quiet", "brave", "gentle", "lucky", "proud",
         "salmon", "amber", "olive", "coral", "indigo", "ivory", "teal", "plum", "sage", "rust", "azure", "jade",
         "cod", "fox", "owl", "elk", "lynx", "heron", "otter", "crane", "bison", "finch", "hare", "seal"]


def seed_sqlite(path, n):
    c = sqlite3.connect(path)
    c.execute("PRAGMA synchronous=OFF")
    base = int(time.time() * 1000) - n
    rnd = random.Random(7)

    def rows():
        for i in range(n):
            r = rnd.getrandbits(74)
            # uuid v7 (time-ordered, like the server's ids)
            u = ((base + i) << 80) | (0x7 << 76) | ((r >> 62) << 64) | (0b10 << 62) | (r & ((1 << 62) - 1))
            w = f"{rnd.choice(WORDS)} {rnd.choice(WORDS)} {rnd.choice(WORDS)} {i}"
            yield (str(uuid.UUID(int=u)), w, w.replace(" ", "-"), json.dumps({"en": f"Article {i}", "ru": f"Статья {i}"}))

    t = time.time()
    c.executemany("INSERT INTO blog_article (id, admin_title, slug, title) VALUES (?,?,?,?)", rows())
    c.commit()
    c.execute("ANALYZE")
    print(f"seeded {n} rows in {time.time() - t:.1f} s")


def seed_postgres(url, n):
    words = "ARRAY[" + ",".join(f"'{w}'" for w in WORDS) + "]"
    sql = f"""
    INSERT INTO blog_article (id, admin_title, slug, title)
    SELECT (lpad(to_hex(floor(extract(epoch FROM now()) * 1000)::bigint - {n} + i), 12, '0') || '7' || substr(md5(i::text), 1, 3) || '8' || substr(md5(i::text), 4, 15))::uuid, t, replace(t, ' ', '-'), jsonb_build_object('en', 'Article ' || i, 'ru', 'Статья ' || i)
    -- ids shaped like the server's uuid v7 (time-ordered), so the primary key order is insertion order
    FROM (SELECT i, ({words})[1 + floor(random() * 36)::int] || ' ' || ({words})[1 + floor(random() * 36)::int] || ' ' || ({words})[1 + floor(random() * 36)::int] || ' ' || i AS t
          FROM generate_series(1::bigint, {n}) AS i) s;
    ANALYZE blog_article;"""
    t = time.time()
    subprocess.run(["psql", url, "-qc", sql], check=True)
    print(f"seeded {n} rows in {time.time() - t:.1f} s")


SCENARIOS = [
    ("list, first page + count", "limit=20&offset=0&count=true"),
    ("list, page 500 (offset 10 000)", "limit=20&offset=10000&count=true"),
    ("list, page 25 000 (offset 500 000)", "limit=20&offset=500000"),
    ("list sorted by slug (unique index)", "limit=20&count=true&orderBy[and][0][column]=slug&orderBy[and][0][method]=desc"),
    ("search, common word + count", "limit=20&count=true&search=fox"),
    ("search, rare text + count", "limit=20&count=true&search=123456"),
    ("search, no match + count", "limit=20&count=true&search=nosuchthing"),
    ("search, 2 characters + count", "limit=20&count=true&search=ox"),
    ("list sorted by adminTitle (list-column index)", "limit=20&orderBy[and][0][column]=adminTitle&orderBy[and][0][method]=asc"),
]


def measure(base, n=200, warmup=10):
    print(f"| scenario | p50 ms | p95 ms | max ms | total header |")
    print(f"|---|---:|---:|---:|---|")
    for name, qs in SCENARIOS:
        url = f"{base}/api/blog/articles?{qs}"
        times = []
        header = ""
        for i in range(warmup + n):
            t = time.perf_counter()
            with urllib.request.urlopen(url) as r:
                r.read()
                header = f"{r.headers.get('x-total-count', '')}{'' if r.headers.get('x-total-count-exact', 'true') == 'true' else ' (not exact)'}"
            if i >= warmup:
                times.append((time.perf_counter() - t) * 1000)
        times.sort()
        p95 = times[int(len(times) * 0.95) - 1]
        print(f"| {name} | {statistics.median(times):.1f} | {p95:.1f} | {times[-1]:.1f} | {header} |")


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "seed-sqlite":
        seed_sqlite(sys.argv[2], int(sys.argv[3]))
    elif cmd == "seed-postgres":
        seed_postgres(sys.argv[2], int(sys.argv[3]))
    elif cmd == "measure":
        measure(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 200)
