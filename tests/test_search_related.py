"""Related words (WordNet): a general word finds a specific one, never ahead of an exact match."""

from __future__ import annotations

import gzip
import logging
import sqlite3
from pathlib import Path

import pytest

from nanomem.memory import Memory
from nanomem.search import related, wordnet
from nanomem.search.index import SCHEMA_VERSION
from tests.search_fixtures import fixed_clock, mem, say  # noqa: F401 (a fixture)


def _filler(n: int) -> list[str]:
    return [f"filler number {i} about the weather" for i in range(n)]


def test_related_words_find_a_turn_by_a_more_general_word(mem: Memory) -> None:
    say(mem, ["a badger dug up every single one of his leeks in one night"], key="a")
    say(mem, _filler(6), key="b")

    hits = mem.search("What creature got into the vegetable plot?", k=3)

    assert hits and hits[0].text.startswith("a badger dug up")


def test_related_words_match_inflected_forms(mem: Memory) -> None:
    say(mem, ["she adopted two greyhounds last spring"], key="a")
    say(mem, _filler(6), key="b")

    hits = mem.search("dog", k=3)

    assert [h.text for h in hits][:1] == ["she adopted two greyhounds last spring"]


def test_related_match_never_outranks_an_exact_match(mem: Memory) -> None:
    say(mem, ["a badger ate all the lettuce"], key="a")
    say(mem, ["some creature ate all the lettuce"], key="b")
    say(mem, _filler(6), key="c")

    hits = mem.search("creature", k=3)

    assert [h.text for h in hits][:2] == ["some creature ate all the lettuce",
                                          "a badger ate all the lettuce"]
    assert hits[0].score > hits[1].score


def test_a_search_without_related_words_ranks_as_before(mem: Memory) -> None:
    say(mem, ["the kayak is in the garage", "the canoe is at the lake"], key="a")

    assert related.render_related("kayak zzqx") != ""  # kayak is known, zzqx is not
    assert [h.text for h in mem.search("zzqx kayak", k=1)] == ["the kayak is in the garage"]


def test_related_words_list_is_the_one_the_schema_version_was_set_for() -> None:
    # The related table deletes a document by its words: an index built from another list must
    # be rebuilt, which a new SCHEMA_VERSION does. A new list needs a new DATA_DIGEST and version.
    assert related.data_digest() == related.DATA_DIGEST


def test_index_of_the_previous_schema_is_rebuilt_with_related_words(
        mem: Memory, caplog: pytest.LogCaptureFixture) -> None:
    say(mem, ["a badger dug up the leeks"])
    mem.search("leeks")
    mem.close()
    with sqlite3.connect(mem.workspace.index) as db:
        db.execute("PRAGMA user_version=5")
    db.close()

    with caplog.at_level(logging.WARNING):
        again = Memory(mem.workspace.root, clock=fixed_clock)
        hits = again.search("vegetable")
        again.close()

    assert [h.text for h in hits] == ["a badger dug up the leeks"]
    assert f"schema version 5, expected {SCHEMA_VERSION}" in caplog.text


def test_a_changed_memory_file_line_leaves_no_related_words_behind(mem: Memory) -> None:
    mem.workspace.user.write_text("# User\n- Owns a greyhound\n", "utf-8")
    assert [h.text for h in mem.search("dog", sources=["file"])] == ["- Owns a greyhound"]

    mem.workspace.user.write_text("# User\n- Owns a parrot\n", "utf-8")

    assert mem.search("dog", sources=["file"]) == []
    assert [h.text for h in mem.search("bird", sources=["file"])] == ["- Owns a parrot"]


def _mini_wordnet(root: Path) -> Path:
    """A WordNet database of one chain, entity → … → animal (creature) → mammal → badger."""
    chain = [("entity",), ("thing",), ("object",), ("living",), ("organism",),
             ("animal", "creature"), ("mammal",), ("badger",)]
    data, index = [" licence header line"], []
    for n, words in enumerate(chain, start=1):
        up = f"001 @ {n - 1:08d} n 0000" if n > 1 else "000"
        data.append(f"{n:08d} 05 n {len(words):02x} " + " ".join(f"{w} 0" for w in words)
                    + f" {up} | gloss")
        index += [f"{w} n 1 1 @ 1 0 {n:08d}" for w in words]
    root.mkdir()
    (root / "data.noun").write_text("\n".join(data) + "\n", encoding="latin-1")
    (root / "index.noun").write_text("\n".join(sorted(index)) + "\n", encoding="latin-1")
    (root / "cntlist.rev").write_text("".join(f"{w}%1:05:00:: 1 3\n" for w in
                                              ("animal", "creature", "mammal", "badger")))
    (root / "noun.exc").write_text("badgeri badger\nentiti entity\n")
    for name in ("data.verb", "index.verb", "verb.exc", "adj.exc"):
        (root / name).write_text("")
    return root


def test_wordnet_build_lists_synonyms_and_hypernyms_below_the_general_top(tmp_path: Path) -> None:
    lines = wordnet.build(_mini_wordnet(tmp_path / "wn"))

    assert lines == [wordnet.NOTICE, "animal\tcreature", "badger\tanimal creature mammal",
                     "creature\tanimal", "mammal\tanimal creature", "badgeri\t=badger"]


def test_wordnet_main_writes_the_same_bytes_for_the_same_database(tmp_path: Path) -> None:
    root = _mini_wordnet(tmp_path / "wn")
    first, second = tmp_path / "a.tsv.gz", tmp_path / "b.tsv.gz"

    assert wordnet.main(["--wordnet", str(root), "--out", str(first)]) == 0
    assert wordnet.main(["--wordnet", str(root), "--out", str(second)]) == 0

    assert first.read_bytes() == second.read_bytes()
    assert gzip.decompress(first.read_bytes()).decode("utf-8").splitlines()[2] == (
        "badger\tanimal creature mammal")
