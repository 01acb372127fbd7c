"""The stem of an English word: what its inflected forms share, so that they compare equal (pure).

A model that rewrites a memory line often changes only a word's inflection: "starts work" becomes
"began working", "loves hiking" becomes "loved hikes". The gate ``details``
(:mod:`nanomem.dream.gates.details`) compares a rewritten line's content words with the file
after the edit by their stems, so such a line keeps its words. Values (numbers, identifiers,
capitalised names) are never stemmed: they must stay exactly as they were.

:func:`stem` takes a casefolded word, as :func:`nanomem.text.overlap.tokens` gives it (its plural
``s`` may already be gone), and strips one inflection: a final ``s``, then ``-ing`` or ``-ed``
(when a stem of three letters with a vowel is left; only the ``d`` of "agreed"), then a final
``e``; an ``i`` left at the end
becomes ``y`` ("studied", "studies", "study"), and a doubled final consonant is single
("running", "run"). The irregular verbs and plurals of everyday English, a closed class, go to
their base first ("began" -> "begin", "children" -> "child"). The stem need not be a word
("move", "moved", "moving" -> ``mov``); only equality counts. A word of three letters or fewer,
or one holding anything but letters, is its own stem.

WordNet's suffix rules in :mod:`nanomem.search.related` are not reused: they list every base a
form may have, and choosing among them needs WordNet's word list, which is a file to read (no
pure module may) and a stage's data; one stem per word needs no list.

>>> [stem(w) for w in ("starts", "started", "starting", "start")]
['start', 'start', 'start', 'start']
>>> [stem(w) for w in ("moved", "moving", "move", "teache", "teaching", "taught")]
['mov', 'mov', 'mov', 'teach', 'teach', 'teach']
>>> [stem(w) for w in ("began", "beginning", "studied", "studie", "running", "children")]
['begin', 'begin', 'study', 'study', 'run', 'child']
>>> [stem(w) for w in ("need", "needed", "bring", "king", "4500", "kx-7731")]
['need', 'need', 'bring', 'king', '4500', 'kx-7731']
"""

from __future__ import annotations

from functools import lru_cache

# Irregular forms of everyday English verbs and nouns, "base: forms", a closed class. A form that
# is as common a word of its own ("bit", "lay", "ground", "rose") is left out.
_IRREGULAR_TABLE = """
arise: arose arisen; awake: awoke awoken; bear: bore borne born; beat: beaten; become: became;
begin: began begun; bend: bent; bite: bitten; bleed: bled; blow: blew blown; break: broke broken;
breed: bred; bring: brought; build: built; burn: burnt; buy: bought; catch: caught;
choose: chose chosen; come: came; creep: crept; deal: dealt; dig: dug; do: did done;
draw: drew drawn; dream: dreamt; drink: drank drunk; drive: drove driven; eat: ate eaten;
fall: fell fallen; feed: fed; feel: felt; fight: fought; find: found; flee: fled; fly: flew flown;
forbid: forbade forbidden; forget: forgot forgotten; forgive: forgave forgiven; freeze: froze frozen;
get: got gotten; give: gave given; go: went gone goes; grow: grew grown; hang: hung;
have: had; hear: heard; hide: hid hidden; hold: held; keep: kept; kneel: knelt; know: knew known;
lead: led; lean: leant; leave: left; lend: lent; lose: lost; make: made; mean: meant; meet: met;
pay: paid; ride: rode ridden; ring: rang rung; rise: risen; run: ran; say: said; see: saw seen;
seek: sought; sell: sold; send: sent; shake: shook shaken; shine: shone; shoot: shot; show: shown;
shrink: shrank shrunk; sing: sang sung; sink: sank sunk; sit: sat; sleep: slept; slide: slid;
speak: spoke spoken; spend: spent; spin: spun; spring: sprang sprung; stand: stood;
steal: stole stolen; stick: stuck; sting: stung; strike: struck; swear: swore sworn;
sweep: swept; swim: swam swum; swing: swung; take: took taken; teach: taught; tear: tore torn;
tell: told; think: thought; throw: threw thrown; understand: understood; wake: woke woken;
wear: wore worn; weep: wept; win: won; write: wrote written; withdraw: withdrew withdrawn;
child: children; foot: feet; goose: geese; man: men; mouse: mice; person: people; tooth: teeth;
woman: women; wife: wives; knife: knives; wolf: wolves
"""
IRREGULAR = {
    form: base
    for entry in _IRREGULAR_TABLE.replace("\n", " ").split(";")
    for base, _, forms in [entry.partition(":")]
    for form in forms.split()
    for base in [base.strip()]
}
_VOWELS = frozenset("aeiouy")


@lru_cache(maxsize=16384)
def stem(word: str) -> str:
    """The stem of a casefolded word (see the module docstring); the word itself for a short
    word, a number or an identifier."""
    word = IRREGULAR.get(word) or IRREGULAR.get(word + "s") or word  # "wive": tokens() took the "s"
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        rest = word[: -len(suffix)]
        if word.endswith(suffix) and len(rest) >= 3 and _VOWELS & set(rest):
            word = rest + "e" if suffix == "ed" and rest.endswith("e") else rest  # "agreed"
            break
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    if word.endswith("i"):
        word = word[:-1] + "y"
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in _VOWELS:
        word = word[:-1]
    return word


def stems(words: frozenset[str] | set[str]) -> frozenset[str]:
    """The stems of a set of words.

    >>> sorted(stems({"loves", "hiking", "lisbon"}))
    ['hik', 'lisbon', 'lov']
    """
    return frozenset(stem(word) for word in words)
