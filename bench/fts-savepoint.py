#!/usr/bin/env python3
"""What an FTS5 search trigger costs a writer of a group commit (ADR 0015, revision of 2026-11-27).

Batches of 20 writers, each in its own SAVEPOINT (as crates/store/src/group.rs runs them), update a
column that is not searched, on a table with an external-content trigram index: the update trigger
fired by every update (before) against one fired only by updates of the searched column (now).
Prints microseconds per writer. Needs only Python 3's sqlite3 module.

    python3 bench/fts-savepoint.py
"""
import os
import sqlite3
import tempfile
import time
import uuid

ROWS, BATCHES, WRITERS = 20000, 200, 20


def run(narrow: bool) -> float:
    with tempfile.TemporaryDirectory() as d:
        c = sqlite3.connect(os.path.join(d, "t.db"), isolation_level=None)
        c.execute("PRAGMA journal_mode = WAL")
        c.execute("PRAGMA synchronous = FULL")
        c.execute("CREATE TABLE o (id TEXT PRIMARY KEY, status TEXT, email TEXT)")
        c.execute("CREATE INDEX ix_o_status ON o (status)")
        c.execute("CREATE VIRTUAL TABLE s USING fts5(email, content=o, content_rowid='rowid', tokenize='trigram')")
        c.execute("CREATE TRIGGER ai AFTER INSERT ON o BEGIN INSERT INTO s(rowid, email) VALUES (new.rowid, new.email); END")
        of = " OF email" if narrow else ""
        c.execute(
            f"CREATE TRIGGER au AFTER UPDATE{of} ON o BEGIN "
            "INSERT INTO s(s, rowid, email) VALUES ('delete', old.rowid, old.email); "
            "INSERT INTO s(rowid, email) VALUES (new.rowid, new.email); END"
        )
        ids = [str(uuid.uuid4()) for _ in range(ROWS)]
        c.execute("BEGIN")
        for i in ids:
            c.execute("INSERT INTO o VALUES (?, 'new', ?)", (i, f"b{i[:8]}@example.com"))
        c.execute("COMMIT")
        t, n = time.perf_counter(), 0
        for _ in range(BATCHES):
            c.execute("BEGIN IMMEDIATE")
            for _ in range(WRITERS):
                c.execute("SAVEPOINT w")
                c.execute("UPDATE o SET status = 'paying' WHERE id = ?", (ids[n],))
                c.execute("RELEASE w")
                n += 1
            c.execute("COMMIT")
        us = (time.perf_counter() - t) / n * 1e6
        c.close()
        return us


if __name__ == "__main__":
    print(f"trigger on every update:          {run(False):6.1f} µs per writer")
    print(f"trigger on updates of the column: {run(True):6.1f} µs per writer")
