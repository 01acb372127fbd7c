"""What redaction takes out of real text: every span, per kind, over a corpus.

    python benchmarks/redact_corpus.py                  # the conversation benchmarks
    python benchmarks/redact_corpus.py --files 'docs/*.md' '.venv/lib/*/site-packages/**/*.py'
    python benchmarks/redact_corpus.py --quiet          # the counts only

The default corpus is every string (turns, questions, expected answers) of the *dev*
conversations only: ``benchmarks/quality/conversations/*.json`` whose ``"split"`` is ``dev`` (or
absent) and ``benchmarks/recall/conversations/dev/*.json``. Held-out sets are blind (quality
``"split": "heldout"``, every recall ``heldout*/`` directory): they are never scanned, so a file
of another split is skipped without a line of it printed. The only secrets there are the
passwords the rounds planted; ``--files`` adds the lines of text files
(globs, ``**`` recursive), where there are almost none. Prints one line per span (file, kind,
the span, and 40 characters before it), then the number of strings, characters and spans per
kind. Run it before and after a change to the rules (``PYTHONPATH`` at the old tree) and diff
the outputs: every new span must be a secret.
"""

from __future__ import annotations

import argparse
import glob
import json
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from nanomem.text.redact import find_secrets  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
QUALITY = "benchmarks/quality/conversations/*.json"
RECALL_DEV = "benchmarks/recall/conversations/dev/*.json"  # heldout*/ are blind: never read


def strings(value: object) -> Iterator[str]:
    """Every string inside a JSON value, keys left out."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def corpus(file_globs: list[str]) -> Iterator[tuple[str, str]]:
    """``(file name, text)`` of each conversation string, then of each line of ``file_globs``."""
    for path in sorted(ROOT.glob(QUALITY)):
        data = json.loads(path.read_text("utf-8"))
        if isinstance(data, dict) and data.get("split", "dev") == "dev":
            yield from ((path.name, text) for text in strings(data))
    for path in sorted(ROOT.glob(RECALL_DEV)):
        yield from ((path.name, text) for text in strings(json.loads(path.read_text("utf-8"))))
    for pattern in file_globs:
        for name in sorted(glob.glob(pattern, recursive=True)):
            path = Path(name)
            if not path.is_file():
                continue
            for line in path.read_text("utf-8", errors="replace").splitlines():
                yield str(path), line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", nargs="*", default=[], help="globs of text files to add")
    parser.add_argument("--quiet", action="store_true", help="print the counts only")
    args = parser.parse_args(argv)
    kinds: Counter[str] = Counter()
    count = chars = 0
    for name, text in corpus(args.files):
        count += 1
        chars += len(text)
        for match in find_secrets(text):
            kinds[match.kind] += 1
            if not args.quiet:
                before = text[max(0, match.start - 40):match.start]
                print(f"{name}\t{match.kind}\t{text[match.start:match.end]!r}\t{before!r}")
    print(f"{count:,} strings, {chars:,} characters: {sum(kinds.values())} spans "
          + ", ".join(f"{kind} {n}" for kind, n in sorted(kinds.items())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
