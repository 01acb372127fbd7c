"""A correction changes the part of a line that holds the old value, not the whole line (pure).

Until round 9 the offline Dream replaced a corrected line with the correction's sentence, so the
other facts that shared the line went with it, silently: "Sister Ana lives in Porto, works as a
nurse, and has two kids" corrected by "Ana moved to Lisbon" lost the job and the children. Here
the line is written anew so that its other details survive (in Chinese: its numbers and 《titles》):

1. **Nothing else goes**: when what the corrected text lacks of the old line is the old value
   (a value of a type the correction gives anew) and words of the clause that held it, no other
   value and no other clause, the corrected text is written as it is (the rule before round 9:
   "I moved to Linz." for "I live in Graz.").
2. **The value is swapped in place**: when, for each type the correction gives anew, the old line
   holds exactly one old value of that type, written once, it is replaced by the new one
   (identifiers only within their family), provided the correction says nothing else the line
   lacks but words of change ("moved", "now", "rebooked" …): "The standup is at 09:15 in room
   B4, led by Kim" + "The standup moved to 09:45" = "The standup is at 09:45 in room B4, led by
   Kim".
3. **The other clauses are kept**: else the line is cut into clauses (:mod:`nanomem.text.clauses`:
   at ``,`` but not inside a number, ``;``, ``and``/``but``, the end of a sentence, a bracket); the
   clause that holds the old value (the one sharing most words with the correction) goes, every
   other clause that holds a detail the corrected text lacks is kept after it in brackets: "From June we shut at 21:30 on weekdays (23:00 on Saturdays)".
   Not when the correction puts a new thing in place of the old one ("We're in a new flat on
   Bath Street" for "My flat is on Mill Lane, up three flights"; ``new``, ``replaced``,
   ``swapped``, 新的, 换成): the other clauses spoke of the old thing, and the whole line is
   replaced as before round 9 (the ledger and the commit keep the old line).
   A detail in the clause of the old value goes with it ("Train ICE 578 leaves at 09:12"
   rebooked to ICE 592: 09:12 was the old train's time) unless the value could be swapped in
   place (2.).

Every word written comes from the batch or from the old line.

>>> plan_corrected_line("Ana moved to Lisbon.", "Sister Ana lives in Porto, works as a nurse, and has two kids.")
'Sister Ana lives in Lisbon, works as a nurse, and has two kids.'
>>> plan_corrected_line("From June we shut at 21:30 on weekdays.", "We close at 22:00 on weekdays and 23:00 on Saturdays")
'From June we shut at 21:30 on weekdays (23:00 on Saturdays).'
>>> plan_corrected_line("I moved to Porto last month.", "Lives in Lisbon")
'I moved to Porto last month.'
"""

from __future__ import annotations

import re
import unicodedata

from nanomem.text.overlap import distinctive, tokens
from nanomem.engines.offline.slots import value_spans, values_of
from nanomem.text.clauses import GLUE, names_new_thing, split_clauses
from nanomem.vocab import HAN_CHAR

# Words that only say that something changed: a correction may hold them beside the new value
# and still have nothing to add to the old line's context.
CHANGE_WORDS = frozenset(
    "now actually moved move changed change switched switch pushed raised lowered rescheduled "
    "postponed brought updated update new newly instead anymore longer rebooked reissued renewed "
    "swapped replaced put got went rose fell jumped dropped increased reduced extended "
    "correction sorry oops wrong mistake turns turned out".split())
_TITLE = re.compile(r"《[^》]+》")
_BRACKETS = re.compile(r"[()（）]")
_END = re.compile(r"[.!?。！？]+$")
_KINDS = ("identifier", "date", "time", "weekday", "size", "drug", "number", "name")


def plan_corrected_line(corrected: str, old: str, *, named: str | None = None) -> str:
    """The text that replaces the line ``old`` (its body, no bullet or marks) when a correction
    is written ``corrected``: ``corrected`` itself, the old line with the value swapped, or
    ``corrected`` with the old line's other clauses (see the module doc). ``named`` is the old
    value the correction itself names ("from 40 to 55", "C9 is being resurfaced"), if any."""
    old = old.strip()
    lost, stale, clauses, separators, replaced = _analyse(corrected, old, named)
    others = frozenset().union(*(_details(c) for i, c in enumerate(clauses) if i != replaced))
    leftover = lost - _tokens_of(stale)
    if not leftover & others and not any(_is_value(token, old) for token in leftover):
        return corrected  # only the old value and the words of its own clause go
    swapped = _swap(corrected, old, stale)
    if swapped is not None:
        return swapped
    if names_new_thing(corrected):
        # a new flat, a new partner: the other clauses described the old one, except a clause
        # with an identifier of its own (session 24: "the account number is WL-55082" outlives the rep)
        own = [i for i, c in enumerate(clauses) if i != replaced and values_of(c)["identifier"]
               and not values_of(c)["identifier"] & values_of(corrected)["identifier"] and not _holds_stale(c, stale)]
        return _with(corrected, _joined(clauses, separators, own)) if own and replaced is not None else corrected
    # round 11: a clause that still holds an old value (not a name) goes too ("(booked for March 16)")
    kept = [i for i, c in enumerate(clauses) if i != replaced and _details(c) & lost and not _holds_stale(c, stale)]
    return _with(corrected, _joined(clauses, separators, kept)) if kept else corrected


def _analyse(corrected: str, old: str, named: str | None
             ) -> tuple[frozenset[str], list[tuple[str, str, str]], list[str], list[str], int | None]:
    """``(lost, stale, clauses, separators, replaced)``: the details of ``old`` that ``corrected``
    lacks, the old values it replaces (of several of a type, those in the replaced clause), the
    clauses of ``old`` with the separators between them, and the index of the replaced clause."""
    lost = _details(old) - _details(corrected)
    stale = _stale_values(corrected, old)
    if named and named.casefold() in old.casefold():
        stale.append(("named", named.casefold(), named))
    clauses, separators = split_clauses(old)
    replaced = _replaced_clause(clauses, corrected, stale)
    if replaced is not None:  # of several old values of a type, the one in the replaced clause
        inside = [v for v in stale if _contains(clauses[replaced], v[2])]
        stale = inside or stale
    return lost, stale, clauses, separators, replaced


def _tokens_of(values: list[tuple[str, str, str]]) -> frozenset[str]:
    return frozenset().union(*(tokens(raw) | {raw} for _, _, raw in values)) if values else frozenset()


def _details(text: str) -> frozenset[str]:
    """Content words and values; for a text with Han characters only its values (character
    pairs say too little of which clause holds what)."""
    if HAN_CHAR.search(text):
        latin = {w.casefold() for w in re.findall(r"[A-Za-z][A-Za-z'’-]+", text)}  # session 26: "accounts executive"
        return frozenset({t for t in tokens(text) if any(ch.isdigit() for ch in t)} | set(_TITLE.findall(text)) | latin)
    return tokens(text) | distinctive(text)


def _is_value(token: str, text: str) -> bool:
    return any(ch.isdigit() for ch in token) or token in distinctive(text) or token.startswith("《")


def _stale_values(corrected: str, old: str) -> list[tuple[str, str, str]]:
    """``(kind, normalised, raw)`` of the old line's values of each type that the correction
    gives anew, less those the correction repeats."""
    new, theirs = values_of(corrected), values_of(old)
    renewed = {kind for kind in _KINDS if new[kind] - theirs[kind]}
    said = _details(corrected)
    stale = [(kind, norm, raw) for kind, norm, raw in _raw_values(old)
             if kind in renewed and norm not in new[kind] and not tokens(raw) <= said]
    if set(_TITLE.findall(corrected)) - set(_TITLE.findall(old)):  # a new title in 《》
        stale += [("title", title, title) for title in _TITLE.findall(old) if title not in corrected]
    return stale


def _raw_values(text: str) -> list[tuple[str, str, str]]:
    text = unicodedata.normalize("NFKC", text)
    out = [(kind, norm, text[start:end]) for kind, norm, start, end in value_spans(text)]
    for name in values_of(text)["name"]:
        found = re.search(r"(?<![\w'’-])" + re.escape(name) + r"(?![\w'’-])", text, re.IGNORECASE)
        if found:
            out.append(("name", name, found.group(0)))
    return out


def _swap(corrected: str, old: str, stale: list[tuple[str, str, str]]) -> str | None:
    """``old`` with each old value replaced by the correction's new value of its type, or None
    when a type has more than one old or new value, a value is written twice, an identifier
    changes family, or the correction says something the swapped line lacks."""
    if not stale or unicodedata.normalize("NFKC", old) != old:
        return None
    typed = {raw for kind, _, raw in stale if kind != "named"}
    stale = [v for v in stale if v[0] != "named" or v[2] not in typed]  # round 11: one value, not two
    fresh = {kind: [(norm, raw) for k, norm, raw in _raw_values(corrected)
                    if k == kind and norm not in values_of(old)[kind]] for kind, _, _ in stale}
    out = old
    for kind, norm, raw in stale:
        if sum(1 for k, _, _ in stale if k == kind) != 1 or len(fresh[kind]) != 1:
            return None
        new_norm, new_raw = fresh[kind][0]
        if kind == "identifier" and new_norm.split(" ")[0] != norm.split(" ")[0]:
            return None
        # round 11: the value is bounded by Latin letters and digits, not by Han characters ("3栋")
        bounded = r"(?<![A-Za-z0-9_-])" + re.escape(raw) + r"(?![A-Za-z0-9_-])"
        if len(re.findall(bounded, out)) != 1:
            return None
        out = re.sub(bounded, lambda _m: new_raw, out, count=1)
    extra = {t for t in _details(corrected) - _details(out) if t not in CHANGE_WORDS}
    return None if extra else out


def _replaced_clause(clauses: list[str], corrected: str, stale: list[tuple[str, str, str]]) -> int | None:
    """The index of the clause that holds the old value: of the clauses holding one (or of all,
    when none does), the one that shares most details with the correction."""
    mine, stale_tokens = _details(corrected), _tokens_of(stale)
    # round 11: an old date, time, number or identifier tells the clause better than an old name does
    # (a correction told in a letter brings names of its own, "Dear Mr. Pettigrew")
    named = [raw for kind, _, raw in stale if kind == "named"]  # the old value the correction names
    holding = [i for i, c in enumerate(clauses) if any(raw.casefold() in c.casefold() for raw in named)]
    holding = holding or [i for i, c in enumerate(clauses) if _holds_stale(c, stale)]
    holding = holding or [i for i, c in enumerate(clauses) if any(raw.casefold() in c.casefold() for _, _, raw in stale)]
    holding = holding or list(range(len(clauses)))
    best = max(holding, key=lambda i: (len(_details(clauses[i]) & mine), -i), default=None)
    if best is None or (len(clauses) > 1 and not _details(clauses[best]) & (mine | stale_tokens)):
        return None
    return best


def _holds_stale(clause: str, stale: list[tuple[str, str, str]]) -> bool:
    """Whether ``clause`` holds one of the old values that is not a name."""
    return any(kind not in ("name", "named") and _contains(clause, raw) for kind, _, raw in stale)


def _contains(clause: str, raw: str) -> bool:
    """Whether ``clause`` holds the value ``raw`` whole: not the "1" of "1st" or of "£1,135", nor
    the "3" of "一个月3200" (Han characters bound a value like spaces)."""
    return re.search(r"(?<![A-Za-z0-9])" + re.escape(raw) + r"(?![A-Za-z0-9]|[.,]\d)", clause, re.I) is not None


def _joined(clauses: list[str], separators: list[str], kept: list[int]) -> str:
    """The kept clauses with the separators the old line had between neighbours, else ``; ``."""
    clauses = [_BRACKETS.sub("", c) for c in clauses]  # a line kept clauses before: flattened
    out = clauses[kept[0]].strip()
    for before, i in zip(kept, kept[1:]):
        near = i == before + 1 and GLUE.match(separators[i - 1])
        glue = separators[i - 1] if near else ("；" if HAN_CHAR.search(out) else "; ")
        out += glue + clauses[i].strip()
    return _END.sub("", out)


def _with(corrected: str, kept: str) -> str:
    """``corrected`` followed by ``kept`` in brackets, before its closing punctuation."""
    end = _END.search(corrected)
    body, stop = (corrected[:end.start()], end.group(0)) if end else (corrected, "")
    if HAN_CHAR.search(corrected):
        return f"{body}（{kept}）{stop}"
    return f"{body} ({kept}){stop}"
