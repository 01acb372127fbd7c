"""Benchmark of redaction: what ``redact`` costs, and how well the entropy rule separates
random tokens from identifiers.

    python benchmarks/redact.py           # every case, about 10 seconds
    python benchmarks/redact.py --quick   # fewer repetitions

Every history append, memory-file commit and Dream prompt runs :func:`nanomem.text.redact.redact`
(27 secret kinds, the long-hex and the entropy rule, the cue-less password rule). Prints the median time per call and per
KB for each case, and each case's ratio to ordinary prose, so a rule that backtracks badly on
some input shows as a large ratio. Then, for the entropy rule alone
(:func:`nanomem.text.entropy.looks_random`), the share of seeded random base62 tokens it
catches per length, and the share of generated identifiers (3–6 words from
``docs/*.md`` and a number, CamelCase / snake_case / kebab-case) it wrongly takes for a token.
Last, for the cue-less password rule, the share of seeded human-style passwords (a word or two,
sometimes in leet, a symbol, a number) it catches, per symbol.

The hostile cases (issue 13) repeat what each rule starts on (a cue, a prefix, a header) or
what it scans (a run of its own characters) to 64 KB; ``x 16->64 KB`` is the time at 64 KB over
the time at 16 KB: about 4 for a linear rule, 16 for a quadratic one (two did so before issue
13: the private-key body scanned to the end of the text from every BEGIN line, and each match
was compared with every earlier one).
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import string
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from nanomem.text.entropy import looks_random  # noqa: E402
from nanomem.text.redact import redact  # noqa: E402
from tests.secret_kinds import FAKES  # noqa: E402


def hostile(size: int) -> dict[str, str]:
    """Long adversarial strings, ``size`` characters or a few more, one per rule family."""
    def fill(unit: str) -> str:
        return unit * (size // len(unit) + 1)

    return {
        "BEGIN PRIVATE KEY lines, no END": fill("-----BEGIN PRIVATE KEY-----!"),
        "'pw:' x N": fill("pw:"),
        "'密码：' x N": fill("密码："),
        "'AccountKey=' x N": fill("AccountKey="),
        "'PGPASSWORD=' x N": fill("PGPASSWORD="),
        "'pw Abc12d ' x N (cue, token)": fill("pw Abc12d "),
        "'oops Marmalade1952 ' x N": fill("oops Marmalade1952 "),
        "'wrong window ' x N": fill("wrong window "),
        "'4111 ' x N": fill("4111 "),
        "digits x N": fill("4"),
        "'Authorization: Bearer ' x N": fill("Authorization: Bearer "),
        "'glpat-1a…' + '.a' x N": "glpat-1" + "a" * 24 + fill(".a"),
        "'eyJaaaaa.' x N": fill("eyJaaaaa."),
        "'a://b:' x N": fill("a://b:"),
        "'12345678:AA' x N": fill("12345678:AA"),
    }


def cases() -> dict[str, str]:
    rng = random.Random(0)
    prose = ("User prefers metric units and lives in Lyon; the budget for project Atlas is "
             "4,500 EUR. ") * 50
    long_words = ("Yesterday afternoon the surveyor's appointment moved to Wednesday; remember "
                  "the structural engineer's recommendation about the foundations. ") * 40
    chat = ("Log in tomorrow to check the booking; the password manager reminded me, pass the "
            "PIN code along to Ana, sign in with Google on Thursday at 10am. ") * 40
    return {
        "prose 4 KB": prose[:4000],
        "prose with 27 secrets": " ".join(f.text for f in FAKES),
        "random base64 64 KB, no space": "".join(
            rng.choice(string.ascii_letters + string.digits + "+/") for _ in range(64000)),
        "one letter x 64 KB": "a" * 64000,
        "'a:' after :// x 64 KB": "x://" + "a:" * 32000,
        "'@' after a URL user x 64 KB": "postgres://u:" + "@" * 64000,
        "'password is x1…' x 2,000": ("password is " + "x1" * 10) * 2000,
        "'password is 1' + 64 KB of '.'": "password is 1" + "." * 64000 + "a",
        "prose 4 KB, long words": long_words[:4000],
        "chat 4 KB with credential words": chat[:4000],
        "'Ab1!' runs x 64 KB": ("Ab1!" * 16 + " ") * 1000,
        "'a' + 64 KB of '!' + 'Ab1'": "a" + "!" * 64000 + "Ab1",
    }


def median_seconds(text: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        redact(text)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = parser.parse_args(argv)
    repeat = 3 if args.quick else 9
    rows = [(name, len(text), median_seconds(text, repeat)) for name, text in cases().items()]
    base = rows[0][2] / rows[0][1]
    print(f"{'case':34} {'chars':>7} {'ms/call':>9} {'ms/KB':>7} {'x prose/KB':>11}")
    for name, size, seconds in rows:
        per_kb = seconds / size * 1000
        print(f"{name:34} {size:7,} {seconds * 1e3:9.2f} {per_kb * 1e3:7.3f} "
              f"{seconds / size / base:11.1f}")
    small = hostile(16_000)
    print(f"\n{'hostile case':34} {'chars':>7} {'ms/call':>9} {'x prose/KB':>11} {'x 16->64 KB':>12}")
    for name, text in hostile(64_000).items():
        seconds = median_seconds(text, repeat)
        growth = seconds / median_seconds(small[name], repeat)
        print(f"{name:34} {len(text):7,} {seconds * 1e3:9.2f} {seconds / len(text) / base:11.1f} "
              f"{growth:12.1f}")
    detection(2_000 if args.quick else 20_000)
    return 0


def detection(samples: int) -> None:
    rng = random.Random(7)
    alphabet = string.ascii_letters + string.digits
    print(f"\nentropy rule on {samples:,} seeded samples each")
    for length in (24, 32, 40, 64):
        tokens = ["".join(rng.choice(alphabet) for _ in range(length)) for _ in range(samples)]
        caught = sum(map(looks_random, tokens)) / samples
        print(f"  random base62, {length} chars: caught {caught:6.1%}")
    docs = Path(__file__).resolve().parents[1] / "docs"
    text = " ".join(p.read_text("utf-8") for p in sorted(docs.glob("*.md")))
    vocab = sorted({w.lower() for w in re.findall(r"[A-Za-z]{3,10}", text)})
    names = []
    for _ in range(samples):
        parts = [rng.choice(vocab).capitalize() for _ in range(rng.randint(3, 6))]
        parts.insert(rng.randint(0, len(parts)), str(rng.randint(1, 2026)))
        if rng.random() < 0.5:
            parts[0] = parts[0].lower()
        names.append(rng.choice(["", "", "_", "-"]).join(parts))
    wrong = sum(map(looks_random, names)) / samples
    print(f"  word identifiers taken for a token: {wrong:6.2%}")
    typed_passwords(rng, vocab, names)


def typed_passwords(rng: random.Random, vocab: list[str], names: list[str]) -> None:
    """The cue-less password rule: seeded human-style passwords (a word or two, a symbol,
    digits, sometimes leet) it catches, and identifiers with a symbol between words it takes."""
    leet = str.maketrans("aeio", "4310")
    samples = len(names)
    words = [w for w in vocab if len(w) >= 4]
    typed = []
    for _ in range(samples):
        word = rng.choice(words).capitalize()
        if rng.random() < 0.4:
            word = word[0] + word[1:].translate(leet)
        if rng.random() < 0.4:
            word += rng.choice(words).capitalize()
        typed.append(word + rng.choice("!#$%&*=?@^~") + str(rng.randint(1, 9999)))
    print(f"\npassword-shaped tokens without a cue, {samples:,} seeded samples")
    for label, symbols in (("! $ % & ? @ ^ ~", "!$%&?@^~"), ("# * = (read as No., times, =)", "#*=")):
        some = [t for t in typed if any(c in symbols for c in t)]
        caught = sum(redact(f"x {t} y").total > 0 for t in some) / len(some)
        print(f"  word + {label:29} + number caught: {caught:6.1%}")
    wrong = sum(redact(n).total > 0 for n in names) / samples
    print(f"  word identifiers redacted by any rule: {wrong:6.2%}")


if __name__ == "__main__":
    raise SystemExit(main())
