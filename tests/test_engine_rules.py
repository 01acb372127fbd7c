"""The pure engine rules: refusals and fallbacks, text tool calls, quirks, windows, the registry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nanomem import config as config_module
from nanomem.config import Config, load_config
from nanomem.engines.chat import ChatRequest, ChatResponse, ToolCall
from nanomem.engines.notes import EndpointNotes, read_notes, render_notes
from nanomem.engines.offline.engine import NOT_A_CHAT_MODEL, OfflineEngine
from nanomem.engines.quirks import diagnose, prompt_truncated
from nanomem.engines.refusals import apply_fallbacks, fallback_for, refused_field, step_key
from nanomem.engines.registry import engine_names, make_engine, register_engine
from nanomem.engines.textcalls import ID_PATTERN, parse_text_tool_calls, strip_think
from nanomem.engines.window import ContextWindow, parse_models_window, parse_ollama_show
from nanomem.engines.wire import build_request_body, parse_response
from nanomem.errors import ConfigError

FINISH = {"type": "function", "function": {"name": "finish", "parameters": {
    "type": "object", "properties": {"status": {"enum": ["updated", "no_changes_needed"]},
                                     "note": {"type": "string"}},
    "required": ["status"], "additionalProperties": False}}}
EDIT = {"type": "function", "function": {"name": "edit_file", "parameters": {
    "type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}}
TOOLS = (FINISH, EDIT)


# ------------------------------------------------------------------ refusals
def test_fallback_steps_follow_one_ladder_per_field() -> None:
    assert fallback_for("max_tokens", 9) == "rename:max_completion_tokens"
    assert fallback_for("max_completion_tokens", 9) == "omit"
    assert fallback_for("temperature", 0.0) == "omit"
    assert fallback_for("parallel_tool_calls", False) == "omit"
    assert fallback_for("tool_choice", "required", TOOLS) == "set:auto"
    assert fallback_for("tool_choice", "required", (FINISH,)) == "set:named"
    assert fallback_for("tool_choice", {"type": "function"}, TOOLS) == "set:auto"
    assert fallback_for("tool_choice", "auto", TOOLS) == "omit"
    assert fallback_for("provider", {}) is None  # a [provider.body] field is never dropped


def test_apply_fallbacks_chains_tool_choice_down_to_omitted() -> None:
    body = {"model": "m", "messages": [], "tools": list(TOOLS), "tool_choice": "required"}
    steps = {"tool_choice=required": "set:auto", "tool_choice=auto": "omit"}
    assert "tool_choice" not in apply_fallbacks(body, steps)
    named = {"type": "function", "function": {"name": "archive"}}
    assert apply_fallbacks({**body, "tool_choice": named}, steps)["tool_choice"] == named


def test_step_keys_keep_tool_choice_kinds_apart() -> None:
    assert step_key("tool_choice", "required") == "tool_choice=required"
    assert step_key("tool_choice", {"type": "function"}) == "tool_choice=function"
    assert step_key("temperature", 0.0) == "temperature"


def test_refused_field_prefers_param_then_the_first_field_named() -> None:
    sent = {"temperature": 0, "max_tokens": 9}
    assert refused_field(400, {"error": {"message": "x", "param": "temperature"}}, sent) == "temperature"
    text = {"error": {"message": "max_tokens and temperature are not supported"}}
    assert refused_field(400, text, sent) == "max_tokens"
    assert refused_field(500, text, sent) is None
    assert refused_field(400, {"error": {"message": "messages[2] is bad"}}, {"messages": []}) is None


# ------------------------------------------------------------------ text tool calls
@pytest.mark.parametrize("content", [
    '<tool_call>\n{"name": "finish", "arguments": {"status": "updated"}}\n</tool_call>',
    'Sure.\n<tool_call>{"name": "finish", "arguments": "{\\"status\\": \\"updated\\"}"}</tool_call>',
    '[TOOL_CALLS][{"name": "finish", "arguments": {"status": "updated"}}]',
    '<|python_tag|>{"name": "finish", "parameters": {"status": "updated"}}<|eom_id|>',
    '{"name": "finish", "parameters": {"status": "updated"}}',
    '```json\n{"name": "finish", "arguments": {"status": "updated"}}\n```',
    '<function=finish>{"status": "updated"}</function>',
    '<think>let me see</think><tool_call>{"name": "finish", "arguments": {"status": "updated"}}</tool_call>',
])
def test_text_tool_calls_are_read_in_the_common_formats(content: str) -> None:
    calls = parse_text_tool_calls(content, TOOLS, seed="s")
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [("finish", {"status": "updated"})]
    assert ID_PATTERN.match(calls[0].id)


@pytest.mark.parametrize("content", [
    "I will call finish with status updated.",                                  # prose
    '<tool_call>{"name": "finish", "arguments": {"status": "maybe"}}</tool_call>',  # schema
    '<tool_call>{"name": "delete_all", "arguments": {}}</tool_call>',           # unknown tool
    '<tool_call>{"name": "finish", "arguments": {"status": "upd</tool_call>',  # not JSON
    'Here: {"name": "finish", "arguments": {"status": "updated"}}',             # JSON inside prose
    '<tool_call>{"name": "finish", "arguments": {"status": "updated"}}</tool_call>'
    '<tool_call>{"name": "edit_file", "arguments": {}}</tool_call>',             # one of two invalid
])
def test_text_tool_calls_are_refused_unless_every_one_validates(content: str) -> None:
    assert parse_text_tool_calls(content, TOOLS) == ()


def test_several_text_tool_calls_keep_their_order_and_get_distinct_ids() -> None:
    content = ('<tool_call>{"name": "edit_file", "arguments": {"path": "USER.md"}}</tool_call>\n'
               '<tool_call>{"name": "finish", "arguments": {"status": "updated"}}</tool_call>')
    calls = parse_text_tool_calls(content, TOOLS, seed="r1")
    assert [c.name for c in calls] == ["edit_file", "finish"]
    assert len({c.id for c in calls}) == 2


def test_strip_think_removes_blocks_and_a_template_opened_one() -> None:
    assert strip_think("<think>a\nb</think>\n\nDone.") == "Done."
    assert strip_think("reasoning here</think>Done.") == "Done."
    assert strip_think("<think>never closed") == ""
    assert strip_think("No thinking.") == "No thinking."


def test_parse_response_keeps_reasoning_strips_think_and_reads_text_calls() -> None:
    body = {"choices": [{"message": {
        "content": '<think>hmm</think><tool_call>{"name": "finish", "arguments": '
                   '{"status": "updated"}}</tool_call>',
        "reasoning_content": "The user moved."}, "finish_reason": "stop"}]}
    reply = parse_response(body, tools=TOOLS, seed="x")
    assert [c.name for c in reply.tool_calls] == ["finish"]
    assert (reply.content, reply.finish_reason, reply.reasoning_content) == (
        None, "tool_calls", "The user moved.")
    assert parse_response(body).tool_calls == ()  # without the tools, text stays text
    assert parse_response(body).content == reply_text(body)


def reply_text(body: dict) -> str:
    return body["choices"][0]["message"]["content"].split("</think>", 1)[1]


def test_parse_response_replaces_ids_mistral_would_refuse() -> None:
    body = {"choices": [{"message": {"content": None, "tool_calls": [
        {"id": "call_0fypS1hVX", "function": {"name": "finish", "arguments": "{}"}},
        {"id": "abcDEF123", "function": {"name": "finish", "arguments": "{}"}}]}}]}
    first, second = parse_response(body, seed="1").tool_calls
    assert ID_PATTERN.match(first.id) and first.id != "call_0fypS1hVX"
    assert second.id == "abcDEF123"


def test_reasoning_content_goes_back_only_on_assistant_tool_call_turns() -> None:
    call = ToolCall("abcDEF123", "finish", "{}")
    turn = ChatResponse(None, (call,), "tool_calls", reasoning_content="why").assistant_message()
    text = {"role": "assistant", "content": "hi", "reasoning_content": "why"}
    body = build_request_body(ChatRequest(messages=({"role": "user", "content": "x"}, turn, text)),
                              model="m")
    assert body["messages"][1]["reasoning_content"] == "why"
    assert "reasoning_content" not in body["messages"][2]


# ------------------------------------------------------------------ quirks and windows
def test_diagnose_names_the_known_server_failures() -> None:
    assert diagnose(500, {"error": {"message": "tools param requires --jinja flag"}}).kind == \
        "llamacpp_needs_jinja"
    assert "--jinja" in diagnose(500, {"error": {"message": "Unsupported param: tools"}}).advice
    route = diagnose(404, {"error": {"message": "No endpoints found that support tool use. To "
                                                "learn more about provider routing", "code": 404}})
    assert route.kind == "openrouter_no_tool_route"
    groq = diagnose(400, {"error": {"message": "Failed to call a function.", "code": "tool_use_failed"}})
    assert groq.kind == "groq_tool_use_failed" and groq.retry_once
    assert diagnose(500, {"error": {"message": "out of memory"}}) is None
    assert diagnose(404, {"error": {"message": "model not found"}}) is None


def test_prompt_truncated_only_far_below_the_estimate() -> None:
    assert prompt_truncated(estimated=9000, reported=2048)
    assert not prompt_truncated(estimated=9000, reported=6000)
    assert not prompt_truncated(estimated=100, reported=10)


def test_context_window_parsers_read_each_servers_metadata() -> None:
    assert parse_models_window({"data": [{"id": "a", "context_length": 200000},
                                         {"id": "b", "max_model_len": 8192}]}, "b") == \
        ContextWindow(8192, "/models max_model_len")
    assert parse_models_window({"data": [{"id": "x", "meta": {"n_ctx_train": 32768}}]}, "y") == \
        ContextWindow(32768, "/models meta.n_ctx_train")  # llama.cpp serves one model
    assert parse_models_window({"data": [{"id": "gpt"}]}, "gpt") is None
    assert parse_ollama_show({"model_info": {"llama.context_length": 131072}}).tokens == 4096
    assert parse_ollama_show({"parameters": "num_ctx 16384"}).tokens == 16384
    assert parse_ollama_show({"error": "model not found"}) is None


# ------------------------------------------------------------------ notes
def test_endpoint_notes_are_kept_per_url_and_model(tmp_path: Path) -> None:
    path = tmp_path / ".provider_notes.json"
    EndpointNotes(path, "http://h/v1", "o3").record_step("max_tokens", "rename:max_completion_tokens", "use it")
    EndpointNotes(path, "http://h/v1", "gpt-4o").record_quirk("truncates_prompt", "cut")
    assert EndpointNotes(path, "http://h/v1", "o3").steps == {"max_tokens": "rename:max_completion_tokens"}
    assert EndpointNotes(path, "http://h/v1", "gpt-4o").steps == {}
    assert EndpointNotes(path, "http://other/v1", "o3").steps == {}
    lines = render_notes(read_notes(path))
    assert sorted(lines) == ["http://h/v1 gpt-4o: truncates_prompt (cut)",
                             "http://h/v1 o3: `max_tokens` is sent as `max_completion_tokens` (use it)"]


# ------------------------------------------------------------------ registry and dispatch
def test_registry_names_match_the_config_names() -> None:
    assert set(engine_names()) == set(config_module.PROVIDERS)


def test_make_engine_uses_a_registered_factory(tmp_path: Path) -> None:
    made = []
    register_engine("probe-only", lambda cfg, ws, opts: made.append(cfg) or OfflineEngine())
    try:
        import dataclasses
        engine = make_engine(dataclasses.replace(Config(), provider="probe-only"), tmp_path)
        assert isinstance(engine, OfflineEngine) and len(made) == 1
    finally:
        from nanomem.engines import registry
        registry._FACTORIES.pop("probe-only")


def test_offline_engine_dispatches_on_the_stage_not_the_task_type() -> None:
    import asyncio

    class Lookalike:  # a task of another type, named like nothing nanomem knows
        messages = ({"role": "user", "content": "My name is Ana."},)

    reply = asyncio.run(OfflineEngine().complete(
        ChatRequest(messages=(), task=Lookalike(), stage="consolidate")))
    assert [c.name for c in reply.tool_calls] == ["archive_history"]
    unstaged = asyncio.run(OfflineEngine().complete(ChatRequest(messages=(), task=Lookalike())))
    assert unstaged.content == NOT_A_CHAT_MODEL


# ------------------------------------------------------------------ configuration
def test_config_reads_stage_models_headers_query_and_body(tmp_path: Path) -> None:
    (tmp_path / "nanomem.toml").write_text(
        '[provider]\nname = "openai"\nbase_url = "https://r.openai.azure.com/openai/deployments/d"\n'
        'model = "gpt-4o"\nconsolidate_model = "small"\nauth_header = "api-key"\n'
        '[provider.headers]\n"X-Title" = "nanomem"\n"X-Gateway-Token" = { env = "GW_TOKEN" }\n'
        '[provider.query]\napi-version = "2024-10-21"\n'
        '[provider.body]\nprovider = { require_parameters = true }\n', encoding="utf-8")
    cfg = load_config(tmp_path, environ={"GW_TOKEN": "tok-Zq9SECRET", "NANOMEM_DREAM_MODEL": "big"})
    assert (cfg.consolidate_model, cfg.dream_model, cfg.auth_header) == ("small", "big", "api-key")
    assert dict(cfg.headers) == {"X-Title": "nanomem", "X-Gateway-Token": "tok-Zq9SECRET"}
    assert dict(cfg.query) == {"api-version": "2024-10-21"}
    assert dict(cfg.extra_body) == {"provider": {"require_parameters": True}}
    assert cfg.secrets == ("tok-Zq9SECRET",)
    assert "tok-Zq9SECRET" not in repr(cfg)


def test_config_refuses_a_literal_secret_in_nanomem_toml(tmp_path: Path) -> None:
    (tmp_path / "nanomem.toml").write_text(
        '[provider]\nname = "openai"\nbase_url = "http://h/v1"\nmodel = "m"\n'
        '[provider.headers]\n"api-key" = "sk-literal"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"line 6: \[provider.headers\] 'api-key' holds a literal "
                                          r"secret; write api-key = \{ env"):
        load_config(tmp_path, environ={})


def test_config_names_a_missing_environment_variable(tmp_path: Path) -> None:
    (tmp_path / "nanomem.toml").write_text(
        '[provider.headers]\n"X-Token" = { env = "NOT_SET_ANYWHERE" }\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="NOT_SET_ANYWHERE"):
        load_config(tmp_path, environ={})
