"""Every docstring example in the package runs and holds (examples are documentation)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import nanomem

MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(nanomem.__path__, prefix="nanomem.")
    if info.name != "nanomem.__main__"
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_hold(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} docstring example(s) of {name} failed"
