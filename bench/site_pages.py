#!/usr/bin/env python3
"""The public site on the demo data (issue 5): page HTML and page bundles, from the cache and
built afresh (the cache cleared before each request). Sequential requests at the client on
loopback (an upper bound on server time); p50/p95/max over N requests after a warm-up.

  python3 bench/site_pages.py BASE_URL SECRET_KEY [N]
"""
import statistics, sys, time, urllib.request

base, key = sys.argv[1], sys.argv[2]
n = int(sys.argv[3]) if len(sys.argv) > 3 else 200


def get(path):
    with urllib.request.urlopen(base + path) as r:
        return r.read()


def clear():
    req = urllib.request.Request(base + "/api/revalidation/revalidate", method="POST", headers={"x-rbac-secret-key": key})
    urllib.request.urlopen(req).read()


def measure(name, path, cold=False):
    times = []
    size = 0
    for i in range(n + 10):
        if cold:
            clear()
        t = time.perf_counter()
        size = len(get(path))
        if i >= 10:
            times.append((time.perf_counter() - t) * 1000)
    times.sort()
    print(f"| {name} | {size / 1024:.0f} KB | {statistics.median(times):.2f} | {times[int(len(times) * 0.95) - 1]:.2f} | {times[-1]:.2f} |")


print("| request | body | p50 ms | p95 ms | max ms |")
print("|---|---:|---:|---:|---:|")
measure("home HTML `/ru/`, cached page (server-rendered)", "/ru/")
measure("home bundle `/api/host/pages/bundle?url=/`, cached", "/api/host/pages/bundle?url=/")
measure("home bundle, built afresh", "/api/host/pages/bundle?url=/", cold=True)
measure("article HTML `/ru/blog/articles/how-we-plant`, built afresh", "/ru/blog/articles/how-we-plant", cold=True)
measure("blog bundle (two list widgets), built afresh", "/api/host/pages/bundle?url=/blog", cold=True)
