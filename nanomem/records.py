"""The one JSON form of nanomem's result records: :func:`to_json`.

Every result (``DreamResult``, ``ConsolidationResult``, ``CommitInfo``, ``RestoreResult``,
``MemoryStatus``, …) is a frozen dataclass, and its JSON form is its fields by name, recursively:
a nested record becomes an object, a tuple or list a list, a mapping an object, a path a string,
a datetime ISO 8601. The CLI's ``--json`` output is exactly this, so a script reads the same names
as the Python API. Two opt-ins keep it honest:

- a field declared with ``metadata=NOT_JSON`` stays out (a live object, such as a loaded session,
  or tool arguments that could hold a person's text);
- a record may name derived values in ``JSON_PROPERTIES`` (read-only properties added as keys).

>>> from dataclasses import dataclass, field
>>> @dataclass(frozen=True)
... class Example:
...     status: str
...     cursors: tuple[int, ...] = ()
...     live: object = field(default=None, metadata=NOT_JSON)
>>> to_json(Example("archived", (3, 4), live=object()))
{'status': 'archived', 'cursors': [3, 4]}
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import date, datetime
from pathlib import PurePath
from types import MappingProxyType
from typing import Any

NOT_JSON: Mapping[str, Any] = MappingProxyType({"json": False})

JSONValue = Any  # dict, list, str, int, float, bool or None, nested


def to_json(value: Any) -> JSONValue:
    """``value`` (a record, or plain data holding records) as JSON-ready data.

    >>> to_json({"files": ("USER.md",), "at": datetime(2026, 11, 30, 16, 40)})
    {'files': ['USER.md'], 'at': '2026-11-30T16:40:00'}
    """
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        data = {
            f.name: to_json(getattr(value, f.name))
            for f in dataclasses.fields(value)
            if f.metadata.get("json", True)
        }
        for name in getattr(type(value), "JSON_PROPERTIES", ()):
            data[name] = to_json(getattr(value, name))
        return data
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, Mapping):
        return {str(key): to_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(item) for item in value]
    if isinstance(value, PurePath):
        return str(value)
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} has no JSON form; make it a frozen dataclass record")
