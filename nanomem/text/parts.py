"""Long history text split into marked parts, never cut (pure).

A consolidation that falls back to the raw turns, and a migrated legacy entry that is too long,
are stored as several history entries, each at most ``limit`` characters, each opened by a
header line ``(part i/n)`` (``[RAW] (part i/n)`` for raw turns). The bodies after the header
lines concatenate to the input exactly. Both callers use :func:`split_parts`, so the same text
gives the same parts wherever it comes from.

>>> split_parts("abcdefghij", 25, prefix="[RAW] ")
['[RAW] (part 1/2)\\nabcdefgh', '[RAW] (part 2/2)\\nij']
"""

from __future__ import annotations

from nanomem.vocab import RAW_MARK

RAW_PART_CHARS = 16_000  # the longest raw part: a Dream batch reads it whole
RAW_PREFIX = RAW_MARK + " "


def split_parts(text: str, limit: int, *, prefix: str = "") -> list[str]:
    """``text`` as ``{prefix}(part i/n)\\n<body>`` entries of at most ``limit`` characters.

    The header is counted exactly, so parts are as large as ``limit`` allows; ``n`` is
    at least 1 (a short text is one marked part).

    >>> parts = split_parts("x" * 50, 40, prefix="[RAW] ")
    >>> [len(p) for p in parts], "".join(p.split("\\n", 1)[1] for p in parts) == "x" * 50
    ([40, 40, 21], True)
    >>> split_parts("x", 10)
    Traceback (most recent call last):
    ...
    ValueError: limit 10 is too small to split into marked parts
    """
    n = 1
    while True:
        room = limit - len(f"{prefix}(part {n}/{n})\n")
        if room <= 0:
            raise ValueError(f"limit {limit} is too small to split into marked parts")
        needed = max(1, -(-len(text) // room))
        if needed <= n:
            break
        n = needed
    bodies = [text[i * room : (i + 1) * room] for i in range(n)]
    return [f"{prefix}(part {i}/{n})\n{body}" for i, body in enumerate(bodies, start=1)]


def split_raw(text: str, limit: int = RAW_PART_CHARS) -> list[str]:
    """Raw turns as ``[RAW] (part i/n)`` entries of at most ``limit`` characters.

    >>> split_raw("USER: hi")
    ['[RAW] (part 1/1)\\nUSER: hi']
    """
    return split_parts(text, limit, prefix=RAW_PREFIX)
