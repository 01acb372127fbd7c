"""The layer rules of docs/architecture.md, checked on every module's imports (parsed with ast).

Layers, top to bottom: the face (cli, commands, replies, watch, demo) and the facade (memory);
the two stages (consolidate/, dream/); engines/, dream/gates/, versions/, store/; text/; the base
(vocab, config, errors). An import counts wherever it is written, inside a function too; one
under ``if TYPE_CHECKING:`` is for annotations only and counts only where it says so below.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "nanomem"

FACE = ("nanomem.cli", "nanomem.commands", "nanomem.replies", "nanomem.statusreplies",
        "nanomem.recallreplies", "nanomem.watch", "nanomem.demo",
        "nanomem.mcp_server",
        "nanomem.memory", "nanomem.__main__")
# Modules that are pure by contract: they compute, and never touch the disk, a process or the net.
PURE = ("nanomem.text", "nanomem.dream.gates", "nanomem.versions.commits")
HOT_PATH = ("nanomem.store", "nanomem.text", "nanomem.consolidate")
# What doing I/O means: importing one of these, or calling the builtin open().
IO_MODULES = ("os", "io", "shutil", "subprocess", "socket", "tempfile", "fcntl", "msvcrt",
              "sqlite3", "signal", "threading", "asyncio", "glob", "tomllib", "tomli", "http",
              "urllib", "httpx", "dulwich", "watchdog")
# DESIGN §8 puts handle_command on Memory; it delegates to the face, imported inside the method.
ALLOWED_CYCLE_EDGES = {("nanomem.memory", "nanomem.commands")}


@dataclass(frozen=True)
class Import:
    source: str  # the importing module
    target: str  # a module: nanomem.x.y for our own, the top-level name for others
    line: int
    typing_only: bool


def _name_of(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def _modules() -> dict[str, Path]:
    return {_name_of(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _is_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _walk(node: ast.AST, typing_only: bool = False) -> Iterator[tuple[ast.AST, bool]]:
    for child in ast.iter_child_nodes(node):
        yield child, typing_only
        yield from _walk(child, typing_only or _is_type_checking(child))


def _target(name: str) -> str:
    return name if name.startswith("nanomem") else name.split(".")[0]


@functools.cache
def _parsed(name: str) -> ast.Module:
    return ast.parse(_modules()[name].read_text(encoding="utf-8"), filename=str(_modules()[name]))


@functools.cache
def imports_of(name: str) -> tuple[Import, ...]:
    """Every import of module ``name``, relative ones resolved, ``from pkg import mod`` as mod."""
    modules = _modules()
    package = name if modules[name].name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node, typing_only in _walk(_parsed(name)):
        if isinstance(node, ast.Import):
            found += [Import(name, _target(a.name), node.lineno, typing_only) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.append(Import(name, sub if sub in modules else _target(base), node.lineno,
                                    typing_only))
    return tuple(found)


def _all_imports(*, typing: bool) -> Iterator[Import]:
    for name in _modules():
        yield from (i for i in imports_of(name) if typing or not i.typing_only)


def _within(name: str, prefixes: Iterable[str]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _show(found: Iterable[Import]) -> list[str]:
    return [f"{i.source} line {i.line} imports {i.target}" for i in found]


def _runtime_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {name: set() for name in _modules()}
    for imp in _all_imports(typing=False):
        if imp.target in graph and imp.target not in (imp.source, "nanomem"):
            graph[imp.source].add(imp.target)
    return graph


def _reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for nxt in graph[todo.pop()] - seen:
            seen.add(nxt)
            todo.append(nxt)
    return seen


def _does_io(name: str) -> bool:
    if any(imp.target in IO_MODULES for imp in imports_of(name) if not imp.typing_only):
        return True
    return any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "open"
        for node in ast.walk(_parsed(name))
    )


def test_layers_parser_sees_imports_inside_functions_and_type_checking_blocks() -> None:
    gitstore = {i.target for i in imports_of("nanomem.versions.gitstore")}
    memory = {(i.target, i.typing_only) for i in imports_of("nanomem.memory")}
    assert "dulwich" in gitstore and "nanomem.store.fsutil" in gitstore
    assert ("nanomem.commands", False) in memory  # inside Memory.handle_command
    assert _does_io("nanomem.store.fsutil") and _does_io("nanomem.config")
    assert not _does_io("nanomem.text.units")


def test_layers_only_versions_imports_dulwich() -> None:
    found = [i for i in _all_imports(typing=True)
             if i.target == "dulwich" and not _within(i.source, ["nanomem.versions"])]
    assert _show(found) == []


def test_layers_store_and_text_import_nothing_from_the_layers_above() -> None:
    above = ("nanomem.versions", "nanomem.engines", "nanomem.consolidate", "nanomem.dream", *FACE)
    found = [i for i in _all_imports(typing=True)
             if _within(i.source, ["nanomem.store", "nanomem.text"]) and _within(i.target, above)]
    assert _show(found) == []


def test_layers_pure_modules_import_no_module_that_does_io() -> None:
    graph = _runtime_graph()
    problems = []
    for name in _modules():
        if _within(name, PURE):
            doing_io = sorted(m for m in {name} | _reachable(graph, name) if _does_io(m))
            if doing_io:
                problems.append(f"{name} reaches {', '.join(doing_io)}")
    assert problems == []


def test_layers_hot_path_never_imports_versions_or_dulwich() -> None:
    graph = _runtime_graph()
    problems = []
    for name in _modules():
        if _within(name, HOT_PATH):
            reached = {name} | _reachable(graph, name)
            git = sorted(m for m in reached if _within(m, ["nanomem.versions"]))
            git += [i.target for m in reached for i in imports_of(m)
                    if i.target == "dulwich" and not i.typing_only]
            if git:
                problems.append(f"{name} reaches {', '.join(git)}")
    assert problems == []


def test_layers_nothing_below_the_face_imports_the_face() -> None:
    found = [i for i in _all_imports(typing=True)
             if i.source != "nanomem" and not _within(i.source, FACE) and _within(i.target, FACE)]
    assert _show(found) == []


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_layers_have_no_import_cycles() -> None:
    graph = _runtime_graph()
    for source, target in ALLOWED_CYCLE_EDGES:
        graph[source].discard(target)
    assert _cycles(graph) == []


def test_layers_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def _raised(name: str) -> set[str]:
    """Names of the exception classes module ``name`` raises (``raise X(...)`` or ``raise X``)."""
    out = set()
    for node in ast.walk(_parsed(name)):
        if isinstance(node, ast.Raise) and node.exc is not None:
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(exc, ast.Name):
                out.add(exc.id)
    return out


def test_errors_only_the_faces_raise_a_usage_error() -> None:
    found = [name for name in _modules()
             if "CommandError" in _raised(name)
             and name not in ("nanomem.cli", "nanomem.commands", "nanomem.mcp_server")]
    assert found == []


def test_errors_pure_modules_raise_no_repository_or_history_error() -> None:
    io_errors = {"GitStoreError", "ShaError", "HistoryError", "LockError"}
    found = [f"{name} raises {', '.join(sorted(_raised(name) & io_errors))}"
             for name in _modules() if _within(name, PURE) and _raised(name) & io_errors]
    assert found == []


def test_errors_every_error_class_is_raised_by_something() -> None:
    import nanomem.errors as errors

    classes = {name for name, value in vars(errors).items()
               if isinstance(value, type) and issubclass(value, errors.NanomemError)
               and value is not errors.NanomemError}
    raised: set[str] = set()
    for name in _modules():
        if name != "nanomem.errors":
            raised |= _raised(name)
    subclassed = {base.id for name in _modules() for node in ast.walk(_parsed(name))
                  if isinstance(node, ast.ClassDef) and node.name in raised
                  for base in node.bases if isinstance(base, ast.Name)}
    assert sorted(classes - raised - subclassed) == []


def test_records_have_one_json_form() -> None:
    """Results go through ``nanomem.records.to_json`` only; ``HistoryEntry.to_json`` and
    ``ArchiveRecord.to_json`` are storage line formats (optional fields left out), not a
    result's JSON form."""
    found = [f"{name}.{node.name}" for name in _modules() for node in ast.walk(_parsed(name))
             if isinstance(node, ast.ClassDef)
             and any(isinstance(item, ast.FunctionDef) and item.name == "to_json"
                     for item in node.body)]
    assert sorted(found) == ["nanomem.store.archive.ArchiveRecord",
                             "nanomem.store.historyfile.HistoryEntry"]


def test_layers_only_the_cli_and_the_demo_print() -> None:
    found = sorted({name for name in _modules() for node in ast.walk(_parsed(name))
                    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "print"})
    assert found == ["nanomem.cli", "nanomem.demo"]


def test_layers_every_module_is_named_in_the_architecture_doc() -> None:
    doc = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    unnamed = [path.relative_to(PACKAGE).as_posix() for path in sorted(PACKAGE.rglob("*.py"))
               if path.name != "__init__.py" and f"`{path.relative_to(PACKAGE).as_posix()}`" not in doc]
    assert unnamed == []
