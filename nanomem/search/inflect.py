"""Irregular inflections: a query word also searches for the forms of its word that stemming
does not reach.

The index stems English with Porter's rules (``painted`` finds ``painting``), which know only
regular endings. A question asks with the base form after ``did`` ("when did Zoe catch the
bus?", "what did he bring back?"), and the turn that answers it tells the story in the past ("I
caught the 7:10", "he brought me a kite"); a superlative is asked of a plain adjective ("the
heaviest one" / "tall ones go heavy"); an irregular plural of its singular (``teeth`` /
``tooth``). So a query word is also searched as

- a verb's base: its irregular forms (``catch`` -> ``caught``; ``bring`` -> ``brought``);
- a noun or an adjective: the other forms of its word, base or inflected (``heaviest`` ->
  ``heavy``, ``heavier``; ``tooth`` -> ``teeth``).

Not a verb's irregular form back to its base: a question that says ``bought`` or ``wrote``
names a past event ("before he bought a different one", "the card she wrote"), and a turn
saying ``buy`` or ``write`` speaks of a plan or a habit ("never buy a car from a stranger").
Nor the forms of the light verbs (:data:`LIGHT_VERBS`: ``get``, ``go``, ``take``, ``make`` …),
whose forms fill chat and carry little of a question's meaning ("go to", "get into", "take
home"). The forms come from Princeton WordNet 3.0's exception lists (``noun.exc``,
``verb.exc``, ``adj.exc``), only those whose Porter stem differs from their base's and from
every stop word's (``ate`` is indexed as ``at``), in ``data/inflections.tsv.gz`` (built by
:mod:`nanomem.search.wordnet`, read once, lazily). Only queries are expanded, so the index and
its schema stay as they are; a form's matches add :data:`FORM_WEIGHT` × their BM25 relevance
(:mod:`nanomem.search.index`), less than the word the question says.

>>> plan_forms("catch"), plan_forms("caught"), plan_forms("heaviest"), plan_forms("got")
(['caught'], [], ['heavy', 'heavier'], [])
>>> plan_terms("When did Zoe catch the teeth?")
['"caught"', '"tooth"']
"""

from __future__ import annotations

import gzip
from functools import lru_cache
from pathlib import Path

from nanomem.search import terms

DATA = "inflections.tsv.gz"
FORM_WEIGHT = 0.5  # a form's BM25 relevance counts this much (the word the question says: 1)
LIGHT_VERBS = frozenset("be have do make take give get go come put set keep let".split())


@lru_cache(maxsize=1)
def read_table() -> dict[str, tuple[str, ...]]:
    """Each word -> the forms it is also searched as (see the module docstring)."""
    raw = gzip.decompress((Path(__file__).parent / "data" / DATA).read_bytes()).decode("utf-8")
    table: dict[str, list[str]] = {}
    for line in raw.splitlines():
        if not line or line.startswith("#"):
            continue
        pos, base, written = line.split("\t")
        forms = written.split()
        if base in LIGHT_VERBS:  # and their homographs: the noun "go" (goes)
            continue
        table.setdefault(base, []).extend(forms)
        if pos != "v":  # a noun's or an adjective's form finds its base and the base's other forms
            for form in forms:
                table.setdefault(form, []).extend(w for w in (base, *forms) if w != form)
    return {word: tuple(dict.fromkeys(forms)) for word, forms in table.items()}


def plan_forms(word: str) -> list[str]:
    """The forms a lower-case word is also searched as (pure, but for reading the shipped list once)."""
    return [form for form in read_table().get(word, ()) if form not in terms.STOP_WORDS]


def plan_terms(query: str) -> list[str]:
    """The FTS5 terms (quoted) of the forms of a query's Latin words, without repeats and
    without the query's own terms (pure, but for reading the shipped list once)."""
    own = set(terms.plan_terms(query))
    words = [w for w in terms.plan_latin_words(query) if w not in terms.STOP_WORDS]
    found = ['"' + form + '"' for word in words for form in plan_forms(word)]
    return [term for term in dict.fromkeys(found) if term not in own]
