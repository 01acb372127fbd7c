"""How text becomes search terms, for the index and for queries alike (pure).

SQLite's ``unicode61`` tokenizer splits on spaces and punctuation, so a run of Chinese
characters would be one long token and ``北京`` would never match ``我下周去北京出差``. Each text is
therefore indexed in three columns:

- ``latin``: the text with CJK runs blanked out, tokenised by SQLite (``porter unicode61
  remove_diacritics 2``: case-folded, accents folded, English stems);
- ``cjk``: every CJK run written as its overlapping character pairs, followed by the run's last
  character, so every character starts a pair or ends a run;
- ``cjk1``: every CJK character on its own (weighted below a pair, ``index.UNIGRAM_WEIGHT``),
  so that "前天考的，一把过" is found for 考试过了吗 although the two share no pair: unigrams
  and bigrams together, the usual indexing of Chinese text without a word segmenter.

A query is cut the same way: Latin words (minus common stop words) and CJK character pairs
become quoted FTS5 terms joined by ``OR``, and BM25 ranks the matches. A single CJK character
is a prefix term (``"猫"*``), which matches every pair it starts and every run it ends. A
query's CJK runs are first cut at Chinese question words and particles
(:data:`QUERY_STOPS_ZH`), and the characters of what is left are also searched in ``cjk1``
(:func:`plan_cjk_chars`).

>>> render_cjk_terms("我下周去北京。")
'我下 下周 周去 去北 北京 京'
>>> plan_match("When did Ana visit 北京?")
'{latin cjk} : ("ana" OR "visit" OR "北京")'
>>> plan_match("the and of") is not None
True
>>> plan_match("...") is None
True
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

# The FTS5 tokenizer of every Latin column: the index, the related-words table and the stems the
# inflections list is built against must all tokenise alike
TOKENIZER = "porter unicode61 remove_diacritics 2"
CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+")
_WORD = re.compile(r"\w+")

STOP_WORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself yourselves
    tell know remember said say says mention mentioned ever
    s t d ll m re ve""".split()
)


def normalise(text: str) -> str:
    """NFKC and lower case: full-width letters and digits become plain ones.

    >>> normalise("ＫＸ－７７３１ Café")
    'kx-7731 café'
    """
    return unicodedata.normalize("NFKC", text).lower()


def render_latin(text: str) -> str:
    """The text of the ``latin`` column: CJK runs replaced by a space.

    >>> render_latin("Meet 王伟 at 10")
    'meet   at 10'
    """
    return CJK_RUN.sub(" ", normalise(text))


def plan_latin_words(text: str) -> list[str]:
    """The Latin words of a text, lower case, in order (pure).

    >>> plan_latin_words("Ana's 北京 trip")
    ['ana', 's', 'trip']
    """
    return [w for w in _WORD.findall(render_latin(text)) if w != "_"]


def render_cjk_terms(text: str) -> str:
    """The text of the ``cjk`` column: pairs of each CJK run, then the run's last character."""
    out: list[str] = []
    for run in CJK_RUN.findall(normalise(text)):
        out.extend(run[i:i + 2] for i in range(len(run) - 1))
        out.append(run[-1])
    return " ".join(out)


# Chinese words a question is asked with, not about: interrogatives (什么时候 before 什么, and
# 哪一天 before 哪), and the structural and sentence-final particles. A question's CJK run is
# cut at each of them before it is paired: "晓棠的路考是几号" is searched as 晓棠, 路考 and 号,
# not as 棠的, 的路, 的是, 是几, 几号, which match every other turn and every question asked
# back ("六周是哪天啊？"). Only queries are cut; the indexed text keeps every pair.
QUERY_STOPS_ZH = (
    "为什么", "什么时候", "什么", "怎么样", "怎么", "怎样", "哪一天", "哪一年", "哪一个",
    "哪儿", "哪里", "哪个", "哪些", "哪天", "哪年", "哪", "谁", "多少", "几", "啥", "何时",
    "吗", "呢", "吧", "啊", "呀", "的", "了", "是")
_QUERY_STOP = re.compile("|".join(QUERY_STOPS_ZH))


def plan_cjk_fragments(run: str) -> list[str]:
    """A query's CJK run cut at :data:`QUERY_STOPS_ZH`; the whole run when nothing is left (pure).

    >>> plan_cjk_fragments("晓棠的路考一开始排的是几号")
    ['晓棠', '路考一开始排', '号']
    >>> plan_cjk_fragments("是什么")
    ['是什么']
    """
    return [part for part in _QUERY_STOP.split(run) if part] or [run]


def render_cjk_chars(text: str) -> str:
    """The text of the ``cjk1`` column: every CJK character of the text, in order.

    >>> render_cjk_chars("我下周去北京。ok")
    '我 下 周 去 北 京'
    """
    return " ".join(ch for run in CJK_RUN.findall(normalise(text)) for ch in run)


def plan_cjk_chars(query: str) -> list[str]:
    """The single CJK characters of a query's fragments (see :func:`plan_cjk_fragments`),
    quoted, without repeats (pure).

    >>> plan_cjk_chars("晓棠的路考是几号")
    ['"晓"', '"棠"', '"路"', '"考"', '"号"']
    """
    text = normalise(query)
    chars = [ch for whole in CJK_RUN.findall(text) for part in plan_cjk_fragments(whole) for ch in part]
    return list(dict.fromkeys(_quote(ch) for ch in chars))


def plan_terms(query: str) -> list[str]:
    """The FTS5 terms of a query, in order and without repeats (pure).

    >>> plan_terms("Where does she work now? 她在哪里工作")
    ['"work"', '"她在"', '"工作"']
    >>> plan_terms("猫")
    ['"猫"*']
    """
    text = normalise(query)
    words = [w for w in _WORD.findall(CJK_RUN.sub(" ", text)) if w != "_"]
    kept = [w for w in words if w not in STOP_WORDS] or words
    terms = [_quote(w) for w in kept]
    for run in (part for whole in CJK_RUN.findall(text) for part in plan_cjk_fragments(whole)):
        if len(run) == 1:
            terms.append(_quote(run) + "*")
        else:
            terms.extend(_quote(run[i:i + 2]) for i in range(len(run) - 1))
    return list(dict.fromkeys(terms))


def plan_words(query: str) -> list[str]:
    """The words of a query as plain text (what :func:`plan_terms` quotes), for snippets.

    >>> plan_words("When did Ana visit 北京?")
    ['ana', 'visit', '北京']
    """
    return [t.rstrip("*")[1:-1].replace('""', '"') for t in plan_terms(query)]


def plan_match(query: str, columns: Sequence[str] = ("latin", "cjk")) -> str | None:
    """The FTS5 ``MATCH`` expression of a query over ``columns``, or ``None`` when the query
    has no searchable term."""
    terms = plan_terms(query)
    if not terms:
        return None
    return "{" + " ".join(columns) + "} : (" + " OR ".join(terms) + ")"


def _quote(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'
