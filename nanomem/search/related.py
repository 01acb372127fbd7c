"""Related words: a lexical-semantic bridge from WordNet, so general words find specific ones.

People ask later in other words than they said: "what creature got into the vegetable plot?"
for "a badger dug up every one of his leeks". Each indexed text is therefore also indexed with
the *related words* of its nouns and verbs — the synonyms of their commonest senses and the
more general words above them (``leek`` -> ``vegetable``, ``greyhound`` -> ``dog``) — in a table
of their own, ``related``, whose matches add to a document's relevance (before the session
window and the priors): ``RELATED_WEIGHT`` × the inverse document frequency of each query word a
text implies. The words come from ``data/related-words.tsv.gz`` (Princeton WordNet 3.0,
licence in ``data/WORDNET-LICENSE``), built by :mod:`nanomem.search.wordnet` and read once,
lazily, on the first text indexed. An index built from another list is rebuilt: the list's
digest is pinned (:data:`DATA_DIGEST`), and a new list comes with a new schema version of the
index.

A word is looked up as it is, then as its irregular base (``dug`` -> ``dig``, listed in the
file), then through WordNet's own suffix rules (``leeks`` -> ``leek``, ``tripped`` is listed).
The related words of a text leave out the text's own words: an exact match is the main
index's business, and the bridge only adds what the text does not say.

>>> plan_bases("leeks")
['leeks', 'leek']
>>> "vegetable" in render_related("his leeks")
True
>>> render_related("") == render_related("the of and") == ""
True
"""

from __future__ import annotations

import gzip
import hashlib
import math
import sqlite3
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from nanomem.search import terms

RELATED_WEIGHT = 0.3  # a related word counts this much of its inverse document frequency
DATA_DIGEST = "27f4f97fecad8045"  # data_digest() of the shipped list; change the index's SCHEMA_VERSION with it
DATA = "related-words.tsv.gz"
# WordNet's suffix rules (morphy), nouns then verbs: a form ending so may be its base + ending.
_RULES = (("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"),
          ("men", "man"), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""),
          ("ing", "e"), ("ing", ""))
SCHEMA = f"CREATE VIRTUAL TABLE related USING fts5(words, content='', tokenize='{terms.TOKENIZER}')"


@lru_cache(maxsize=1)
def _raw() -> bytes:
    return (Path(__file__).parent / "data" / DATA).read_bytes()


@lru_cache(maxsize=1)
def read_table() -> dict[str, str]:
    """Word -> its related words (space-separated) or ``=base`` for an irregular form."""
    table: dict[str, str] = {}
    for line in gzip.decompress(_raw()).decode("utf-8").splitlines():
        if line and not line.startswith("#"):
            word, _, related = line.partition("\t")
            table[word] = related
    return table


def data_digest() -> str:
    """A hash of the shipped word list. The ``related`` table deletes a document by its words,
    which must be the words it was given, so an index built from another list must be rebuilt:
    ``tests/test_search_related.py`` checks that this equals :data:`DATA_DIGEST`."""
    return hashlib.sha256(_raw()).hexdigest()[:16]


def plan_bases(word: str) -> list[str]:
    """The forms a word may be the inflection of, the word itself first (pure)."""
    out = [word]
    for ending, base in _RULES:
        if word.endswith(ending) and len(word) > len(ending) + 1:
            out.append(word[: len(word) - len(ending)] + base)
    return list(dict.fromkeys(out))


@lru_cache(maxsize=65536)
def read_word(word: str) -> tuple[str, ...]:
    """The related words of one (lower-case) word: of its first form found in the table."""
    table = read_table()
    for form in plan_bases(word):
        found = table.get(form)
        if found is None:
            continue
        if found.startswith("="):
            found = table.get(found[1:], "")
        return tuple(found.split())
    return ()


def render_related(text: str) -> str:
    """The related words of a text's nouns and verbs, less the text's own words (pure, but for
    reading the shipped table once). CJK text has none."""
    words = [w for w in terms.plan_latin_words(text) if w not in terms.STOP_WORDS]
    own = set(words)
    out: dict[str, None] = {}
    for word in dict.fromkeys(words):
        if word.isalpha():
            out.update((r, None) for r in read_word(word) if r not in own)
    return " ".join(out)


def plan_terms(query: str) -> list[str]:
    """The query terms to look for among related words: its Latin ones (pure).

    >>> plan_terms("What creature was in 北京?")
    ['"creature"']
    """
    return [t for t in terms.plan_terms(query) if not terms.CJK_RUN.search(t)]


def write_rows(db: sqlite3.Connection, docs: Sequence[tuple[int, str]]) -> None:
    """Index the related words of each ``(rowid, text)``."""
    rows = [(rowid, render_related(text)) for rowid, text in docs]
    db.executemany("INSERT INTO related(rowid, words) VALUES (?, ?)", [r for r in rows if r[1]])


def delete_rows(db: sqlite3.Connection, docs: Sequence[tuple[int, str]]) -> None:
    """Take out the related words of each ``(rowid, text)`` (the words it was indexed with)."""
    rows = [(rowid, render_related(text)) for rowid, text in docs]
    db.executemany("INSERT INTO related(related, rowid, words) VALUES ('delete', ?, ?)",
                   [r for r in rows if r[1]])


def read_related(db: sqlite3.Connection, query: str, limit: int, where: str, args: Sequence[Any],
                 common: tuple[float, int]) -> dict[int, float]:
    """The ``limit`` documents (those ``docs d WHERE where`` allows) whose related words best
    match the Latin words of ``query``: each scores ``RELATED_WEIGHT`` × the sum of the inverse
    document frequencies of the words it implies (no length normalisation: a long text implies
    many words, and one of them is no less meant). ``common`` is the index's ``(share, floor)``:
    in an index of more documents than ``max(share × documents, floor)``, a word that more
    documents imply is left out, like a common term of the main query (it says little and costs
    much)."""
    total = db.execute("SELECT coalesce(max(rowid), 0) FROM docs").fetchone()[0]
    cap = max(int(common[0] * total), common[1])
    scores: dict[int, float] = {}
    sql = ("SELECT r.rowid FROM related r JOIN docs d ON d.rowid = r.rowid "
           f"WHERE related MATCH ? AND ({where}) LIMIT {cap + 1}")
    for term in plan_terms(query):
        found = [row[0] for row in db.execute(sql, (term, *args))]
        if total > cap and len(found) > cap:
            continue
        idf = math.log((total - len(found) + 0.5) / (len(found) + 0.5) + 1)
        for rowid in found:
            scores[rowid] = scores.get(rowid, 0.0) + RELATED_WEIGHT * idf
    best = sorted(scores, key=lambda rowid: -scores[rowid])[:limit]
    return {rowid: scores[rowid] for rowid in best}
