"""Search priors of stop 25 (nanomem.search.prior): the speaker a question names, and long
replies that win on many weak matches."""

from __future__ import annotations

from nanomem.memory import Memory
from nanomem.search import prior
from tests.search_fixtures import mem  # noqa: F401 (a fixture)


def talk(mem: Memory, turns: list[tuple[str, str]], *, key: str = "chat", day: int = 8) -> None:
    """Archive ``turns`` (``(name, text)``, the user first, then in turn) as one chunk."""
    mem.archive.append_messages(
        [{"role": "user" if i % 2 == 0 else "assistant", "name": name, "content": text,
          "timestamp": f"2026-05-{day:02d}T09:{i:02d}:00"} for i, (name, text) in enumerate(turns)],
        session_key=key, start=0, chunk=f"{key}{day}")


def test_search_prefers_the_turn_of_the_speaker_the_question_names(mem: Memory) -> None:
    said = "Pickle chewed right through the blind cord this morning, the little menace"
    echo = ("Oh dear! Budgies chew on cords when they are bored, so a chewed cord is a sign your "
            "budgie wants more to chew: try a budgie-safe wooden toy")
    talk(mem, [("Wilhelmina", "morning. quick one about my budgie"), ("Quill", "Of course, go ahead."),
               ("Wilhelmina", said), ("Quill", echo)])

    texts = [h.text for h in mem.search("What did Wilhelmina's budgie chew?", k=4)]

    assert texts.index(said) < texts.index(echo)


def test_search_ranks_a_short_fact_above_a_long_reply_of_weak_matches(mem: Memory) -> None:
    fact = "we painted the shed a sage green on sunday, my dad brought his big ladder round, took all afternoon"
    reply = ("Lovely! A few tips for next time, since outdoor wood takes a beating: clean the "
             "timber first, let it dry for two days, sand any flaking patches, use a brush rather "
             "than a roller on rough boards, and pick an exterior paint with a microporous finish "
             "so the wood can breathe. Darker colours fade faster in full sun, a pale colour keeps a "
             "shed cooler inside, two thin coats beat "
             "one thick coat, and an autumn frost can spoil a coat that has not cured, so watch the "
             "forecast and keep the lid on the tin so the colour stays even. A garden bench can be done the "
             "same way, and a fence too, if the boards are sound and dry all the way through")
    talk(mem, [("Imke", fact), ("Bran", "Sounds like a good weekend."),
               ("Imke", "it was. anyway, different thing"), ("Bran", reply)])
    talk(mem, [("Imke", f"filler line number {i} about the bus, the rain and the kettle")
               if i % 2 == 0 else ("Bran", f"reply number {i}: the kettle, the rain, the bus")
               for i in range(20)], key="other", day=2)

    texts = [h.text for h in mem.search("what colour paint went on the garden shed?", k=4)]

    assert texts.index(fact) < texts.index(reply)


def test_prior_length_falls_past_long_full() -> None:
    assert prior.plan_length(prior.LONG_FULL, replies=False) == 1.0
    assert prior.plan_length(4 * prior.LONG_FULL, replies=False) == 0.5
    assert prior.plan_length(400.0, replies=True) == prior.REPLY_FLOOR


def test_prior_named_reads_latin_words_and_cjk_pairs() -> None:
    assert prior.plan_named("where did Imke's brother move?", "Imke")
    assert not prior.plan_named("where did her brother move?", "Imke")
    assert not prior.plan_named("where did Imke move?", None)
    assert prior.plan_named("桂芳的女儿在哪里上学？", "陈桂芳")
    assert not prior.plan_named("女儿在哪里上学？", "陈桂芳")
    assert not prior.plan_named("芳芳在哪里？", "陈桂芳")  # one character of the name is not it


def test_prior_speaker_boost_applies_to_archived_turns_only() -> None:
    docs = {1: ("archive", 12.0, ""), 2: ("archive", 12.0, ""), 3: ("file", 12.0, "")}
    out = prior.plan_priors({1: 1.0, 2: 1.0, 3: 1.0}, docs, "what did Imke say",
                            names={1: "Imke", 2: "Bran"})
    assert out == {1: prior.SPEAKER_BOOST, 2: 1.0, 3: 1.0}
