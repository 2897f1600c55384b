#!/usr/bin/env python3
"""The visitors' site search as the tables grow (issue 51): seeds the article page template and
blog articles, each with a text of three paragraphs, through the API in steps (1 000, 20 000,
100 000), and at each step times GET /api/host/search for a word one article's title holds, a word
one article's text alone holds, a word form every tenth article holds (many
matches: the answer is capped), a word none holds (which also takes the typo path), and a typo
of the rare word (found through that path). Sequential requests at the client on
loopback (an upper bound on server time); p50/p95 over N requests after a warm-up.

  python3 bench/site_search.py BASE_URL SECRET_KEY [N] [PG_URL]

With PG_URL (the server's PostgreSQL database), each step's bulk load is followed by
`VACUUM ANALYZE`, as autovacuum does after a bulk load in production: until then the trigram
indexes' pending lists are unmerged and the planner's statistics say the table is empty, and it
scans the table instead (38 ms at 20 000 rows, measured; 0.2 ms after).
"""
import subprocess
import json, statistics, sys, time, urllib.parse, urllib.request

base, key = sys.argv[1], sys.argv[2]
n = int(sys.argv[3]) if len(sys.argv) > 3 else 200
pg = sys.argv[4] if len(sys.argv) > 4 else None
STEPS = [1_000, 20_000, 100_000]
WORDS = ["река", "поле", "гора", "озеро", "степь", "луг", "сад", "парк", "холм"]


def call(method, path, body=None):
    req = urllib.request.Request(base + path, method=method, data=None if body is None else json.dumps(body).encode(),
                                 headers={"content-type": "application/json", "x-rbac-secret-key": key})
    with urllib.request.urlopen(req) as r:
        return json.loads(r.read() or b"null")


for url in ["/", "/blog", "/blog/articles/[blog.articles.slug]"]:
    call("POST", "/api/host/pages", {"title": url, "url": url, "status": "published"})


def title(i):
    # Every tenth article speaks of trees in some form; one of them is the only one of its kind.
    if i == 777:
        return "Единственный баобаб"
    if i % 10 == 0:
        return f"Почему деревьям нужен {WORDS[i % len(WORDS)]} {i}"
    return f"Заметка про {WORDS[i % len(WORDS)]} номер {i}"


def body(i):
    # Every article has a text (three paragraphs, ~700 characters in all, in the search index since
    # texts are searched); one of them alone speaks of sequoias, in its text and not its title.
    place = WORDS[i % len(WORDS)]
    paragraphs = [
        f"Мы снова приехали на {place} номер {i}. Весной здесь работают волонтёры, они готовят участки и считают саженцы.",
        f"Отчёт о поездке {i}: погода, дорога и люди. Каждая посадка получает метку, фотографию и место на карте проекта.",
        "Секвойя растёт медленно, но живёт тысячи лет." if i == 555 else
        f"Следующая поездка на {WORDS[(i + 3) % len(WORDS)]} будет осенью; записаться можно на странице проекта.",
    ]
    doc = {"type": "doc", "content": [{"type": "paragraph", "content": [{"type": "text", "text": t}]} for t in paragraphs]}
    return {"ru": doc}


def seed(upto, have):
    for start in range(have, upto, 100):
        call("POST", "/api/blog/articles/bulk", [{"data": {"slug": f"a-{i:06d}", "status": "published", "title": {"ru": title(i), "en": f"Note {i}"}, "description": body(i)}}
                                                 for i in range(start, min(upto, start + 100))])


def measure(q):
    times, found = [], 0
    for i in range(n + 20):
        t = time.perf_counter()
        # Each request from another address (through the trusted proxy header): the search's
        # per-address budget (120 a minute) is for people, not for this loop.
        req = urllib.request.Request(f"{base}/api/host/search?lang=ru&q={urllib.parse.quote(q)}",
                                     headers={"x-forwarded-for": f"10.{i // 65536 % 256}.{i // 256 % 256}.{i % 256}"})
        with urllib.request.urlopen(req) as r:
            body = json.loads(r.read())
        if i >= 20:
            times.append((time.perf_counter() - t) * 1000)
        found = len(body["data"]["results"])
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.95) - 1], found


have = 0
rows = {}
for step in STEPS:
    t = time.time()
    seed(step, have)
    have = step
    if pg:
        subprocess.run(["psql", pg, "-qc", "VACUUM ANALYZE"], check=True)
    print(f"seeded {step} articles ({time.time() - t:.1f} s)", flush=True)
    # A word none holds also takes the typo path (its halves looked up), and a typo of the rare
    # word finds its one article that way.
    for name, q in [("one article holds it ('баобаб')", "баобаб"), ("one article's text holds it ('секвойя')", "секвойя"), ("every tenth holds a form ('дерево')", "дерево"), ("none holds it ('бегемот')", "бегемот"), ("a typo of the rare one ('баобап')", "баобап")]:
        p50, p95, found = measure(q)
        rows.setdefault(name, []).append((p50, p95, found))
        print(f"  {name}: p50 {p50:.2f} ms, p95 {p95:.2f} ms, {found} results", flush=True)

print()
print(f"| search | {' | '.join(f'{s:,} p50 / p95' for s in STEPS)} | p50 ratio |")
print("|---|" + "---:|" * (len(STEPS) + 1))
for name, r in rows.items():
    cells = " | ".join(f"{p50:.2f} / {p95:.2f} ms ({found})" for p50, p95, found in r)
    print(f"| {name} | {cells} | {r[-1][0] / r[0][0]:.2f} |")
