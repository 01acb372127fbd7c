"""Redaction on hostile input: long strings built to make a pattern backtrack.

Each string repeats what a rule starts on (a cue, a prefix, a header) or what it scans (a run of
its own characters) to 64 KB. A pattern that backtracks catastrophically, or a rule that is
quadratic in its matches, would not finish; these tests check what a user sees (what is
redacted, that redacting again finds nothing, that the fast path agrees with the full scan).
The time each takes is printed by ``benchmarks/redact.py`` (its hostile cases), never asserted.
"""

from __future__ import annotations

import pytest

from nanomem.text.redact import find_secrets, redact

SIZE = 64_000


def fill(unit: str) -> str:
    return unit * (SIZE // len(unit) + 1)


# (text, the kinds found and how many, or None when only idempotence is checked)
HOSTILE: dict[str, tuple[str, dict[str, int] | None]] = {
    "BEGIN lines, no END": (fill("-----BEGIN PRIVATE KEY-----!"), {"private-key": SIZE // 28 + 1}),
    "pw: repeated": (fill("pw:"), None),
    "密码： repeated": (fill("密码："), None),
    "AccountKey= repeated": (fill("AccountKey="), None),
    "PGPASSWORD= repeated": (fill("PGPASSWORD="), None),
    "cue and token repeated": (fill("pw Abc12d "), {"password": SIZE // 10 + 1}),
    "slip and word-digits repeated": (fill("oops Marmalade1952 "), {"password": SIZE // 19 + 1}),
    "slip cue without token": (fill("wrong window "), {}),
    "card groups without end": (fill("4111 "), {}),
    "one digit": (fill("4"), {}),
    "Bearer repeated": (fill("Authorization: Bearer "), None),
    "GitLab token, endless dotted suffix": ("glpat-1" + "a" * 24 + fill(".a"), {"gitlab-token": 1}),
    "eyJ parts repeated": (fill("eyJaaaaa."), None),
    "scheme user repeated": (fill("a://b:"), None),
    "Telegram ids repeated": (fill("12345678:AA"), {}),
    "symbols then a password": ("x " + "!" * SIZE + " Ab1!cd9x", {"password": 1}),
    "letters then a slip": ("Marmalade" * (SIZE // 9) + "1952 oops", {}),
    "word-built passwords in a sentence repeated": (fill("use Summer2024! for "), {"password": SIZE // 20 + 1}),
    "capital and letters-digits run, then a symbol": ("use A" + "b1" * SIZE + "# ok", {}),
    "number signs after capitals repeated": (fill("is Abcd#2024 "), {"password": SIZE // 13 + 1}),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_redact_finishes_on_hostile_input_and_finds_what_is_there(name: str) -> None:
    text, expected = HOSTILE[name]
    found = find_secrets(text)
    assert found == find_secrets(text, prefilter=False)
    if expected is not None:
        counts: dict[str, int] = {}
        for match in found:
            counts[match.kind] = counts.get(match.kind, 0) + 1
        assert counts == expected
    assert redact(redact(text).text).total == 0


def test_find_secrets_keeps_many_matches_in_text_order_without_overlaps() -> None:
    text = fill("oops Marmalade1952 and 4111 1111 1111 1111 ")
    found = find_secrets(text)
    assert len(found) > 2_000
    assert all(a.end <= b.start for a, b in zip(found, found[1:]))
    assert {m.kind for m in found} == {"password", "card-number"}
