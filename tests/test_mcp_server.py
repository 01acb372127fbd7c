"""``nanomem mcp`` end to end: a real server process driven by the MCP SDK's own stdio client
(initialize, tools/list, tools/call of every tool, resources/list and resources/read), bad
arguments, a Dream racing a second Dream, and the CLI without the optional SDK."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp", reason="the optional mcp SDK (pip install 'nanomem[mcp]')")

from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

from tests.e2e_support import (  # noqa: E402
    base_env,
    cli,
    dream_cursor,
    fake_edit,
    fake_finish,
    history_lines,
    init_ws,
    memory_bytes,
    nanomem,
    openai_env,
    subjects,
)
from tests.fakellm import FakeLLM  # noqa: E402

pytestmark = pytest.mark.slow  # every test here starts a process or a server

TOOLS = {"memory_search", "memory_context", "memory_remember", "dream", "dream_log",
         "dream_restore", "memory_status"}
FACTS = "## Facts\n"


@pytest.fixture
def errlog(tmp_path: Path) -> Iterator[Any]:
    """The servers' stderr: a real file (the subprocess needs a descriptor), read after."""
    with (tmp_path / "server.err").open("w+", encoding="utf-8") as stream:
        yield stream


def server_stderr(errlog: Any) -> str:
    errlog.flush()
    errlog.seek(0)
    return str(errlog.read())


@contextlib.asynccontextmanager
async def connect(ws: Path, env: dict[str, str] | None = None,
                  errlog: Any = None) -> AsyncIterator[ClientSession]:
    """``nanomem -w WS mcp`` as a subprocess, through the SDK's stdio client, initialized."""
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "nanomem", "-w", str(ws), "mcp"],
                                   env=env or base_env(), cwd=str(ws.parent))
    async with stdio_client(params, errlog=errlog or sys.stderr) as (read, write):
        async with ClientSession(read, write) as session:
            yield session


def text_of(result: Any) -> str:
    assert len(result.content) == 1 and result.content[0].type == "text"
    return str(result.content[0].text)


async def call(session: ClientSession, name: str, arguments: dict[str, Any]) -> tuple[bool, str]:
    result = await session.call_tool(name, arguments)
    return bool(result.is_error), text_of(result)


def test_mcp_server_serves_every_tool_and_the_memory_files_over_stdio(
    tmp_path: Path, errlog: Any
) -> None:
    ws = init_ws(tmp_path)

    async def main() -> None:
        async with connect(ws, errlog=errlog) as session:
            init = await session.initialize()
            assert init.server_info.name == "nanomem"
            assert init.capabilities.tools is not None and init.capabilities.resources is not None

            listed = (await session.list_tools()).tools
            assert {tool.name for tool in listed} == TOOLS
            schemas = {tool.name: tool.input_schema for tool in listed}
            assert all(s["type"] == "object" and s["additionalProperties"] is False
                       for s in schemas.values())
            assert schemas["memory_remember"]["required"] == ["text"]
            assert schemas["memory_remember"]["properties"]["mark"]["enum"] == [
                "permanent", "durable", "ephemeral", "correction"]
            assert all(tool.description for tool in listed)

            error, text = await call(session, "memory_remember",
                                     {"text": "User lives in Lyon.", "mark": "permanent"})
            assert not error and text.startswith("**Remembered** as history entry 1: `[permanent]`")
            assert history_lines(ws)[-1]["content"] == "- [permanent] User lives in Lyon."

            error, text = await call(session, "memory_status", {})
            assert not error and "cursor 1, dream cursor 0, 1 pending" in text

            error, text = await call(session, "memory_search", {"query": "Lyon", "k": 3})
            assert not error and text.startswith("**Recall** `Lyon`"), text
            assert "history #1: - [permanent] User lives in Lyon." in text
            error, text = await call(session, "memory_search", {"query": "xylophone"})
            assert not error and text.startswith("**Nothing found for** `xylophone`")

            before = memory_bytes(ws)
            error, text = await call(session, "dream", {"dry_run": True})
            assert not error and text.startswith("**Dry run**") and "+- User lives in Lyon." in text
            assert memory_bytes(ws) == before

            error, text = await call(session, "dream", {})
            assert not error and text.startswith("**Dream committed `"), text
            sha = text.split("`")[1]
            assert "User lives in Lyon." in (ws / "USER.md").read_text("utf-8")
            assert dream_cursor(ws) == "1"

            for args in ({}, {"sha": sha}):
                error, text = await call(session, "dream_log", args)
                assert not error and text.startswith(f"**`{sha}`** dream:"), text

            error, text = await call(session, "memory_context", {"budget": 800})
            assert not error and "## USER.md" in text and "User lives in Lyon." in text
            error, ranked = await call(session, "memory_context", {"budget": 800, "query": "Lyon"})
            assert not error and "User lives in Lyon." in ranked

            error, text = await call(session, "dream_restore", {})
            assert not error and text.startswith("**Recent versions**") and sha in text
            error, text = await call(session, "dream_restore", {"sha": sha})
            assert not error and text.startswith(f"**Restored** the memory files to before `{sha}`")
            assert "User lives in Lyon." not in (ws / "USER.md").read_text("utf-8")

            resources = (await session.list_resources()).resources
            assert [str(r.uri) for r in resources] == [
                "nanomem://SOUL.md", "nanomem://USER.md", "nanomem://memory/MEMORY.md"]
            for rel in ("SOUL.md", "USER.md", "memory/MEMORY.md"):
                read = await session.read_resource(f"nanomem://{rel}")
                assert read.contents[0].text == (ws / rel).read_text("utf-8")

    anyio.run(main)
    assert "Traceback" not in server_stderr(errlog)


def test_mcp_server_answers_bad_arguments_with_the_clis_messages_and_keeps_serving(
    tmp_path: Path, errlog: Any
) -> None:
    ws = init_ws(tmp_path)
    assert cli("-w", str(ws), "append", "- [durable] User lives in Lyon.").rc == 0
    unknown_sha = nanomem(ws, "log", "ffff")
    assert unknown_sha.rc == 2
    cli_message = unknown_sha.err.strip().removeprefix("nanomem log: error: ")
    history_before = (ws / "memory" / "history.jsonl").read_bytes()
    bad = [
        ("memory_remember", {}, "memory_remember: error: bad arguments: 'text' is a required "
                                "property; see the tool's input schema"),
        ("memory_remember", {"text": "x", "mark": "forever"},
         "memory_remember: error: bad arguments at mark: 'forever' is not one of"),
        ("memory_remember", {"text": "[permanant] typo"},
         "memory_remember: error: `[permanant]` is not a mark"),
        ("memory_remember", {"text": "   "}, "memory_remember: error: nothing to remember"),
        ("dream", {"dry_run": "yes"},
         "dream: error: bad arguments at dry_run: 'yes' is not of type 'boolean'"),
        ("dream", {"force": True}, "dream: error: bad arguments: Additional properties are not "
                                   "allowed ('force' was unexpected)"),
        ("memory_context", {"budget": -5}, "memory_context: error: bad arguments at budget: -5 "
                                           "is less than the minimum of 1"),
        ("memory_search", {"query": ""}, "memory_search: error: bad arguments at query: '' "
                                         "should be non-empty"),
        ("memory_search", {"query": "x", "k": 99}, "memory_search: error: bad arguments at k: "
                                                   "99 is greater than the maximum of 20"),
        ("dream_log", {"sha": 12}, "dream_log: error: bad arguments at sha: 12 is not of type "
                                   "'string'"),
        ("dream_log", {"sha": "ffff"}, f"dream_log: error: {cli_message}"),
        ("dream_restore", {"sha": "ffff"}, f"dream_restore: error: {cli_message}"),
        ("forget_everything", {}, "forget_everything: error: unknown tool 'forget_everything'; "
                                  "the tools are memory_search, memory_context"),
    ]

    async def main() -> None:
        async with connect(ws, errlog=errlog) as session:
            await session.initialize()
            for name, args, expected in bad:
                error, text = await call(session, name, args)
                assert error, (name, args, text)
                assert text.startswith(expected), (text, expected)
                assert "\n" not in text and "Traceback" not in text
            with pytest.raises(MCPError, match="resources/read: error: unknown resource"):
                await session.read_resource("nanomem://../secrets.txt")
            error, text = await call(session, "memory_status", {})  # still serving
            assert not error and "1 pending" in text

    anyio.run(main)
    assert (ws / "memory" / "history.jsonl").read_bytes() == history_before
    assert "Traceback" not in server_stderr(errlog)


def test_mcp_dream_racing_a_second_dream_answers_already_running_and_changes_nothing(
    tmp_path: Path, errlog: Any
) -> None:
    ws = init_ws(tmp_path)
    assert cli("-w", str(ws), "append", "- [durable] User lives in Lyon.").rc == 0
    arrived, release = threading.Event(), threading.Event()

    def hold_the_first_request(body: dict[str, Any]) -> None:
        arrived.set()
        release.wait(60)

    fake = FakeLLM(on_request=hold_the_first_request)
    fake.enqueue_tool_calls([fake_edit("USER.md", FACTS, FACTS + "- User lives in Lyon.\n"),
                             fake_finish()])

    async def main(url: str) -> tuple[str, list[tuple[bool, str]]]:
        env = openai_env(url)
        async with connect(ws, env, errlog) as first, connect(ws, env, errlog) as second:
            await first.initialize()
            await second.initialize()
            results: dict[str, tuple[bool, str]] = {}

            async def first_dream() -> None:
                results["first"] = await call(first, "dream", {})

            async with anyio.create_task_group() as tg:
                tg.start_soon(first_dream)
                assert await anyio.to_thread.run_sync(arrived.wait, 60), "no request arrived"
                before = (memory_bytes(ws), subjects(ws), dream_cursor(ws))
                racing = [await call(second, "dream", {}),  # another server process
                          await call(first, "dream", {}),   # the same server, concurrently
                          await call(second, "dream", {"dry_run": True})]
                assert (memory_bytes(ws), subjects(ws), dream_cursor(ws)) == before
                release.set()
            return results["first"][1], racing

    with fake.serve() as url:
        try:
            committed, racing = anyio.run(main, url)
        finally:
            release.set()
    for error, text in racing:
        assert not error and text.startswith("**Dream is already running**"), text
    assert committed.startswith("**Dream committed `"), committed
    assert "- User lives in Lyon." in (ws / "USER.md").read_text("utf-8")
    assert dream_cursor(ws) == "1"
    assert len(fake.requests) == 1  # the first Dream (edit and finish in one reply); racers asked nothing


def test_nanomem_without_the_mcp_sdk_works_and_mcp_exits_2_naming_the_extra(
    tmp_path: Path,
) -> None:
    ws = init_ws(tmp_path)
    script = (
        "import io, json, sys\n"
        "sys.modules['mcp'] = None  # as if the optional extra were not installed\n"
        "import nanomem, nanomem.cli, nanomem.memory, nanomem.commands\n"
        "from nanomem.cli import main\n"
        "out, err = io.StringIO(), io.StringIO()\n"
        "codes = [main(['-w', sys.argv[1], a], stdout=out, stderr=err) for a in ('status', 'mcp')]\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('mcp') and sys.modules[m])\n"
        "print(json.dumps([codes, err.getvalue(), loaded]))\n"
    )
    proc = subprocess.run([sys.executable, "-c", script, str(ws)], capture_output=True,
                          text=True, env=base_env(), timeout=60)
    assert proc.returncode == 0, proc.stderr
    codes, err, loaded = json.loads(proc.stdout)
    assert codes == [0, 2] and loaded == []
    assert err.count("\n") == 1 and err.startswith("nanomem mcp: error: ")
    assert "pip install 'nanomem[mcp]'" in err


@pytest.mark.skipif(not os.environ.get("NANOMEM_NANOBOT_PYTHON"),
                    reason="set NANOMEM_NANOBOT_PYTHON to a python with nanobot-ai 0.3.5")
def test_nanobots_mcp_client_registers_and_calls_the_tools(tmp_path: Path) -> None:
    """nanobot-ai 0.3.5's own MCP wiring (its venv pins the SDK's 1.x client)."""
    ws = init_ws(tmp_path)
    config = {"tools": {"mcpServers": {"nanomem": {
        "command": sys.executable, "args": ["-m", "nanomem", "-w", str(ws), "mcp"],
        "env": {"PYTHONPATH": base_env()["PYTHONPATH"]}}}}}
    script = (
        "import asyncio, json, sys\n"
        "from nanobot.config.schema import Config\n"
        "from nanobot.agent.tools.mcp import connect_mcp_servers, _close_mcp_connections\n"
        "from nanobot.agent.tools.registry import ToolRegistry\n"
        "async def main():\n"
        "    reg = ToolRegistry()\n"
        "    conns = await connect_mcp_servers(Config.model_validate(json.loads(sys.argv[1]))"
        ".tools.mcp_servers, reg)\n"
        "    said = await reg.get('mcp_nanomem_memory_remember').execute(text='Prefers tea.')\n"
        "    await _close_mcp_connections(conns)\n"
        "    print(json.dumps([sorted(reg.tool_names), said]))\n"
        "asyncio.run(main())\n"
    )
    proc = subprocess.run([os.environ["NANOMEM_NANOBOT_PYTHON"], "-c", script, json.dumps(config)],
                          capture_output=True, text=True, timeout=120,
                          env={**base_env(), "HOME": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    names, said = json.loads(proc.stdout.splitlines()[-1])
    assert {f"mcp_nanomem_{name}" for name in TOOLS} <= set(names)
    assert "mcp_nanomem_resource_USER_md" in names
    assert said.startswith("**Remembered** as history entry 1")
    assert history_lines(ws)[-1]["content"] == "- [durable] Prefers tea."
