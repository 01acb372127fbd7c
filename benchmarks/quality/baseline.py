"""The retrieval baseline: BM25 top-k over every raw message (``rank_bm25.BM25Okapi``).

The baseline keeps the whole conversation and, for each planted item, retrieves the ``k``
messages that score highest for the item's ``query``. An item is "retained" when its key is in
one of those messages. The same tokeniser, ``k`` and queries are used for nanomem's own
top-k column (BM25 over the lines of the memory files), so the columns compare like with like.

>>> index = Bm25Index(["I am allergic to penicillin.", "The weather is nice.", "Tea, please."])
>>> [index.documents[i] for i in index.search("what is the user allergic to", k=1)]
['I am allergic to penicillin.']
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta

from rank_bm25 import BM25Okapi

from benchmarks.quality.scenarios import RETAINED_KINDS, Conversation, contains_key
from benchmarks.quality.scoring import Ratio, strip_marks

DEFAULT_K = 5
_LATIN = re.compile(r"[a-z0-9]+(?:[-.:][a-z0-9]+)*")
STOPWORDS = frozenset(
    "a an and are as at be by do does for from has have how i i'm in is it its me my of on or "
    "our please s should so that the their them then there this to us was we what when where "
    "which who why will with you your".split()
)
_CJK_RUN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")


def tokenize(text: str) -> list[str]:
    """Lower-cased latin words and numbers (minus :data:`STOPWORDS`), CJK characters and bigrams.

    >>> tokenize("The contract KX-7731 签合同")
    ['contract', 'kx-7731', '签', '合', '同', '签合', '合同']
    """
    folded = unicodedata.normalize("NFKC", text).lower()
    tokens = [token for token in _LATIN.findall(folded) if token not in STOPWORDS]
    for run in _CJK_RUN.findall(folded):
        tokens.extend(run)
        tokens.extend(run[i : i + 2] for i in range(len(run) - 1))
    return tokens


class Bm25Index:
    """BM25Okapi over ``documents``; :meth:`search` returns indices of the top ``k`` matches.

    Only documents that share a term with the query (score > 0) are returned, so an empty
    index or an unrelated query retrieves nothing rather than arbitrary documents.
    """

    def __init__(self, documents: Sequence[str]) -> None:
        self.documents = list(documents)
        tokenized = [tokenize(doc) for doc in self.documents]
        self._bm25 = BM25Okapi(tokenized) if any(tokenized) else None

    def search(self, query: str, k: int = DEFAULT_K) -> list[int]:
        if self._bm25 is None:
            return []
        terms = set(tokenize(query))
        scores = self._bm25.get_scores(tokenize(query))
        ranked = sorted(range(len(self.documents)), key=lambda i: (-scores[i], i))
        hits = [i for i in ranked if scores[i] > 0 or terms & set(tokenize(self.documents[i]))]
        return hits[:k]


@dataclass(frozen=True)
class RetrievalOutcome:
    """What top-k retrieval found for one planted item."""

    id: str
    kind: str
    key_hit: bool
    old_hit: bool | None
    retrieved: tuple[str, ...]


@dataclass(frozen=True)
class RetrievalScores:
    """Retention-style scores of a top-k retriever over one conversation."""

    retention: Ratio
    correction: Ratio  # new value retrieved and old value not retrieved
    stale: Ratio  # old value of a correction retrieved
    expired_retrieved: Ratio  # expired ephemera still retrieved
    noise_retrieved: Ratio
    items: tuple[RetrievalOutcome, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {
            "retention": self.retention.to_json(),
            "correction_accuracy": self.correction.to_json(),
            "stale_corrections": self.stale.to_json(),
            "expired_retrieved": self.expired_retrieved.to_json(),
            "noise_retrieved": self.noise_retrieved.to_json(),
            "items": [
                {"id": o.id, "kind": o.kind, "key_hit": o.key_hit, "old_hit": o.old_hit,
                 "retrieved": list(o.retrieved)}
                for o in self.items
            ],
        }


def score_retrieval(
    conversation: Conversation, documents: Sequence[str], *, k: int, ttl_days: int
) -> RetrievalScores:
    """Run every item's query against ``documents`` and score what the top ``k`` hold."""
    index = Bm25Index(documents)
    outcomes = []
    for item in conversation.items:
        retrieved = tuple(index.documents[i] for i in index.search(item.query, k))
        key_hit = any(contains_key(doc, item.key) for doc in retrieved)
        old_hit = any(contains_key(doc, item.old) for doc in retrieved) if item.old else None
        outcomes.append(RetrievalOutcome(item.id, item.kind, key_hit, old_hit, retrieved))

    def count(kinds: tuple[str, ...], hit) -> Ratio:
        chosen = [o for o in outcomes if o.kind in kinds]
        return Ratio(sum(1 for o in chosen if hit(o)), len(chosen))

    expired_ids = {
        item.id
        for item in conversation.of_kind("ephemeral")
        if conversation.end - item.planted_at > timedelta(days=ttl_days)
    }
    expired = [o for o in outcomes if o.id in expired_ids]
    return RetrievalScores(
        retention=count(RETAINED_KINDS, lambda o: o.key_hit),
        correction=count(("correction",), lambda o: o.key_hit and not o.old_hit),
        stale=count(("correction",), lambda o: bool(o.old_hit)),
        expired_retrieved=Ratio(sum(1 for o in expired if o.key_hit), len(expired)),
        noise_retrieved=count(("noise",), lambda o: o.key_hit),
        items=tuple(outcomes),
    )


def raw_messages(conversation: Conversation) -> list[str]:
    """The baseline's corpus: every message of every session, user and assistant."""
    return [turn.content for turn in conversation.turns()]


def memory_lines(files_text: Sequence[str], *, exclude: str = "") -> list[str]:
    """nanomem's corpus for the same retriever: the lines of the memory files.

    Headings, blank lines and lines of ``exclude`` (the template the replay started from)
    are left out.

    >>> memory_lines(["# User\\nIntro.\\n\\n- Allergic to penicillin <!-- permanent -->"], exclude="Intro.")
    ['- Allergic to penicillin']
    """
    skip = {line.strip() for line in exclude.splitlines()}
    lines = []
    for text in files_text:
        for line in strip_marks(text).splitlines():
            stripped = line.strip()
            if stripped and not stripped.startswith("#") and stripped not in skip:
                lines.append(stripped)
    return lines
