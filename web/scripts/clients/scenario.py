"""The scenario with the openapi-python-client package (generated into .out/python by run.sh).

First imports every module of the generated package, then runs the steps; a failed step does not
stop the run (later steps that need its result fail too). Exits 1 when anything failed.
"""

import importlib
import json
import os
import pkgutil
import random
import string
import sys
import time
import traceback

BASE = os.environ["STOA_BASE_URL"]
EMAIL = os.environ["STOA_EMAIL"]
PASSWORD = os.environ["STOA_PASSWORD"]
sys.path.insert(0, os.path.join(os.environ["CLIENTS_OUT"], "python"))

BAD_SLUG = "Not A Slug!"
DESCRIPTION = {"en": {"type": "doc", "content": [{"type": "paragraph", "content": [{"type": "text", "text": "Hi"}]}]}}
passed = 0
failed = 0


class Check(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Check(what)


def eq(actual, expected, what):
    if actual != expected:
        raise Check(f"{what}: expected {expected!r}, got {actual!r}")


def step(title):
    def run(fn):
        global passed, failed
        try:
            fn()
            passed += 1
            print(f"  ok    python: {title}", flush=True)
        except Check as e:
            failed += 1
            print(f"  FAIL  python: {title}\n        {e}", flush=True)
        except Exception:
            failed += 1
            tb = traceback.format_exc().strip().replace("\n", "\n        ")
            print(f"  FAIL  python: {title}\n        {tb}", flush=True)
        return fn

    return run


@step("0 import every generated module")
def _imports():
    pkg = importlib.import_module("stoa_client")
    names = [pkg.__name__]
    names += [m.name for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + ".")]
    bad = []
    for name in names:
        try:
            importlib.import_module(name)
        except Exception as e:  # noqa: BLE001 - every failure is reported
            bad.append(f"{name}: {type(e).__name__}: {e}")
    print(f"        imported {len(names) - len(bad)} of {len(names)} modules", flush=True)
    check(not bad, "modules that do not import:\n        " + "\n        ".join(bad))


from stoa_client import AuthenticatedClient, Client  # noqa: E402

state = {}
slug = "clients-python-{}-{}".format(
    int(time.time() * 1000), "".join(random.choices(string.ascii_lowercase + string.digits, k=6))
)
title = {"en": "Generated client (python)", "ru": "Сгенерированный клиент (python)"}


def api(module):
    return importlib.import_module(f"stoa_client.api.{module}")


def models():
    return importlib.import_module("stoa_client.models")


def authed():
    check("client" in state, "not signed in (step 1 failed)")
    return state["client"]


def the_article():
    check("article" in state, "no article (step 2 failed)")
    return state["article"]


def error_body(r, status, what):
    Error = models().Error
    eq(int(r.status_code), status, f"{what}: status ({r.content[:300]!r})")
    check(isinstance(r.parsed, Error), f"{what}: the body did not parse as Error: {r.parsed!r} ({r.content[:300]!r})")
    err = r.parsed
    eq(err.status, status, f"{what}: Error.status")
    check(isinstance(err.code, str) and err.code, f"{what}: Error.code {err.code!r}")
    check(isinstance(err.error, str), f"{what}: Error.error {err.error!r}")
    check(isinstance(err.request_id, str) and err.request_id, f"{what}: Error.request_id {err.request_id!r}")
    return err


@step("1 sign in (authLogin)")
def _login():
    m = models()
    with Client(base_url=BASE) as c:
        r = api("rbac.auth_login").sync_detailed(client=c, body=m.AuthLoginBody(login=EMAIL, password=PASSWORD))
    eq(int(r.status_code), 201, f"authLogin status ({r.content[:300]!r})")
    jwt = r.parsed.data.jwt
    check(isinstance(jwt, str) and jwt.count(".") == 2, f"jwt is not a JWT: {jwt!r}")
    state["client"] = AuthenticatedClient(base_url=BASE, token=jwt)


@step("2 create an article (createBlogArticle)")
def _create():
    m = models()
    body = m.BlogArticleCreate.from_dict({"slug": slug, "title": title, "description": DESCRIPTION})
    r = api("blog.create_blog_article").sync_detailed(client=authed(), body=body)
    eq(int(r.status_code), 201, f"createBlogArticle status ({r.content[:300]!r})")
    a = r.parsed.data
    check(isinstance(a, m.BlogArticle), f"not a BlogArticle: {a!r}")
    eq(a.slug, slug, "created slug")
    eq(a.title.to_dict(), title, "created title")
    eq(a.description.to_dict()["en"]["type"], "doc", "created description.en.type")
    state["article"] = a


@step("3 read it back (getBlogArticle)")
def _get():
    a = the_article()
    r = api("blog.get_blog_article").sync_detailed(id=a.id, client=authed())
    eq(int(r.status_code), 200, f"getBlogArticle status ({r.content[:300]!r})")
    t = r.parsed.data.title
    eq(t["en"], title["en"], "title.en")
    eq(t["ru"], title["ru"], "title.ru")


@step("4 filter the list by slug (findBlogArticle, filters as JSON)")
def _find():
    a = the_article()
    filters = models().BlogArticleFilters.from_dict({"and": [{"column": "slug", "method": "eq", "value": slug}]})
    r = api("blog.find_blog_article").sync_detailed(client=authed(), filters=json.dumps(filters.to_dict()))
    eq(int(r.status_code), 200, f"findBlogArticle status ({r.content[:300]!r})")
    rows = r.parsed.data
    eq([x.slug for x in rows], [slug], "the slugs found")
    eq(rows[0].id, a.id, "the id found")


@step("5 patch the English title (updateBlogArticle) and read back")
def _patch():
    a = the_article()
    m = models()
    new = dict(title, en="Generated client (python), patched")
    r = api("blog.update_blog_article").sync_detailed(
        id=a.id, client=authed(), body=m.BlogArticlePatch.from_dict({"title": new})
    )
    eq(int(r.status_code), 200, f"updateBlogArticle status ({r.content[:300]!r})")
    eq(r.parsed.data.title["en"], new["en"], "patched title.en")
    back = api("blog.get_blog_article").sync_detailed(id=a.id, client=authed())
    eq(back.parsed.data.title.to_dict(), new, "title read back")


@step("6 an invalid slug gives a 422 Error naming the field")
def _invalid():
    m = models()
    body = m.BlogArticleCreate.from_dict({"slug": BAD_SLUG, "title": title})
    r = api("blog.create_blog_article").sync_detailed(client=authed(), body=body)
    err = error_body(r, 422, "422")
    fields = err.fields.to_dict() if hasattr(err.fields, "to_dict") else None
    check(fields and fields.get("slug"), f"Error.fields does not name slug: {r.content[:300]!r}")


@step("7 the same slug again gives a 409 Error")
def _conflict():
    the_article()
    body = models().BlogArticleCreate.from_dict({"slug": slug, "title": title})
    r = api("blog.create_blog_article").sync_detailed(client=authed(), body=body)
    error_body(r, 409, "409")


@step("8 delete it (deleteBlogArticle); then get gives a 404 Error")
def _delete():
    a = the_article()
    r = api("blog.delete_blog_article").sync_detailed(id=a.id, client=authed())
    eq(int(r.status_code), 200, f"deleteBlogArticle status ({r.content[:300]!r})")
    eq(r.parsed.data.id, a.id, "deleted id")
    gone = api("blog.get_blog_article").sync_detailed(id=a.id, client=authed())
    error_body(gone, 404, "404")


print(f"python: {passed} passed, {failed} failed", flush=True)
sys.exit(0 if failed == 0 else 1)
