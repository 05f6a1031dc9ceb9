"""Loads rows into a new SQLite table for Datasette, with Python's standard library only.

python3 datasette-load.py ROWS.jsonl DATABASE SPEC, where SPEC is JSON:
{"table": name, "columns": [[name, SQLite type], ...], "indexes": [column, ...]}.

Rows are inserted in the order they come (rowid order, which Datasette pages by), lists as JSON
text; then an index on each column given and ANALYZE, as anyone serving the table would set it up.
"""

import json
import sqlite3
import sys


def quote(name):
    return '"' + name.replace('"', '""') + '"'


def main(rows_path, database, spec_text):
    spec = json.loads(spec_text)
    table, columns = spec["table"], spec["columns"]
    names = [name for name, _ in columns]
    db = sqlite3.connect(database)
    db.execute("PRAGMA journal_mode = OFF")
    db.execute("PRAGMA synchronous = OFF")
    db.execute(f"CREATE TABLE {quote(table)} ({', '.join(f'{quote(n)} {t}' for n, t in columns)})")
    insert = f"INSERT INTO {quote(table)} VALUES ({', '.join('?' for _ in names)})"

    def cell(value):
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False) if isinstance(value, (list, dict)) else value

    batch = []
    with open(rows_path, encoding="utf-8") as rows:
        for line in rows:
            row = json.loads(line)
            batch.append([cell(row[name]) for name in names])
            if len(batch) == 10_000:
                db.executemany(insert, batch)
                batch.clear()
    db.executemany(insert, batch)
    for column in spec["indexes"]:
        db.execute(f"CREATE INDEX {quote(f'{table}_{column}')} ON {quote(table)} ({quote(column)})")
    db.execute("ANALYZE")
    db.commit()
    db.close()


if __name__ == "__main__":
    main(*sys.argv[1:4])
