"""Build ``nanomem/search/data/related-words.tsv.gz`` (and, since stop 34,
``inflections.tsv.gz``) from Princeton WordNet 3.0.

A maintainer's tool, never run by the library (which only reads the files it writes):

    apt-get install wordnet-base          # Debian's WordNet 3.0 database, /usr/share/wordnet
    python -m nanomem.search.wordnet [--wordnet /usr/share/wordnet]

The second file (:mod:`nanomem.search.inflect`) lists WordNet's irregular forms
(``noun.exc``, ``verb.exc``, ``adj.exc``) that the index's Porter stemmer does not bring to
their base (``caught`` / ``catch``, ``heaviest`` / ``heavy``, ``teeth`` / ``tooth``), one base a
line, ``pos<TAB>base<TAB>form form``. The search reads it for queries only, so a new one needs no new
schema version.

A new file needs a new ``DATA_DIGEST`` in :mod:`nanomem.search.related` and a new
``SCHEMA_VERSION`` in :mod:`nanomem.search.index` (an index built from the old list is rebuilt).

The file is a lexical-semantic bridge for search (:mod:`nanomem.search.related`): for each
English noun and verb, the words of its commonest senses (synonyms) and of their more general
senses up to a few levels (hypernyms: ``greyhound`` -> ``hound``, ``dog``, ``canine``), so a
question in general words ("what breed is his dog?") finds a turn in specific ones ("a retired
racing greyhound"). Nothing in it is fitted to nanomem's benchmark: the rules below are
WordNet's own structure and SemCor tag counts (``cntlist.rev``) only.

- **Keys**: every single-word noun and verb lemma (lower case), and every irregular form of
  ``noun.exc`` / ``verb.exc`` whose base is a key, written ``form<TAB>=base``.
- **Senses**: a lemma found in SemCor keeps its senses tagged at least a quarter as often as
  its commonest one (3 at most); a lemma never tagged keeps its first 2 senses.
- **Related words**: the single-word lemmas (and the head word of a compound noun:
  ``hunting_dog`` -> ``dog``) of each kept sense and of its hypernyms up to ``LEVELS`` levels
  above, leaving out senses too general to mean anything (a noun within ``NOUN_TOP`` steps of
  ``entity``, a verb at the top of its tree), and words that SemCor never tags (nobody asks
  for a ``musteline``).

Output lines are sorted; the file is gzip'd with a fixed mtime, so the same WordNet gives the
same bytes.
"""

from __future__ import annotations

import argparse
import gzip
import io
import logging
import re
import sqlite3
from collections import defaultdict
from pathlib import Path

from nanomem.search import terms
from nanomem.search.terms import STOP_WORDS

logger = logging.getLogger(__name__)

LEVELS = {"n": 8, "v": 2}
NOUN_TOP = 5  # noun senses fewer than this many hypernym steps below "entity" are too general
VERB_TOP = 1  # verb senses at the top of their tree ("move", "change", "be") are too general
MAX_TAGGED, SHARE, MAX_UNTAGGED = 3, 0.25, 2
_WORD = re.compile(r"^[a-z]+$")
INFLECTIONS_NOTICE = ("# Irregular inflections from Princeton WordNet 3.0's exception lists "
                      "(WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved.), "
                      "licence in nanomem/search/data/WORDNET-LICENSE; built by python -m nanomem.search.wordnet")
NOTICE = ("# Related words from Princeton WordNet 3.0 (WordNet 3.0 Copyright 2006 by Princeton "
          "University. All rights reserved.), licence in nanomem/search/data/WORDNET-LICENSE; "
          "built by python -m nanomem.search.wordnet")


def read_data(root: Path, pos: str) -> tuple[dict[str, list[str]], dict[str, list[str]], dict[str, list[tuple[str, str]]]]:
    """Synset offset -> lemmas, -> hypernym offsets, -> (lemma, sense key) of each word."""
    lemmas: dict[str, list[str]] = {}
    hypers: dict[str, list[str]] = {}
    keys: dict[str, list[tuple[str, str]]] = {}
    name = {"n": "noun", "v": "verb"}[pos]
    for line in (root / f"data.{name}").read_text(encoding="latin-1").splitlines():
        if line.startswith(" "):
            continue
        fields = line.split(" | ")[0].split()
        offset, lexfile = fields[0], fields[1]
        count = int(fields[3], 16)
        words = [(fields[4 + 2 * i], fields[5 + 2 * i]) for i in range(count)]
        rest = fields[4 + 2 * count:]
        pointers = int(rest[0])
        ups = []
        for i in range(pointers):
            symbol, target, target_pos = rest[1 + 4 * i:4 + 4 * i]
            if symbol in ("@", "@i") and target_pos == pos:
                ups.append(target)
        lemmas[offset] = [w.lower() for w, _ in words]
        hypers[offset] = ups
        ss = "1" if pos == "n" else "2"
        keys[offset] = [(re.sub(r"\(.*\)$", "", w).lower(),
                         f"{re.sub(r'[(].*[)]$', '', w).lower()}%{ss}:{lexfile}:{int(lex, 16):02d}::")
                        for w, lex in words]
    return lemmas, hypers, keys


def read_index(root: Path, pos: str) -> dict[str, list[str]]:
    """Lemma -> its synset offsets, commonest sense first."""
    name = {"n": "noun", "v": "verb"}[pos]
    found: dict[str, list[str]] = {}
    for line in (root / f"index.{name}").read_text(encoding="latin-1").splitlines():
        if line.startswith(" "):
            continue
        fields = line.split()
        lemma, count = fields[0], int(fields[2])
        found[lemma] = fields[-count:]
    return found


def read_counts(root: Path) -> dict[str, int]:
    counts: dict[str, int] = {}
    for line in (root / "cntlist.rev").read_text(encoding="latin-1").splitlines():
        key, _, tagged = line.split()
        counts[key] = int(tagged)
    return counts


def plan_depths(hypers: dict[str, list[str]]) -> dict[str, int]:
    """Fewest hypernym steps from each synset up to a root."""
    depth: dict[str, int] = {}

    def walk(offset: str, seen: frozenset[str]) -> int:
        if offset in depth:
            return depth[offset]
        ups = [u for u in hypers.get(offset, []) if u not in seen]
        value = 0 if not ups else 1 + min(walk(u, seen | {offset}) for u in ups)
        depth[offset] = value
        return value

    for offset in hypers:
        walk(offset, frozenset())
    return depth


def plan_words(lemmas: list[str], pos: str) -> list[str]:
    out = []
    for lemma in lemmas:
        parts = re.sub(r"\(.*\)$", "", lemma).split("_")
        if len(parts) == 1:
            out.append(parts[0])
        elif pos == "n":
            out.append(parts[-1])  # the head of a compound noun: hunting_dog -> dog
    return out


def build(root: Path) -> list[str]:
    counts = read_counts(root)
    common = {key.split("%")[0].lower() for key, n in counts.items() if n > 0}
    related: dict[str, set[str]] = defaultdict(set)
    for pos in ("n", "v"):
        lemmas, hypers, keys = read_data(root, pos)
        depth = plan_depths(hypers)
        top = NOUN_TOP if pos == "n" else VERB_TOP
        for lemma, offsets in read_index(root, pos).items():
            if not _WORD.match(lemma):
                continue
            tagged = [(counts.get(dict(keys[o]).get(lemma, ""), 0), o) for o in offsets]
            best = max(n for n, _ in tagged)
            if best > 0:
                kept = [o for n, o in tagged if n >= max(1, SHARE * best)][:MAX_TAGGED]
            else:
                kept = offsets[:MAX_UNTAGGED]
            words = related[lemma]
            for offset in kept:
                level, frontier = 0, [offset]
                while frontier and level <= LEVELS[pos]:
                    nxt = []
                    for synset in frontier:
                        if depth.get(synset, 0) < top:
                            continue
                        words.update(plan_words(lemmas[synset], pos))
                        nxt.extend(hypers.get(synset, []))
                    frontier, level = nxt, level + 1
    lines = [NOTICE]
    for lemma in sorted(related):
        kept = sorted(w for w in related[lemma] if w != lemma and w in common
                      and w not in STOP_WORDS and _WORD.match(w))
        if kept:
            lines.append(f"{lemma}\t{' '.join(kept)}")
    bases = {line.split("\t")[0] for line in lines[1:]}
    aliases: dict[str, str] = {}
    for name in ("noun", "verb"):
        for line in (root / f"{name}.exc").read_text(encoding="latin-1").splitlines():
            form, *base = line.split()
            if _WORD.match(form) and form not in bases and base and base[0] in bases:
                aliases.setdefault(form, base[0])
    lines.extend(f"{form}\t={base}" for form, base in sorted(aliases.items()))
    return lines


def read_stems(words: set[str]) -> dict[str, str]:
    """Each word's Porter stem, as the index's tokenizer makes it (SQLite FTS5, in memory)."""
    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE VIRTUAL TABLE t USING fts5(w, tokenize='{terms.TOKENIZER}')")
    db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
    ordered = sorted(words)
    db.executemany("INSERT INTO t(rowid, w) VALUES (?, ?)", list(enumerate(ordered, start=1)))
    stems = {ordered[rowid - 1]: term for term, rowid in db.execute("SELECT term, doc FROM v")}
    db.close()
    return stems


def build_inflections(root: Path) -> list[str]:
    """Lines ``pos<TAB>base<TAB>forms`` (``n``, ``v`` or ``a``) from WordNet's exception lists:
    the irregular forms of single words whose Porter stem differs from their base's (``caught``
    / ``catch``; not ``abided``), neither stemmed as a stop word is (``ate`` is indexed as ``at``)."""
    pairs: set[tuple[str, str, str]] = set()
    for pos, name in (("n", "noun"), ("v", "verb"), ("a", "adj")):
        for line in (root / f"{name}.exc").read_text(encoding="latin-1").splitlines():
            form, *bases = line.split()
            pairs.update((pos, base, form) for base in bases
                         if _WORD.match(form) and _WORD.match(base) and form != base)
    stems = read_stems({word for _, base, form in pairs for word in (base, form)} | STOP_WORDS)
    stopped = {stems.get(word) for word in STOP_WORDS}
    forms: dict[tuple[str, str], set[str]] = defaultdict(set)
    for pos, base, form in pairs:
        if stems.get(base) != stems.get(form) and not {stems.get(base), stems.get(form)} & stopped:
            forms[(pos, base)].add(form)
    return [INFLECTIONS_NOTICE] + [f"{pos}\t{base}\t{' '.join(sorted(forms[(pos, base)]))}"
                                   for pos, base in sorted(forms)]


def render_file(lines: list[str]) -> bytes:
    """The gzip'd file of ``lines`` (pure: a fixed mtime, so the same lines give the same bytes)."""
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0, compresslevel=9) as handle:
        handle.write(("\n".join(lines) + "\n").encode("utf-8"))
    return buffer.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m nanomem.search.wordnet",
                                     description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--wordnet", type=Path, default=Path("/usr/share/wordnet"))
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "data"
                        / "related-words.tsv.gz")
    parser.add_argument("--inflections-out", type=Path,
                        help="where to write inflections.tsv.gz (default: beside --out)")
    args = parser.parse_args(argv)
    args.inflections_out = args.inflections_out or args.out.parent / "inflections.tsv.gz"
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    for out, lines in ((args.out, build(args.wordnet)),
                       (args.inflections_out, build_inflections(args.wordnet))):
        written = render_file(lines)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(written)
        logger.info("%s: %d keys, %s bytes", out, len(lines) - 1, f"{len(written):,}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
