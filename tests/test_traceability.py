"""Traceability and the text units it reads: which tokens of new lines no known text holds.

The gate's accepted and refused cases live in tests/test_gates.py (check_traceability); these
tests pin the pure function the gate calls and the docstring examples of both modules.
"""

from __future__ import annotations

from nanomem.dream.gates.traceability import find_untraced

KNOWN = ["- [durable] Contract KX-7731 with Acme GmbH, budget $4,500, due 2026-12-15"]


def test_find_untraced_lists_each_unknown_token_once_in_first_seen_order() -> None:
    lines = ["- Bob owes 5,000 to Zorblax", "- Zorblax and Bob: KX-7713"]
    assert find_untraced(lines, KNOWN) == ["Bob", "5,000", "Zorblax", "KX-7713"]


def test_find_untraced_accepts_tokens_known_in_any_text() -> None:
    known = [*KNOWN, "- Project Orion, ticket 88123"]
    assert find_untraced(["- Orion (ticket 88123) for Acme, $4,500"], known) == []


def test_find_untraced_reports_everything_when_nothing_is_known() -> None:
    assert find_untraced(["- Budget 4500 for Acme"], []) == ["4500", "Acme"]


def test_find_untraced_checks_a_name_after_a_title_or_an_initial() -> None:
    # Names that look like verb forms ("Jennings", "Reeves") pass at a sentence start; after a
    # title or an initial they are no sentence start, so they are checked.
    known = ["- [durable] Contract KX-7731; Dr. Ng and J. Ortiz met us"]
    lines = ["- Dr. Jennings signed KX-7731.", "- J. Reeves agreed."]
    assert find_untraced(lines, known) == ["Jennings", "Reeves"]


def test_traceability_and_textunits_docstring_examples_hold() -> None:
    import doctest

    import nanomem.text.units
    import nanomem.dream.gates.traceability

    traced = doctest.testmod(nanomem.dream.gates.traceability)
    units = doctest.testmod(nanomem.text.units)
    assert traced.attempted >= 3 and traced.failed == 0
    assert units.attempted >= 5 and units.failed == 0
