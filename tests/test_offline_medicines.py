"""Medicines named by their class's stem: one list (engines/offline/medicines.py) serves the health
rule and the ``drug`` slot, so a change of medicine replaces the old one for every stem the health
rule knows (before session 32 the slot's own copy lacked six of them)."""

from __future__ import annotations

import pytest

from nanomem.engines.offline import slots


@pytest.mark.parametrize(
    ("line", "correction", "new_line"),
    [
        ("- I take linagliptin for my diabetes.", "Actually the doctor switched me to sitagliptin.",
         "- I take sitagliptin for my diabetes."),
        ("- Morning tablet: levothyroxine.", "Correction: the morning tablet is dextrothyroxine.",
         "- Morning tablet: dextrothyroxine."),
        ("- For gout I'm on allopurinol.", "Scratch that, it's oxipurinol for the gout now.",
         "- For gout I'm on oxipurinol."),
        ("- Antibiotic this week: ciprofloxacin.", "They changed the antibiotic to levofloxacin.",
         "- Antibiotic this week: levofloxacin."),
        ("- Asthma: montelukast at night.", "The asthma nurse moved me to zafirlukast.",
         "- Asthma: zafirlukast at night."),
        ("- Heartburn tablets: famotidine.", "Update: the heartburn tablets are nizatidine now.",
         "- Heartburn tablets: nizatidine."),
    ],
)
def test_a_changed_medicine_replaces_the_old_one_by_its_stem(line: str, correction: str, new_line: str) -> None:
    assert slots.same_slot(correction, line)
    assert slots.substitute_value(correction, line) == new_line


def test_april_is_no_medicine() -> None:
    assert not slots.values_of("We fly out in April")["drug"]
