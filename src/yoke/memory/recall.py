"""Recall without a model call: a SQLite FTS5 index over the memory files picks the few that match a prompt.

The index is a cache derived from the files. Before each search it compares every file's mtime and size
with what it indexed and re-reads only what changed (a model's Write, a user's edit, `yoke memory forget`),
all in one transaction, so a crash mid-update rolls back to the last consistent state; a database that
cannot be opened or has an old schema is deleted and rebuilt from the files. It lives under Yoke's home,
not in the memory directory, which stays exactly Claude Code's layout.

Ranking is BM25 over name (weight 4), description (3) and body (1) with Porter stemming. A prompt's words,
less stop words, are OR-ed; results scoring under a fraction of the best one are dropped, so a memory that
shares one common word with the prompt does not ride along with a strong match.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from yoke.memory.store import INDEX_NAME, Memory, parse_memory
from yoke.records import dataclass

if TYPE_CHECKING:
    import sqlite3

SCHEMA_VERSION = 2
MAX_RESULTS = 5
MAX_QUERY_TERMS = 40
RELATIVE_CUTOFF = 0.3  # keep results scoring at least this fraction of the best
MAX_BODY_CHARS = 4000  # per recalled memory, in the prompt
_WORD = re.compile(r"[^\W_]+")  # letters and digits of any script; `don't` gives `don` (a stop word)
_STOP_TEXT = """\
a about above after again against all am an and any are as at be because been before being below
between both but by can could did do does doing don done down during each few for from further get
got had has have having he her here hers herself him himself his how i if in into is it its itself
just let like me more most my myself no nor not now of off on once only or other our ours ourselves
out over own please same she should so some such than that the their theirs them themselves then
there these they this those through to too under until up use used using very want was we were what
when where which while who whom why will with would you your yours yourself yourselves make sure
also need needs one two new still thing things way work works working file files code anything
something everything nothing else give tell show fine okay ok try goes going gonna really maybe
might must may shall able across via per lot lots much many bit didn doesn isn wasn aren weren won
wouldn couldn shouldn haven hasn hadn ll ve re lets"""
STOP_WORDS = frozenset(_STOP_TEXT.split())


@dataclass(frozen=True, slots=True)
class Hit:
    path: Path
    name: str
    description: str
    type: str
    body: str
    score: float


def scan(directory: str) -> dict[str, tuple[int, int]]:
    """path -> (mtime_ns, size) of every memory file (what `store.memory_paths` lists), with plain strings and
    scandir: this runs before every prompt's search, so it must stay well under a millisecond."""
    found: dict[str, tuple[int, int]] = {}
    pending = [directory]
    while pending:
        folder = pending.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            try:
                if entry.is_dir():
                    pending.append(entry.path)
                elif name.endswith(".md") and not (folder == directory and name == INDEX_NAME):
                    st = entry.stat()
                    found[entry.path] = (st.st_mtime_ns, st.st_size)
            except OSError:
                continue
    return found


def query_terms(prompt: str) -> list[str]:
    """The prompt's search words: lower-cased, stop words and numbers dropped; two-letter words only when
    written in capitals (CI, DB, QA)."""
    seen: dict[str, None] = {}
    for match in _WORD.finditer(prompt):
        raw = match.group(0)
        word = raw.lower()
        if word in STOP_WORDS or word.isdigit() or len(word) < 2 or (len(word) == 2 and not raw.isupper()):
            continue
        seen.setdefault(word, None)
        if len(seen) >= MAX_QUERY_TERMS:
            break
    return list(seen)


class RecallIndex:
    """The FTS5 index of one memory directory, kept in `db_path`."""

    def __init__(self, directory: Path, db_path: Path):
        self.directory = Path(directory)
        self.db_path = Path(db_path)
        self._db: sqlite3.Connection | None = None
        self._known: dict[str, tuple[int, int]] | None = None  # what the index holds: path -> (mtime, size)

    # ---- connection ---------------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        if self._db is not None:
            return self._db
        import sqlite3  # here, not at import: a session that never recalls a memory does not pay for it

        self.db_path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = self._open()
        except sqlite3.DatabaseError:
            self._discard()  # corrupt or unreadable: it is only a cache, rebuild it from the files
            self._db = self._open()
        return self._db

    def _open(self) -> sqlite3.Connection:
        import sqlite3

        db = sqlite3.connect(self.db_path, timeout=2.0, isolation_level=None)
        try:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version != SCHEMA_VERSION:
                db.executescript(
                    "DROP TABLE IF EXISTS docs; DROP TABLE IF EXISTS files;"
                    "CREATE TABLE files(path TEXT PRIMARY KEY, mtime_ns INTEGER, size INTEGER,"
                    " expires TEXT);"
                    "CREATE VIRTUAL TABLE docs USING fts5(path UNINDEXED, name, description, body,"
                    " type UNINDEXED, tokenize='porter unicode61');"
                    f"PRAGMA user_version = {SCHEMA_VERSION};"
                )
            db.execute("SELECT count(*) FROM docs").fetchone()  # reads the FTS tables: fails when corrupt
        except sqlite3.DatabaseError:
            db.close()
            raise
        return db

    def _discard(self) -> None:
        for suffix in ("", "-wal", "-shm", "-journal"):
            try:
                os.unlink(f"{self.db_path}{suffix}")
            except FileNotFoundError:
                pass

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
        self._known = None

    # ---- keeping up with the files ------------------------------------------------------------------

    def refresh(self) -> int:
        """Bring the index up to date with the files; returns how many files were (re)indexed or dropped."""
        db = self._connect()
        on_disk = scan(str(self.directory))
        if self._known is None:
            self._known = {r[0]: (r[1], r[2]) for r in db.execute("SELECT path, mtime_ns, size FROM files")}
        known = self._known
        changed = [p for p, sig in on_disk.items() if known.get(p) != sig]
        gone = [p for p in known if p not in on_disk]
        if not changed and not gone:
            return 0
        db.execute("BEGIN IMMEDIATE")
        try:
            for path in gone:
                self._drop(db, path)
            for path in changed:
                self._drop(db, path)
                self._add(db, Path(path), on_disk[path])
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            self._known = None  # reread what is really committed next time
            raise
        for path in gone:
            known.pop(path, None)
        known.update((path, on_disk[path]) for path in changed)
        return len(changed) + len(gone)

    def _drop(self, db: sqlite3.Connection, path: str) -> None:
        db.execute("DELETE FROM docs WHERE path = ?", (path,))
        db.execute("DELETE FROM files WHERE path = ?", (path,))

    def _add(self, db: sqlite3.Connection, path: Path, signature: tuple[int, int]) -> None:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return
        memory = parse_memory(path, text)
        expires = memory.expires_at.isoformat() if memory.expires_at else None
        db.execute("INSERT INTO files VALUES (?, ?, ?, ?)", (str(path), *signature, expires))
        db.execute(
            "INSERT INTO docs(path, name, description, body, type) VALUES (?, ?, ?, ?, ?)",
            (str(path), memory.name, memory.description, memory.body, memory.type),
        )

    def indexed_paths(self) -> set[str]:
        return {row[0] for row in self._connect().execute("SELECT path FROM files")}

    # ---- searching ----------------------------------------------------------------------------------

    def search(
        self, text: str, limit: int = MAX_RESULTS, exclude: Iterable[str] = (), refresh: bool = True
    ) -> list[Hit]:
        """The memories best matching `text` (at most `limit`, none of `exclude`, none expired)."""
        terms = query_terms(text)
        if not terms:
            return []
        if refresh:
            self.refresh()
        skip = set(exclude)
        from datetime import UTC, datetime  # here: start-up need not pay for it

        now = datetime.now(UTC).isoformat()
        query = " OR ".join('"' + t.replace('"', "") + '"' for t in terms)
        rows = (
            self._connect()
            .execute(
                "SELECT d.path, d.name, d.description, d.body, d.type, -bm25(docs, 0, 4.0, 3.0, 1.0) AS score"
                " FROM docs d JOIN files f ON f.path = d.path"
                " WHERE docs MATCH ? AND (f.expires IS NULL OR f.expires > ?)"
                " ORDER BY score DESC LIMIT ?",
                (query, now, limit + len(skip)),
            )
            .fetchall()
        )
        hits = [Hit(Path(r[0]), r[1], r[2], r[4], r[3], r[5]) for r in rows if r[0] not in skip]
        if not hits:
            return []
        best = hits[0].score
        return [h for h in hits if h.score >= best * RELATIVE_CUTOFF][:limit]


def format_recall(hits: list[Hit], directory: Path) -> str:
    parts = []
    for hit in hits:
        body = hit.body if len(hit.body) <= MAX_BODY_CHARS else hit.body[:MAX_BODY_CHARS] + "\n[... cut]"
        attrs = f'path="{_attr(str(hit.path))}" name="{_attr(hit.name)}"' + (
            f' type="{hit.type}"' if hit.type else ""
        )
        description = f"{hit.description}\n\n" if hit.description else ""
        parts.append(f"<memory {attrs}>\n{description}{body}\n</memory>")
    return (
        f"Memories from earlier sessions that may bear on this request (from {directory}). They record what "
        "was true when written: check anything about the code before relying on it.\n\n" + "\n\n".join(parts)
    )


def _attr(text: str) -> str:
    return text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")


def memory_of(hit: Hit) -> Memory:
    return Memory(hit.path, hit.name, hit.description, hit.type, hit.body)
