"""Medicines named by the stem of their class, one list for the offline engine's rules (pure).

A person names a medicine by its own name far more often than by what it treats ("on warfarin",
"the ramipril", 改吃厄贝沙坦), and most names end in the stem their class shares: ``-farin``,
``-formin``, ``-pril``, ``-olol``, ``-statin``, ``-sartan`` … (the WHO's INN stems). Chinese
names write the same stems as sounds (沙坦 sartan, 地平 dipine, 他汀 statin, 双胍 the biguanides).
:mod:`~nanomem.engines.offline.extract` reads a line holding one as a health fact, and
:mod:`~nanomem.engines.offline.slots` as a value of kind ``drug``, so that "switched from
ramipril to losartan" replaces the old medicine; both take the stems from here.

>>> import re
>>> [bool(re.search(MEDICINE_EN, t, re.I)) for t in ("on Warfarin now", "in April", "levothyroxine")]
[True, False, True]
>>> [bool(re.search(MEDICINE_ZH, t)) for t in ("改吃厄贝沙坦了", "看地平线")]
[True, False]
"""

from __future__ import annotations

from nanomem.vocab import HAN_CLASS

__all__ = ["MEDICINE_EN", "MEDICINE_ZH"]

_STEMS_EN = (
    "farin", "formin", "pril", "olol", "statin", "prazole", "sartan", "dipine", "cillin", "mycin",
    "cycline", "oxetine", "azepam", "profen", "codone", "triptan", "thyroxine", "xaban", "gatran",
    "purinol", "floxacin", "gliptin", "lukast", "tidine",
)
# a word ending in a stem, at least two letters before it ("April" is a month, not a medicine)
MEDICINE_EN = r"\b(?!april\b)\w{2,}(?:" + "|".join(_STEMS_EN) + r")\b"
# the same stems as Chinese names write them (厄贝沙坦 irbesartan, 氨氯地平, 阿托伐他汀, 二甲双胍), and
# two common names without one
MEDICINE_ZH = HAN_CLASS + r"{1,4}(?:沙坦|地平(?!线)|普利|洛尔|他汀|拉唑|双胍|西林|沙星|列汀)|华法林|阿司匹林"
