"""The one JSON form of result records (``nanomem.records.to_json``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nanomem.dream.audit import Refusal
from nanomem.dream.run import DreamResult
from nanomem.records import to_json
from nanomem.versions.commits import CommitInfo, RestoreResult

SHA = "0123456789abcdef0123456789abcdef01234567"
COMMIT = CommitInfo(SHA, "restore: to 4f1c2ab", "why", "2026-11-30T16:40:00+00:00",
                    ("USER.md",), "-x\n", {"Batch": "1-2"}, ("f" * 40,))


def test_to_json_restore_result_gives_the_design_keys_and_the_commit() -> None:
    data = to_json(RestoreResult("restored", "4f1c2ab" + "0" * 33, ("USER.md",), COMMIT))

    assert {k: data[k] for k in ("sha", "subject", "time", "files", "diff", "status")} == {
        "sha": SHA, "subject": "restore: to 4f1c2ab", "time": "2026-11-30T16:40:00+00:00",
        "files": ["USER.md"], "diff": "-x\n", "status": "restored"}
    assert data["commit"]["trailers"] == {"Batch": "1-2"} and data["manual"] is None
    json.dumps(data)


def test_to_json_restore_with_nothing_to_do_has_no_commit() -> None:
    data = to_json(RestoreResult("nothing_to_do", None, ()))

    assert (data["sha"], data["diff"], data["files"], data["commit"]) == (None, "", [], None)


def test_to_json_leaves_out_fields_marked_not_json() -> None:
    refusal = Refusal("edit_file", "USER.md", "pinned line", arguments={"new_text": "secret"},
                      batch="1-2")

    data = to_json(DreamResult("no_changes", 1, 1, refused=(refusal,)))

    assert data["refused"] == [{"tool": "edit_file", "path": "USER.md", "reason": "pinned line"}]
    assert "secret" not in json.dumps(data)


def test_to_json_turns_paths_tuples_and_mappings_into_plain_json() -> None:
    assert to_json({"p": Path("/w/USER.md"), "t": (1, (2,)), "m": {3: None}}) == {
        "p": "/w/USER.md", "t": [1, [2]], "m": {"3": None}}


def test_to_json_refuses_a_value_without_a_json_form() -> None:
    with pytest.raises(TypeError, match="set has no JSON form"):
        to_json({"files": {"USER.md"}})
