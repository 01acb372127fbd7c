"""What search, ``/recall`` and forget say (pure): hits on one line each, and the forget receipt
(which never shows the forgotten text).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from nanomem.replies import short


_FORGET_HEADLINES = {
    "forgotten": "**Forgotten.**",
    "incomplete": "**Forget incomplete:** the sweep still finds the text.",
    "nothing_found": "**Nothing to forget:** no place holds the text.",
    "dry_run": "**Dry run:** nothing was changed. A real run would remove:",
    "refused": "**Refused:** a pinned line holds the text; nothing was changed.",
}


def render_forget(receipt: Any, limit: int = 20) -> str:
    """Reply for a :class:`~nanomem.forget.receipt.ForgetReceipt`; never shows the text.

    >>> from nanomem.forget.receipt import ForgetReceipt
    >>> print(render_forget(ForgetReceipt("dry_run", {"files": 1}, {"files": ("USER.md line 3",)})))
    **Dry run:** nothing was changed. A real run would remove:
    - files: 1 line
      - USER.md line 3
    """
    lines = [_FORGET_HEADLINES.get(receipt.status, receipt.status)]
    for place, count in receipt.counts.items():
        unit = "file" if place == "index" else "line"  # the derived index goes whole
        lines.append(f"- {place}: {count} {unit}{'s' if count != 1 else ''}")
        lines += _capped(receipt.where.get(place, ()), limit, "  - ")
    git = receipt.where.get("git")
    if git:
        lines.append(f"- git: {git[0]}")
        lines += _capped(git[1:], limit, "  - ")
    if receipt.refused:
        lines.append("Pinned lines that hold it (forget them too with `--include-pinned`):")
        lines += _capped(receipt.refused, limit, "- ")
    if receipt.commit:
        lines.append(f"Receipt: commit `{short(receipt.commit)}` and memory/forget-log.jsonl.")
    if receipt.sha_map:
        first = next(iter(receipt.sha_map.items()))
        lines.append(f"{len(receipt.sha_map)} commits have new shas (e.g. `{short(first[0])}` → "
                     f"`{short(first[1])}`); `/dream-log <old sha>` still finds them.")
    if receipt.status == "incomplete":
        lines.append("Still found in:")
        lines += _capped(receipt.hits, limit, "- ")
    elif receipt.status == "forgotten":
        lines.append("Sweep: every workspace file and every git object searched, zero hits. "
                     "Copies outside this workspace (backups, remotes, logs of a model "
                     "provider) are out of reach.")
    return "\n".join(lines)


def _capped(items: Sequence[str], limit: int, prefix: str) -> list[str]:
    shown = [prefix + item for item in items[:limit]]
    if len(items) > limit:
        shown.append(f"{prefix}… and {len(items) - limit} more")
    return shown


def render_hit(hit: Any, width: int = 300) -> str:
    """One search hit on one line: when, who or where, and the text (cut to ``width``).

    >>> from nanomem.search.rank import Hit
    >>> render_hit(Hit("a:1", "archive", "We painted\\na sunrise.", 1.0, "2026-05-08 14:03", role="user"))
    '[2026-05-08 14:03] user: We painted a sunrise.'
    >>> render_hit(Hit("f:1", "file", "- Lives in Porto", 2.0, path="USER.md", line=4))
    'USER.md:4: - Lives in Porto'
    """
    text = " ".join(hit.text.split())
    if len(text) > width:
        text = text[: width - 1] + "…"
    if hit.source == "file":
        return f"{hit.path}:{hit.line}: {text}"
    when = f"[{hit.timestamp}] " if hit.timestamp else ""
    who = f"history #{hit.cursor}" if hit.source == "history" else hit.speaker
    return f"{when}{who}: {text}"


def render_hits(query: str, hits: Sequence[Any]) -> str:
    """The reply of ``/recall QUERY``."""
    if not hits:
        return (f"**Nothing found for** `{query}`.\nTry other words; names, places and dates "
                "work best.")
    lines = [f"**Recall** `{query}`: {len(hits)} best {'match' if len(hits) == 1 else 'matches'}"]
    lines.extend(f"- {render_hit(hit)}" for hit in hits)
    return "\n".join(lines)
