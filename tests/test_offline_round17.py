"""Session 31 (round-17 study): a speaker who writes Shanghainese is judged as Mandarin (阿拉, 侬,
辣, 额, 覅 … read as 我的 / 我们, 你, 在, 的, 别), and what is kept is their own text; a weekday said
as a plural or with a part of the day recurs, and a request for such a time put as a question is
a request. Every sentence here is new: none is copied from a conversation."""

from __future__ import annotations

import pytest

from nanomem.engines.offline.engine import extract_dated_facts, extract_facts
from nanomem.engines.offline.extract import classify_sentence
from nanomem.engines.offline.asking import asks_without_mark
from nanomem.engines.offline.hypothetical import tells_a_dream
from nanomem.engines.offline.informative import is_of_the_moment
from nanomem.engines.offline.mail import is_chain_letter
from nanomem.engines.offline.snippets import is_identity_field
from nanomem.engines.offline.spelled_out import spelled_out
from nanomem.engines.offline.terse import is_conditional_instruction
from nanomem.text.wu import fold_wu, writes_wu


# --- Shanghainese read as Mandarin -----------------------------------------------------------------

@pytest.mark.parametrize("texts, wu", [
    (["今朝落雨 侬带伞了伐"], True),
    (["阿拉儿子辣复旦读书"], True),
    (["伊拉两家头覅吵了"], True),
    (["我喜欢吃辣的 金额三百"], False),
    (["阿拉伯数字写起来方便"], False),
    (["阿拉斯加的雪很大", "伊朗的地毯"], False),
])
def test_a_speaker_writes_shanghainese_by_a_word_mandarin_never_uses(texts: list[str], wu: bool) -> None:
    assert writes_wu(texts) is wu


def test_the_fold_keeps_every_position() -> None:
    text = "阿拉老公辣浦东上班额 交关远 覅讲了"
    folded = fold_wu(text)
    assert len(folded) == len(text)
    assert folded == "我的老公在浦东上班的 非常远 别讲了"


def test_taste_and_amounts_are_not_read_as_dialect() -> None:
    assert fold_wu("侬欢喜吃麻辣烫好伐 辣椒放多点 金额两百 额度够额") == "你喜欢吃麻辣烫好吗 辣椒放多点 金额两百 额度够的"


@pytest.mark.parametrize("message, kept", [
    ("阿拉儿子辣交大读博士 学机械额", "阿拉儿子辣交大读博士 学机械额"),
    ("阿拉爸爸住辣嘉定额养老院 伊八十七了", "阿拉爸爸住辣嘉定额养老院 伊八十七了"),
    ("以后侬写数字覅写大写 阿拉看勿惯", "以后侬写数字覅写大写 阿拉看勿惯"),
])
def test_a_shanghainese_statement_is_kept_in_the_speakers_words(message: str, kept: str) -> None:
    assert [text for _, text in extract_facts([message])] == [kept]


def test_a_line_in_mandarin_words_is_read_as_dialect_when_the_speaker_writes_shanghainese() -> None:
    # the second message shows Shanghainese (侬); the first only 欢喜, which Mandarin uses too
    hobby = "阳台上养了两只八哥 我从小就欢喜"
    assert [text for _, text, _ in extract_dated_facts([(hobby, None), ("侬好 谢谢侬", None)])] == [hobby]
    assert extract_dated_facts([(hobby, None), ("你好 谢谢你", None)]) == []


# --- a weekday said as a plural or with a part of the day recurs ------------------------------------

@pytest.mark.parametrize("sentence", [
    "Please email me the match reports on Sundays.",
    "send me the shopping list sunday mornings",
])
def test_a_plural_weekday_makes_a_request_last(sentence: str) -> None:
    assert classify_sentence(sentence) == "durable"


@pytest.mark.parametrize("sentence", [
    "And could you text me the pool timetable on Tuesday evenings?",
    "Could you send me the week's menu every Thursday?",
    "could you ping me the rota on Sundays?",
])
def test_a_request_for_a_recurring_time_put_as_a_question_is_a_request(sentence: str) -> None:
    assert classify_sentence(sentence) == "durable"
    one_off = sentence.split(" on ")[0].split(" every ")[0] + "?"  # the same request, once
    assert classify_sentence(one_off) is None


# --- a condition on the agent without its comma -----------------------------------------------------

@pytest.mark.parametrize("sentence", [
    "when i ask about the allotment no need to tell me the latin names",
    "if i ask you for a recipe don't convert the cups to grams",
    "When I ask for the forecast never give me the pollen count",
])
def test_a_condition_on_the_agent_then_a_word_of_telling_not_to_is_a_standing_instruction(sentence: str) -> None:
    assert is_conditional_instruction(sentence)
    assert classify_sentence(sentence) == "durable"


# --- a name's "'s" before "my", a relative with no "my" ---------------------------------------------

@pytest.mark.parametrize("sentence, written", [
    ("Pepper's our collie, rescued from Bolton.", "Pepper is our collie, rescued from Bolton."),
    ("and Tilly's my old mare", "and Tilly is my old mare"),
    ("husband is Gareth, drives for Stagecoach", "my husband is Gareth, drives for Stagecoach"),
    ("Daughter's Freya, she's at uni in Dundee.", "my Daughter's Freya, she's at uni in Dundee."),
    ("Husband is off work with flu today.", "Husband is off work with flu today."),  # no name: left alone
    ("Mum's the word on the party.", "Mum's the word on the party."),
])
def test_a_texting_form_is_read_written_out(sentence: str, written: str) -> None:
    assert spelled_out(sentence) == written


@pytest.mark.parametrize("sentence", [
    "Pepper's our collie, rescued from Bolton.",
    "husband is Gareth, drives for Stagecoach",
    "btw sister's Ngaio, lives in Nelson",
])
def test_a_texting_form_keeps_the_fact_in_the_speakers_words(sentence: str) -> None:
    assert extract_facts([sentence]) and extract_facts([sentence])[0][1] == sentence


# --- Chinese chat: clauses split by spaces, a subject left out, a card's holder, an answer ---------

@pytest.mark.parametrize("message", [
    "对了 叫我阿强就行 不用叫老板",  # 叫我 after a space between clauses
    "家里住莘庄 电梯房 十二楼",  # the home, the speaker left out
    "老家住在绍兴 每年回去一趟",
    "你上次问我孩子几岁 今年九岁了 读三年级",  # an answer to the agent's question
])
def test_a_chinese_chat_statement_of_the_speaker_is_kept(message: str) -> None:
    assert [text for _, text in extract_facts([message])] == [message]


def test_a_question_of_the_agent_repeated_alone_is_no_answer() -> None:
    assert extract_facts(["你问我要不要发票"]) == []
    assert extract_facts(["你问我要不要发票 要的 抬头写公司"]) != []


@pytest.mark.parametrize("line", ["驾驶员：何建平", "业主：林美华", "姓名: 周晓东"])
def test_a_card_names_its_holder_under_a_chinese_label(line: str) -> None:
    assert is_identity_field(line)
    assert any(text == line for _, text in extract_facts([f"搿张是阿拉额卡\n{line}\n电话：021-5555"]))


# --- "Speaking of X," opens a topic, it is no activity of the moment --------------------------------

@pytest.mark.parametrize("sentence", [
    "Speaking of cars, my paid job is with a florist in Hexham.",
    "talking about dogs, my greyhound Biscuit sleeps in the van",
])
def test_a_topic_opener_is_no_activity_going_on(sentence: str) -> None:
    assert not is_of_the_moment(sentence)
    assert classify_sentence(sentence) == "durable"


# --- a forward is judged as a pasted text is; a chain letter is not ---------------------------------

_FORWARD = "---------- Forwarded message ----------"


def test_a_forwarded_record_is_judged_line_by_line_without_its_header() -> None:
    message = (f"For the file.\n{_FORWARD}\nFrom: Harbour Insurance <renewals@harbour.example>\nSubject: Your policy\n\n"
               "Vessel: Westerly Centaur, sail number GBR 4417\nPolicy holder: Morag Inglis")
    kept = [text for _, text in extract_facts([message])]
    assert "Vessel: Westerly Centaur, sail number GBR 4417" in kept
    assert not any("renewals@harbour.example" in text or "Subject" in text for text in kept)


def test_a_forwarded_notice_of_a_new_date_is_a_correction() -> None:
    message = f"{_FORWARD}\nFrom: Chair\nSubject: Quiz night postponed\n\nThe quiz night is now Friday 14 June at the Anchor."
    assert extract_facts([message]) == [("correction", "The quiz night is now Friday 14 June at the Anchor.")]


@pytest.mark.parametrize("chain", [
    "FW: FW: Tesco is giving every family a £300 voucher!!! Forward this to ten friends",
    "Fwd: Fwd: Free flights for everyone, click here before midnight, my cousin got 4 tickets",
    "Amazon turns 30 and pays $250 to all who share to 10 friends. I got mine on 3 May!",
])
def test_a_forwarded_chain_letter_is_still_nobodys_fact(chain: str) -> None:
    assert is_chain_letter(chain)
    assert extract_facts([f"Is this real?\n{_FORWARD}\n{chain}"]) == []


# --- a dream told is no fact -------------------------------------------------------------------------

@pytest.mark.parametrize("sentence", [
    "I dreamt the Forth Bridge was made of Lego and I had to drive the 7:40 bus over it.",
    "had the weirdest dream, my boss Ingrid is a seagull at the Tesco on Leith Walk",
    "last night dream i selling durians at Changi T2, damn funny",
    "昨晚梦见我在外滩开渡轮 好多乘客",
    "前两天做了个怪梦 梦到阿拉老家搬到月亮上",
])
def test_a_dream_told_is_no_fact(sentence: str) -> None:
    assert tells_a_dream(sentence)
    assert classify_sentence(sentence) is None


@pytest.mark.parametrize("sentence", ["I've always dreamed of owning a croft on Skye.", "我的梦想是在杭州开个面馆"])
def test_an_aspiration_is_no_dream_told(sentence: str) -> None:
    assert not tells_a_dream(sentence)


# --- a question announced at its opening ------------------------------------------------------------

def test_a_chinese_question_announced_at_its_opening_is_a_question() -> None:
    assert asks_without_mark("问你一句 粽子跟青团到底啥区别 我老婆问我")
    assert extract_facts(["问你一句 粽子跟青团到底啥区别 我老婆问我 我讲不清楚"]) == []
    assert extract_facts(["想问一下 护照在上海哪里办比较快 我下个月要出国"]) == []


# --- a course of treatment ends; gout and more medicine stems are health ---------------------------

@pytest.mark.parametrize("sentence", [
    "The vet put me on doxycycline for ten days after the tick bite.",
    "GP has me on amoxicillin for a week, for the chest.",
])
def test_a_course_of_medicine_for_days_or_weeks_is_ephemeral(sentence: str) -> None:
    assert classify_sentence(sentence) == "ephemeral"


@pytest.mark.parametrize("sentence", [
    "my gout flares up if I eat too much shellfish",
    "the doctor give me allopurinol, one every morning",
    "I'm on ciprofloxacin and montelukast",
])
def test_gout_and_its_medicines_are_health(sentence: str) -> None:
    assert classify_sentence(sentence) == "permanent"


# --- "from now on at X" told after a move is a correction; 勿 for 不 shows Shanghainese ---------------

@pytest.mark.parametrize("message", [
    "体育馆人太多 后来去大学城游泳馆了 以后就在大学城游 方便",
    "理发么老店排勿上 后来去静安寺那家了 以后就辣静安寺剪",  # Shanghainese by 勿 alone
])
def test_from_now_on_at_a_new_place_is_a_correction(message: str) -> None:
    assert extract_facts([message]) == [("correction", message)]


def test_wu_for_not_shows_shanghainese_but_not_in_mandarin_set_phrases() -> None:
    assert writes_wu(["医生讲勿要紧"])
    assert not writes_wu(["请勿吸烟", "切勿外传", "勿忘初心"])
