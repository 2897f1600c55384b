#!/usr/bin/env python3
"""find-by-url at 10 000 articles (issue 5): seeds pages (static ones and the article template) and
10 000 blog articles through the API, then times GET /api/host/pages/find-by-url for article URLs,
a static page and a miss. Sequential requests at the client on loopback (an upper bound on server
time); p50/p95/max over N requests after a warm-up.

  python3 bench/find_by_url.py BASE_URL SECRET_KEY [N]
"""
import json, random, statistics, sys, time, urllib.parse, urllib.request

base, key = sys.argv[1], sys.argv[2]
n = int(sys.argv[3]) if len(sys.argv) > 3 else 300


def call(method, path, body=None):
    req = urllib.request.Request(base + path, method=method, data=None if body is None else json.dumps(body).encode(),
                                 headers={"content-type": "application/json", "x-rbac-secret-key": key})
    with urllib.request.urlopen(req) as r:
        return json.loads(r.read() or b"null")


for url in ["/", "/blog", "/about", "/contacts", "/blog/categories/[blog.categories.slug]",
            "/blog/articles/[blog.articles.slug]", "/ecommerce/products/[ecommerce.products.slug]"]:
    call("POST", "/api/host/pages", {"title": url, "url": url})
t = time.time()
for chunk in range(100):
    call("POST", "/api/blog/articles/bulk", [{"data": {"slug": f"article-{chunk * 100 + i:05d}"}} for i in range(100)])
print(f"seeded 10 000 articles in {time.time() - t:.1f} s")


def measure(name, urls):
    times = []
    for i in range(n + 20):
        u = random.choice(urls)
        t = time.perf_counter()
        try:
            with urllib.request.urlopen(f"{base}/api/host/pages/find-by-url?url={urllib.parse.quote(u, safe='')}") as r:
                r.read()
        except urllib.error.HTTPError as e:
            e.read()
        if i >= 20:
            times.append((time.perf_counter() - t) * 1000)
    times.sort()
    print(f"| {name} | {statistics.median(times):.2f} | {times[int(len(times) * 0.95) - 1]:.2f} | {times[-1]:.2f} |")


print("| find-by-url | p50 ms | p95 ms | max ms |")
print("|---|---:|---:|---:|")
measure("an article among 10 000 (`/blog/articles/{slug}`)", [f"/blog/articles/article-{random.randrange(10000):05d}" for _ in range(500)])
measure("a static page (`/about`)", ["/about"])
measure("no such article (404)", ["/blog/articles/no-such-article"])
