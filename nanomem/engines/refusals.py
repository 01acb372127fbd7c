"""Fields a server refuses, and the one fallback for each (pure).

A server that does not support an optional request field answers 400 or 422 and names the
field in its message (OpenAI reasoning models: ``Unsupported parameter: 'max_tokens' is not
supported with this model. Use 'max_completion_tokens' instead.``; vLLM without
``--enable-auto-tool-choice``: ``"auto" tool choice requires --enable-auto-tool-choice``).
:func:`refused_field` finds that field in the error itself (``param``, pydantic ``loc``, the
message), never in an echoed request. :func:`fallback_for` gives the one next step for it, and
:func:`apply_fallbacks` rewrites a body with the steps remembered for an endpoint and model.

A step is a string, stored as such in the provider notes:

- ``"rename:NEW"``: send the value under another name (``max_tokens`` → ``max_completion_tokens``);
- ``"set:auto"`` / ``"set:named"``: send another ``tool_choice`` (``named``: the only tool);
- ``"omit"``: leave the field out.

``tool_choice`` steps are kept per kind of value (``tool_choice=required``,
``tool_choice=function``, ``tool_choice=auto``), so that a server refusing ``"required"``
(Together) still gets the named tool a consolidation asks for.

>>> body = {"model": "o3", "messages": [], "max_tokens": 256, "temperature": 0.0}
>>> apply_fallbacks(body, {"max_tokens": "rename:max_completion_tokens", "temperature": "omit"})
{'model': 'o3', 'messages': [], 'max_completion_tokens': 256}
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from nanomem.engines.wire import error_text

#: Body fields nanomem never drops: without them there is no request.
CORE_FIELDS = frozenset({"model", "messages", "tools"})
#: The fields nanomem itself sends that have a fallback.
OWN_FIELDS = ("tool_choice", "max_tokens", "max_completion_tokens", "temperature",
              "parallel_tool_calls")
# Together answers an unsupported tool_choice "required" with a bare "Invalid request"
# (https://github.com/tensorzero/tensorzero/pull/2952).
_GENERIC = re.compile(r"^\W*(invalid request|input validation error|bad request)\W*$", re.IGNORECASE)


def step_key(field: str, value: Any) -> str:
    """The notes key of a field as sent: ``tool_choice`` is kept per kind of value.

    >>> step_key("tool_choice", {"type": "function", "function": {"name": "f"}}), step_key("max_tokens", 9)
    ('tool_choice=function', 'max_tokens')
    """
    if field != "tool_choice":
        return field
    if isinstance(value, Mapping):
        return "tool_choice=function"
    return f"tool_choice={value}"


def refused_field(status: int, body: Any, sent: Mapping[str, Any]) -> str | None:
    """The optional field a 400/422 reply refuses, if it names one that was sent.

    Only the error's own message, ``param`` and ``loc`` are searched, never an echoed request;
    of several fields named, the one named first wins. A bare "Invalid request" (Together)
    blames a forcing ``tool_choice`` when one was sent.

    >>> refused_field(400, {"error": {"message": '"auto" tool choice requires '
    ...               '--enable-auto-tool-choice'}}, {"tool_choice": "auto"})
    'tool_choice'
    >>> refused_field(400, {"error": {"message": "Unsupported parameter: 'max_tokens' is not "
    ...     "supported with this model. Use 'max_completion_tokens' instead."}}, {"max_tokens": 9})
    'max_tokens'
    """
    if status not in (400, 422):
        return None
    candidates = [name for name in sent if name not in CORE_FIELDS]
    err = body.get("error") if isinstance(body, dict) else None
    if isinstance(err, dict) and err.get("param") in candidates:
        return str(err["param"])
    detail = body.get("detail") if isinstance(body, dict) else None
    if isinstance(detail, list):  # FastAPI/pydantic validation errors: loc + msg only
        text = " ".join(f"{d.get('loc')} {d.get('msg')}" for d in detail if isinstance(d, dict))
    else:
        text = error_text(body) if isinstance(body, dict) else str(body)
    found: list[tuple[int, str]] = []
    for name in candidates:
        match = re.search(r"(?<![a-z_])" + name.replace("_", "[_ ]") + r"(?![a-z_])", text, re.IGNORECASE)
        if match:
            found.append((match.start(), name))
    if found:
        return min(found)[1]
    if _GENERIC.match(text.strip()) and _forcing(sent.get("tool_choice")):
        return "tool_choice"
    return None


def fallback_for(field: str, value: Any, tools: Sequence[Mapping[str, Any]] = ()) -> str | None:
    """The one next step for ``field`` refused with ``value`` (``None``: nothing to try).

    >>> fallback_for("tool_choice", "required", tools=[{"function": {"name": "f"}}])
    'set:named'
    >>> fallback_for("tool_choice", "required", tools=[{}, {}]), fallback_for("tool_choice", "auto")
    ('set:auto', 'omit')
    """
    if field == "max_tokens":
        return "rename:max_completion_tokens"
    if field == "tool_choice":
        if value == "required":
            return "set:named" if len(tools) == 1 else "set:auto"
        if isinstance(value, Mapping):
            return "set:auto"
        return "omit"
    if field in OWN_FIELDS:
        return "omit"
    return None  # a field the user configured ([provider.body]) is never dropped silently


def apply_fallbacks(body: Mapping[str, Any], steps: Mapping[str, str]) -> dict[str, Any]:
    """``body`` with the remembered ``steps`` applied (each at most once, in a chain)."""
    out = dict(body)
    for _ in range(4):  # tool_choice: required -> auto -> omitted is the longest chain
        changed = False
        for field in list(out):
            step = steps.get(step_key(field, out[field]))
            if step is None:
                continue
            out = _apply(out, field, step)
            changed = True
        if not changed:
            break
    return out


def _apply(body: dict[str, Any], field: str, step: str) -> dict[str, Any]:
    value = body.pop(field)
    if step.startswith("rename:"):
        body.setdefault(step.split(":", 1)[1], value)
    elif step == "set:auto":
        body[field] = "auto"
    elif step == "set:named":
        names = [t.get("function", {}).get("name") for t in body.get("tools") or []
                 if isinstance(t, Mapping)]
        body[field] = ({"type": "function", "function": {"name": names[0]}}
                       if len(names) == 1 and names[0] else "auto")
    return body


def _forcing(choice: Any) -> bool:
    return choice == "required" or isinstance(choice, Mapping)
