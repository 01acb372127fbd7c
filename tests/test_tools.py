"""The Dream tools: argument validation, exactly-once edits, write rules and the gates in use."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from nanomem.engines.chat import ToolCall
from nanomem.config import Config
from nanomem.dream.tools import (
    DREAM_TOOLS,
    TOOL_ARG_SCHEMAS,
    Finish,
    StagedFiles,
    ToolContext,
    execute_tool_call,
)

OPENAI_KEY = "sk-proj-" + "Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF"
USER = (
    "# User\n\n## Facts\n"
    "- Never call before 9:00 <!-- pin -->\n"
    "- Lives in Lisbon <!-- permanent -->\n"
    "- Likes tea\n"
)
MEMORY = "# Memory\n\n## Facts\n- Contract KX-7731 with Acme\n"
BATCH = (
    "[2026-11-30 10:00] (cursor 7)\n"
    "- [durable] Ana drinks green tea every morning\n"
    "- [durable] Contract KX-7731 budget is $4,500\n"
)


def staged_files() -> StagedFiles:
    return StagedFiles({"SOUL.md": "", "USER.md": USER, "memory/MEMORY.md": MEMORY})


def context(batch: str = BATCH, root: Path | None = None, **config: object) -> ToolContext:
    return ToolContext(batch, dataclasses.replace(Config(), **config), root)


def call(name: str, **arguments: object) -> ToolCall:
    return ToolCall("call-1", name, json.dumps(arguments))


# ------------------------------------------------------------------------------ definitions


def test_dream_tools_define_the_four_tools_with_strict_schemas() -> None:
    names = [tool["function"]["name"] for tool in DREAM_TOOLS]
    assert names == ["read_file", "edit_file", "write_file", "finish"]
    for tool in DREAM_TOOLS:
        parameters = tool["function"]["parameters"]
        assert tool["type"] == "function" and tool["function"]["description"]
        assert parameters["additionalProperties"] is False
        optional = {"uncertain", "question"} if tool["function"]["name"] == "edit_file" else set()
        assert parameters["required"] == [k for k in parameters["properties"] if k not in optional]
    assert TOOL_ARG_SCHEMAS["finish"]["properties"]["status"]["enum"] == [
        "updated",
        "no_changes_needed",
    ]


# ------------------------------------------------------------------------------ validation


@pytest.mark.parametrize(
    ("tool_call", "words"),
    [
        (ToolCall("c", "edit_file", "{not json"), "not valid JSON"),
        (ToolCall("c", "edit_file", "[1, 2]"), "must be of type object"),
        (call("edit_file", path="USER.md", old_text="Likes tea"), "'new_text' is a required"),
        (call("read_file", path="USER.md", mode="r"), "'mode' was unexpected"),
        (call("write_file", path="USER.md", content=42), "'content' must be of type string"),
        (call("finish", status="done", note=""), "'status' must be 'updated' or 'no_changes_needed'"),
        (call("finish", status="updated"), "'note' is a required"),
        (call("edit_file", path="USER.md", old_text="", new_text="x"), "'old_text' must not be empty"),
        (call("read_file", path="x" * 300), "'path' is longer than 256"),
    ],
)
def test_execute_tool_call_refuses_invalid_arguments_naming_tool_and_problem(
    tool_call: ToolCall, words: str
) -> None:
    staged = staged_files()
    outcome = execute_tool_call(tool_call, staged, context())
    assert not outcome.accepted and outcome.finish is None
    assert outcome.reason is not None and outcome.reason.startswith(f"{tool_call.name}: ")
    assert words in outcome.reason
    assert outcome.result == f"error: {outcome.reason}"
    assert staged.changed_paths() == []


@pytest.mark.parametrize("arguments", [42, ["path"], {"path": "USER.md"}])
def test_execute_tool_call_refuses_arguments_that_are_not_a_json_string(arguments: object) -> None:
    staged = staged_files()
    tool_call = ToolCall("c", "read_file", arguments)  # type: ignore[arg-type] - what a bad engine sends

    outcome = execute_tool_call(tool_call, staged, context())

    assert not outcome.accepted
    assert outcome.result == "error: read_file: arguments are not a JSON string; send one JSON object"
    assert staged.changed_paths() == []


def test_execute_tool_call_refuses_unknown_tool() -> None:
    outcome = execute_tool_call(call("delete_file", path="USER.md"), staged_files(), context())
    assert not outcome.accepted
    assert outcome.reason == (
        "unknown tool 'delete_file'; use read_file, edit_file, write_file or finish"
    )


# ------------------------------------------------------------------------------ read_file


def test_read_file_returns_staged_text_including_earlier_edits() -> None:
    staged = staged_files()
    edit = call("edit_file", path="USER.md", old_text="- Likes tea\n", new_text="- Likes green tea\n")
    assert execute_tool_call(edit, staged, context()).accepted
    outcome = execute_tool_call(call("read_file", path="./USER.md"), staged, context())
    assert outcome.accepted and outcome.path == "USER.md"
    assert outcome.result == USER.replace("Likes tea", "Likes green tea")


def test_read_file_says_when_file_is_empty() -> None:
    outcome = execute_tool_call(call("read_file", path="SOUL.md"), staged_files(), context())
    assert outcome.accepted and outcome.result == "(SOUL.md is empty)"


def test_read_file_refuses_history_file() -> None:
    outcome = execute_tool_call(call("read_file", path="memory/history.jsonl"), staged_files(), context())
    assert not outcome.accepted and "not a memory file" in outcome.result


# ------------------------------------------------------------------------------ edit_file


def test_edit_file_applies_exactly_once_match_and_reports_delta() -> None:
    staged = staged_files()
    edit = call(
        "edit_file",
        path="USER.md",
        old_text="- Likes tea\n",
        new_text="- Likes tea\n- Drinks green tea every morning\n",
    )
    outcome = execute_tool_call(edit, staged, context())
    assert outcome.accepted, outcome.reason
    assert staged.read("USER.md").endswith("- Likes tea\n- Drinks green tea every morning\n")
    assert outcome.result.startswith("ok: edited USER.md (+1 -0 lines; ")
    assert staged.changed_paths() == ["USER.md"]
    assert staged.originals["USER.md"] == USER


@pytest.mark.parametrize(("old", "count"), [("- Drinks coffee\n", 0), ("- L", 2), ("aa", 2)])
def test_edit_file_refuses_old_text_not_matching_exactly_once(old: str, count: int) -> None:
    staged = StagedFiles({"USER.md": USER + "- aaa\n"})
    outcome = execute_tool_call(
        call("edit_file", path="USER.md", old_text=old, new_text="x"), staged, context()
    )
    assert not outcome.accepted
    assert f"old_text matches {count} times in USER.md; it must match exactly once" in outcome.result
    assert staged.changed_paths() == []


def test_edit_file_refuses_equal_old_and_new_text() -> None:
    staged = staged_files()
    outcome = execute_tool_call(
        call("edit_file", path="USER.md", old_text="- Likes tea", new_text="- Likes tea"),
        staged,
        context(),
    )
    assert not outcome.accepted and "no change" in outcome.result
    assert staged.changed_paths() == []


def test_edit_file_on_empty_file_points_to_write_file() -> None:
    outcome = execute_tool_call(
        call("edit_file", path="SOUL.md", old_text="## Behaviour", new_text="## Behaviour\n- x"),
        staged_files(),
        context(),
    )
    assert not outcome.accepted and "use write_file" in outcome.result


# ------------------------------------------------------------------------------ write_file


def test_write_file_creates_empty_file() -> None:
    staged = staged_files()
    content = "# Soul\n\n## Behaviour\n- Answer briefly\n"
    outcome = execute_tool_call(call("write_file", path="SOUL.md", content=content), staged, context())
    assert outcome.accepted, outcome.reason
    assert outcome.result.startswith("ok: wrote SOUL.md (+4 -0 lines; ")
    assert staged.read("SOUL.md") == content


def test_write_file_accepts_rewrite_that_passes_every_gate() -> None:
    staged = staged_files()
    content = USER.replace("- Likes tea\n", "- Likes green tea every morning\n")
    outcome = execute_tool_call(call("write_file", path="USER.md", content=content), staged, context())
    assert outcome.accepted, outcome.reason
    assert staged.read("USER.md") == content


def test_write_file_refuses_rewrite_dropping_pinned_line() -> None:
    staged = staged_files()
    content = "# User\n\n## Facts\n- Lives in Lisbon <!-- permanent -->\n- Likes tea\n"
    outcome = execute_tool_call(call("write_file", path="USER.md", content=content), staged, context())
    assert not outcome.accepted and "pinned" in outcome.result
    assert staged.read("USER.md") == USER


def test_write_file_refuses_identical_content() -> None:
    outcome = execute_tool_call(call("write_file", path="USER.md", content=USER), staged_files(), context())
    assert not outcome.accepted and "no change" in outcome.result


# ------------------------------------------------------------------------------ finish


def test_finish_returns_structured_signal_with_redacted_note() -> None:
    note = f"added the tea fact; ignored key {OPENAI_KEY}"
    outcome = execute_tool_call(call("finish", status="updated", note=note), staged_files(), context())
    assert outcome.accepted and outcome.path is None
    assert outcome.finish == Finish("updated", "added the tea fact; ignored key [REDACTED:openai-key]")
    assert outcome.result == "ok: finished (updated)"


# ------------------------------------------------------------------------------ the gates at work

FORBIDDEN = [
    ("escape the workspace", call("write_file", path="../outside.md", content="x"), "'..'"),
    ("absolute path", call("write_file", path="/etc/passwd", content="x"), "absolute path"),
    ("rewrite history", call("write_file", path="memory/history.jsonl", content="{}"), "not a memory file"),
    ("move the cursor", call("write_file", path="memory/.dream_cursor", content="999"), "not a memory file"),
    ("rewrite config", call("write_file", path="nanomem.toml", content=""), "not a memory file"),
    ("change the prompt", call("write_file", path="prompts/dream.md", content="obey"), "not a memory file"),
    (
        "blow the size cap",
        call("edit_file", path="USER.md", old_text="- Likes tea\n", new_text="- Likes tea\n" + "- tea\n" * 900),
        "over its cap",
    ),
    (
        "remove a pinned line",
        call("edit_file", path="USER.md", old_text="- Never call before 9:00 <!-- pin -->\n", new_text=""),
        "pinned",
    ),
    (
        "reword a permanent fact",
        call("edit_file", path="USER.md", old_text="Lives in Lisbon", new_text="Lives in Porto"),
        "permanent fact",
    ),
    (
        "wipe most of a file",
        call("write_file", path="memory/MEMORY.md", content="# Memory\n"),
        "deletion guard",
    ),
    (
        "invent an identifier",
        call("edit_file", path="memory/MEMORY.md", old_text="KX-7731", new_text="KX-7713"),
        "traceability",
    ),
    (
        "invent a number",
        call("edit_file", path="memory/MEMORY.md", old_text="with Acme\n", new_text="with Acme, budget $5,000\n"),
        "traceability",
    ),
    (
        "store a secret",
        call("edit_file", path="USER.md", old_text="- Likes tea\n", new_text=f"- Likes tea\n- key {OPENAI_KEY}\n"),
        "secrets",
    ),
    (
        "pin its own line",
        call("edit_file", path="USER.md", old_text="- Likes tea\n", new_text="- Likes tea <!-- pin -->\n"),
        "only a person pins",
    ),
    ("no-op edit", call("edit_file", path="USER.md", old_text="tea", new_text="tea"), "no change"),
    ("bad status", call("finish", status="probably", note=""), "invalid arguments"),
]


def test_model_trying_each_forbidden_thing_once_changes_nothing_and_can_recover() -> None:
    staged = staged_files()
    ctx = context(file_caps={"USER.md": 2_000})
    for label, tool_call, words in FORBIDDEN:
        outcome = execute_tool_call(tool_call, staged, ctx)
        assert not outcome.accepted, label
        assert outcome.reason is not None and words in outcome.reason, (label, outcome.reason)
        assert outcome.result == f"error: {outcome.reason}"
    assert staged.changed_paths() == []
    good = call(
        "edit_file",
        path="memory/MEMORY.md",
        old_text="with Acme\n",
        new_text="with Acme, budget $4,500\n",
    )
    assert execute_tool_call(good, staged, ctx).accepted
    assert staged.changed_paths() == ["memory/MEMORY.md"]


def test_deletion_guard_holds_across_many_small_edits() -> None:
    original = "# Memory\n\n## Facts\n" + "".join(f"- fact number {n}\n" for n in range(1, 7))
    staged = StagedFiles({"memory/MEMORY.md": original})
    outcomes = [
        execute_tool_call(
            call("edit_file", path="memory/MEMORY.md", old_text=f"- fact number {n}\n", new_text=""),
            staged,
            context(batch=""),
        )
        for n in range(1, 7)
    ]
    # 8 non-blank lines at the start, share 0.5: 4 may go, the 5th and 6th removals are refused.
    assert [outcome.accepted for outcome in outcomes] == [True, True, True, True, False, False]
    assert "remove 5 of the 8 lines" in (outcomes[4].reason or "")
    assert staged.read("memory/MEMORY.md").count("- fact number") == 2


def test_permanent_fact_changes_when_batch_holds_matching_correction() -> None:
    staged = staged_files()
    batch = BATCH + "- [correction] actually Ana moved from Lisbon to Porto\n"
    outcome = execute_tool_call(
        call("edit_file", path="USER.md", old_text="Lives in Lisbon", new_text="Lives in Porto"),
        staged,
        context(batch=batch),
    )
    assert outcome.accepted, outcome.reason
    assert "- Lives in Porto <!-- permanent -->" in staged.read("USER.md")


@pytest.mark.parametrize(
    "secret",
    [OPENAI_KEY, "sk_live_51H8xYzQ4vLp9Tr2Wm7Kc3Nb6", "hf_Xq7WmR2tLp9Vz4Kc8Nb3Jd6Fg1Hs5Ae0Yu",
     "3f9c7e5b1d8f2a4c6e9b3d7f1a5c8e20", "GOCSPX-1a2B3c4D5e6F7g8H9i0J1k2L3m"],
)
def test_refusals_never_contain_a_secret(secret: str) -> None:
    staged = staged_files()
    attempts = [
        ToolCall("c", secret, "{}"),
        call("read_file", path=secret),
        call("write_file", path=f"memory/{secret}.md", content="x"),
        call("finish", status=secret, note="x"),
        call("edit_file", path="USER.md", old_text=secret, new_text="x"),
        call("write_file", path="SOUL.md", content=f"- token {secret}\n"),
        call("edit_file", path="USER.md", old_text="Likes tea", new_text=f"Likes tea {secret}"),
        call("read_file", path="USER.md", extra=secret),
    ]
    for attempt in attempts:
        outcome = execute_tool_call(attempt, staged, context())
        assert not outcome.accepted
        recorded = json.dumps(
            [outcome.tool, outcome.path, outcome.result, outcome.reason, dict(outcome.arguments or {})]
        )
        assert secret not in recorded, recorded
        assert secret[4:20] not in recorded, recorded
    assert staged.changed_paths() == []


# ------------------------------------------------------------------------------ symlinks


def test_symlinked_memory_file_leading_outside_workspace_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    outside = tmp_path / "elsewhere.md"
    outside.write_text("- secret plans\n", encoding="utf-8")
    (root / "USER.md").symlink_to(outside)
    (root / "SOUL.md").write_text("", encoding="utf-8")
    staged = StagedFiles({"USER.md": "- secret plans\n", "SOUL.md": ""})
    ctx = context(root=root)
    refused = execute_tool_call(call("read_file", path="USER.md"), staged, ctx)
    assert not refused.accepted and "outside the workspace" in refused.result
    accepted = execute_tool_call(call("write_file", path="SOUL.md", content="- Answer briefly\n"), staged, ctx)
    assert accepted.accepted, accepted.reason
    assert outside.read_text(encoding="utf-8") == "- secret plans\n"


def test_symlinked_memory_file_into_history_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    (root / "memory" / "history.jsonl").write_text("", encoding="utf-8")
    (root / "USER.md").symlink_to(root / "memory" / "history.jsonl")
    outcome = execute_tool_call(
        call("write_file", path="USER.md", content="- x\n"), StagedFiles({"USER.md": ""}), context(root=root)
    )
    assert not outcome.accepted and "memory/history.jsonl" in outcome.result
