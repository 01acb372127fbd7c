"""Session 27 (round-15 study): facts inside pasted code and config, a speaker who types in
capitals, requests bound to what the agent does, Chinese present states, mix-ups admitted, and
three kinds of junk (a weekday in a story, an apology for what is sent, help asked with a piece
of work). Every sentence here is new: none is copied from a conversation."""

from __future__ import annotations

import pytest

from nanomem.engines.offline.answer_style import is_style_request
from nanomem.engines.offline.routing import route_fact
from nanomem.engines.offline.engine import extract_facts
from nanomem.engines.offline.extract import classify_sentence
from nanomem.engines.offline.snippets import block_statements, is_identity_field
from nanomem.engines.offline.tasks import is_task_request
from nanomem.engines.offline.tense import is_narrative
from nanomem.text.filler import nonfact_reason


# --- facts inside a pasted block ----------------------------------------------------------------

def test_a_comment_in_a_block_is_judged_like_a_sentence() -> None:
    message = ("why does this not start\n```yaml\nservices:\n  web:\n    image: nginx:1.25\n    ports: [\"8080:80\"]\n"
               "  # my flat in Dunedin has no lift so the server lives under the stairs\n```\n")
    assert extract_facts([message]) == [  # the code lines are no statement, the comment is
        ("durable", "my flat in Dunedin has no lift so the server lives under the stairs")]


def test_a_comment_after_code_states_a_time() -> None:
    message = "```\n30 7 * * 1  /srv/report.sh   # weekly review is 07:30 on Mondays, keep it\n```"
    assert [mark for mark, _ in extract_facts([message])] == ["durable"]


@pytest.mark.parametrize("line, expected", [
    ("    name = Ines Okonkwo", True),
    ('  "email": "ines@ferrylane.example",', True),
    ("owner: Ines Okonkwo", True),
    ("name: worker", False),
    ("hostname = db-02", False),
    ("author:", False),
])
def test_an_identity_field_names_a_person(line: str, expected: bool) -> None:
    assert is_identity_field(line) is expected


def test_a_config_block_keeps_its_identity_fields_for_the_person() -> None:
    message = "```ini\n[user]\n    name = Ines Okonkwo\n    email = ines@ferrylane.example\n[core]\n    editor = vim\n```"
    facts = extract_facts([message])
    assert [text for _, text in facts] == ["name = Ines Okonkwo", "email = ines@ferrylane.example"]
    assert {route_fact(text) for _, text in facts} == {"USER.md"}


def test_a_first_person_row_of_a_pasted_list_is_judged() -> None:
    body = ("guest: Ines | diet: sesame allergy (bad one, it put me in A&E) | seat: aisle\n"
            "guest: Rua | diet: none | seat: window")
    assert block_statements(body) == ["guest: Ines | diet: sesame allergy (bad one, it put me in A&E) | seat: aisle"]


# --- a speaker who types in capitals ---------------------------------------------------------

def test_a_story_in_capitals_is_a_story() -> None:
    assert extract_facts(["IN 1988 WE HAD A FLOOD SO HIGH THE CHICKENS SAT ON THE ROOF FOR TWO DAYS"]) == []


def test_a_fact_in_capitals_is_kept_in_capitals_beside_a_story() -> None:
    message = "IN 1988 WE HAD A FLOOD SO HIGH THE CHICKENS SAT ON THE ROOF FOR TWO DAYS. MY SON IS CALLED BOHDAN"
    assert [text for _, text in extract_facts([message])] == ["MY SON IS CALLED BOHDAN"]


# --- requests bound to what the agent does ---------------------------------------------------

@pytest.mark.parametrize("sentence", [
    "when you show me the phone settings please one screen at a time",
    "and please no long words when you reply",
    "以后给我讲题先说答案 再讲步骤",
    "以后做表格的时候日期那列帮我标红",
])
def test_a_request_bound_to_the_agents_act_is_a_style_request(sentence: str) -> None:
    assert is_style_request(sentence)
    assert classify_sentence(sentence) == "durable"
    assert not is_style_request("please water the ferns when you visit")  # a condition on something else


# --- time: a weekday in a story, this coming weekday -------------------------------------------

def test_a_weekday_in_one_past_occasion_is_no_habit() -> None:
    assert classify_sentence("years ago at my old job I deleted the prod table on a Friday night.") is None
    assert classify_sentence("Choir is on Friday nights at the chapel.") == "durable"


def test_this_coming_weekday_is_near_term_but_a_birthday_is_kept() -> None:
    assert classify_sentence("This coming Thursday the school is holding a bake sale and I said I would help.") == "ephemeral"
    assert classify_sentence("also Priya's birthday is on Thursday, this coming Thursday, and I have nothing") != "ephemeral"


# --- junk: an apology for what is sent, help asked with a piece of work, a token typed by mistake

def test_an_apology_for_what_is_sent_is_filler_whatever_its_number() -> None:
    assert nonfact_reason("sorry in advance for pasting 250 lines of stack trace at you") == "filler"
    assert nonfact_reason("Sorry, the code is 4471.") is None


def test_help_asked_with_a_piece_of_work_is_a_task() -> None:
    assert is_task_request("can you help me write a thank you card for my neighbour who is turning 90")
    assert not is_task_request("can you help me remember that my neighbour is turning 90")


def test_a_token_typed_in_the_wrong_terminal_is_a_secret_slip() -> None:
    assert nonfact_reason("ugh wrong terminal, that was my real token, rotating it now") == "secret-placeholder"


# --- corrections: a mix-up, a slip of the hand, a move done -----------------------------------

@pytest.mark.parametrize("message", [
    "My daughter checked and says I had it mixed up. The box says 50 mg.",
    "I fat-fingered the door code, two digits are the other way round. It is 7314.",
])
def test_an_admitted_mix_up_makes_the_next_value_a_correction(message: str) -> None:
    assert [mark for mark, _ in extract_facts([message])] == ["correction"]


def test_a_chinese_present_state_is_no_past() -> None:
    assert not is_narrative("终于办完手续了 现在住南区七号楼")
    assert not is_narrative("领队说了 集合地点以后挪到北门")
    assert is_narrative("昨天下雨了")
    assert is_narrative("小时候掉进过河里，到现在都怕水")  # "to this day" tells the story's aftermath


def test_a_chinese_move_done_then_the_new_home_is_a_correction() -> None:
    facts = extract_facts(["搬完了！！累死 现在住东苑八号楼 离食堂近多了"])
    assert facts == [("correction", "累死 现在住东苑八号楼 离食堂近多了")]


def test_a_chinese_report_frame_ends_at_a_pause() -> None:
    assert classify_sentence("教练今天在群里说了 训练以后挪到体育馆三楼") == "correction"


# --- asking without a question mark ------------------------------------------------------------

@pytest.mark.parametrize("sentence", [
    "how far is a 3 hour hike roughly",
    "do I need to bring 2 towels to the spa",
    "对了 你那个签证3号办了没",
    "周五的课要带2个计算器吗",
])
def test_a_question_without_its_mark_is_no_fact(sentence: str) -> None:
    assert classify_sentence(sentence) is None


def test_a_statement_before_an_unmarked_chinese_question_is_kept() -> None:
    assert extract_facts(["我有哮喘 一直用沙丁胺醇气雾剂 那边药店能买到吗"]) == [
        ("permanent", "我有哮喘 一直用沙丁胺醇气雾剂")]
    assert classify_sentence("when I was little we lived in Rome for 6 years") is not None  # a clause of when, no question


# --- more shapes: a frame before a colon, a leave-taking, a self-introduction label, ground rules

def test_what_was_done_this_morning_before_a_colon_is_the_frame() -> None:
    # its time word says when the work was done, not that the fact is near-term
    assert classify_sentence("deployed the upgrade this morning: every node runs Redis 7.2 now and the old 6.2 "
                             "images are deleted.") in {"durable", "correction"}


def test_a_leave_taking_is_no_fact() -> None:
    assert classify_sentence("I better go and wait for the plumber.") is None


def test_a_self_introduction_by_its_label_is_identity() -> None:
    assert classify_sentence("先报个名：林语桐，川大法学大二，以后论文全靠你了") == "permanent"
    assert classify_sentence("quick intro: Mira Sandoval, I run a bike shop in Tucson") == "permanent"


def test_ground_rules_for_the_agent_are_a_style_request() -> None:
    assert is_style_request("ground rules, since we will talk a lot: summary first, details after.")


def test_a_chinese_home_without_its_subject_corrects_the_old_home() -> None:
    from nanomem.engines.offline.dream import find_corrected

    files = {"USER.md": "# User\n\n## Facts\n- 我现在住西区三号楼，八人间，晚上十一点熄灯\n",
             "memory/MEMORY.md": "# Memory\n\n## Facts\n- 我考研想考浙江大学\n"}
    found = find_corrected("终于从八人间出来了 现在住东苑五号楼 两人间", files)
    assert found == ("USER.md", "- 我现在住西区三号楼，八人间，晚上十一点熄灯")


def test_an_ongoing_job_at_weekends_is_a_habit_not_this_weekend() -> None:
    assert classify_sentence("周末我在做兼职 教两个小孩英语 一小时90") == "durable"
    assert classify_sentence("周末我在家休息") == "ephemeral"
