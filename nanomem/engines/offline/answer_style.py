"""A request for how the assistant should answer (pure, English and Chinese; split out of
``extract.py``).

"Keep replies short", "No emojis, please", "wind speeds in knots", "语气轻松一点": a form word or
phrase (format, length, tone, language, units) in a request. :func:`is_style_request` tells it;
the consolidator keeps such a sentence as durable and the offline Dream routes it to ``SOUL.md``.

>>> is_style_request("Keep your replies under five lines."), is_style_request("The shop sells rope in metres.")
(True, False)
"""

from __future__ import annotations

import re

from nanomem.engines.offline.asks import is_reminder_rule, without_opener
from nanomem.engines.offline.shapes import is_verbless
from nanomem.engines.offline.tasks import SUM as _SUM
from nanomem.engines.offline.terse import is_conditional_instruction, is_output_note
from nanomem.vocab import HAN_CHAR, any_of

__all__ = ["is_style_request"]

_I = re.IGNORECASE


# How the assistant should answer: a form word (format, tone, language) or a form phrase
# ("as numbered lists", "under 50 words", "keep it short") in a request. Words that ordinary
# talk also uses ("the guest list", "a short walk") count only inside such a phrase.
_NUM_WORD = r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|a few)"
_STYLE_STRONG = any_of(
    r"\b(?:bullets?|bullet[- ]points?|bulleted|numbered|markdown|emojis?|emoticons?|smileys?|smiley faces?|"
    r"lower[- ]?case|upper[- ]?case|capital letters|capitals|sentence case|title case|"  # round 9: letter case
    r"exclamation(?: marks?| points?)?|spelling|tone|formal(?:ly)?|informal(?:ly)?|casual(?:ly)?|"
    r"blunt(?:ly)?|concise(?:ly)?|verbose|terse|jargon|plain (?:text|language|english)|code blocks?|"
    r"formatting|layout|all caps|metric units|imperial units|lay (?:it|them|this|that|everything) out|"
    r"bold|italics?|links|urls|hyperlinks|[a-z]+-separated|comma[- ]delimited|tab[- ]delimited|csv|tsv|"  # round 11: "give it back tab-separated"
    r"(?:short|shorter|long|longer|small|brief) paragraphs|one[- ]sentence|grid references?|lat(?:itude)?[ /-]long?(?:itude)?)\b",
    r"\b(?:in|into)\s+(?:plain\s+|simple\s+|british\s+|american\s+)?(?:english|spanish|french|german|"
    r"italian|portuguese|dutch|chinese|mandarin|cantonese|japanese|korean|russian|arabic|polish|"
    r"swedish|norwegian|danish|finnish|greek|turkish|hindi|ukrainian|czech|"
    # round 11: the rest of the closed class of languages
    r"afrikaans|zulu|isizulu|xhosa|isixhosa|sesotho|setswana|swahili|amharic|yoruba|igbo|hausa|welsh|irish|"
    r"gaelic|scots|catalan|basque|galician|romanian|hungarian|bulgarian|croatian|serbian|slovak|slovene|"
    r"slovenian|estonian|latvian|lithuanian|icelandic|hebrew|persian|farsi|urdu|bengali|punjabi|tamil|"
    r"telugu|gujarati|marathi|nepali|sinhala|thai|vietnamese|indonesian|malay|tagalog|filipino|maori|"
    r"esperanto|latin)\b",
    r"\bas (?:a |an )?(?:numbered |bulleted |short |simple )?(?:lists?|tables?|checklists?)\b",
    r"\bin (?:a |one )?tables?\b", r"\b(?:one|a) (?:row|line|column) (?:per|for each)\b",
    r"\b(?:under|below|max(?:imum)?|at most|no more than|fewer than|less than|within) " + _NUM_WORD
    + r" (?:words|lines|sentences|paragraphs|bullets)\b",
    r"\b" + _NUM_WORD + r" (?:words|lines|sentences|paragraphs) (?:max|at most|or less|or fewer)\b",
    r"\bas (?:a |an )?(?:unified |inline |side-by-side )?(?:diffs?|patch(?:es)?)\b", r"\bitemi[sz]e[ds]?\b",
    r"\b(?:one-line|single-line|step-by-step|numbered) (?:steps|answers|replies|points|instructions)\b",
    r"\brather than (?:long )?(?:paragraphs|prose|essays|walls? of text)\b",
    r"\b(?:unvarnished|sugar-?coat\w*|brutally honest|candid(?:ly)?)\b",
    r"\b(?:keep|make) (?:it|them|things|everything|(?:your |the )?(?:answers|replies|responses|messages|"
    r"summaries)) (?:short|brief|concise|simple|tight)\b",
    r"\b(?:short|brief)(?:er)? (?:answers|replies|responses|summaries)\b",
    r"\byour (?:answers|replies|responses|summaries|messages|writing)\b",
    # round 5: the units and precision of what the agent gives ("wind speeds in knots", "every
    # time in UTC", "two decimal places"): a closed class of measures, not ordinary words
    r"\bin (?:knots|nautical miles|miles|kilomet(?:re|er)s|km/h|mph|celsius|fahrenheit|centigrade|"
    r"metres|meters|feet|inches|centimet(?:re|er)s|litres|liters|gallons|kilos|kilograms|grams|ounces|pounds|stone|"
    r"tonnes|tons|utc|gmt|zulu|local time|degrees|gradians|grads|radians|mils|"
    r"24-hour time|24h|12-hour time)\b",
    r"\b(?:\d+|one|two|three|four) (?:decimal places|decimals|significant figures|dp)\b",
    # round 6: the clock the agent gives times in ("24h times", "the 12-hour clock")
    r"\b(?:24h|24-hour|24 hour|12h|12-hour|12 hour) (?:times?|clock|format)\b",
    r"\bround(?:ed)? (?:to|up|down)\b",
)
_STYLE_ZH = re.compile(
    r"语气|口气|格式|要点|列表|清单|表格|标题|字数|简短|简洁|啰嗦|中文|英文|英语|表情|感叹号|标点|分点|措辞|口语|书面"
    r"|分项|逐项|逐条|分条|一条一条|像朋友|聊天那样|聊天一样|太官方|官腔|打官腔|小数|四舍五入|保留[^，。！？]{0,4}位"
    r"|公历|农历|阳历|阴历|(?:都|一律|别|不要|只)写成?"  # round 7: how to write dates and the like
    r"|(?:你|您)(?:跟我)?(?:说话|讲话|回话)|大白话|白话|链接|网址"  # round 11: how the agent talks ("你说话别整那么文绉绉的")
    r"|(?:回复|回答|答复)(?:我)?(?:的时候)?(?:请|尽量|都|要|用|简|短|长|详细|别|不要|一律|每次)"
    # session 25: Cantonese 覆 (reply) and 嘅 (的); an English form word written among Chinese
    r"|(?:回复|回覆|覆)我?(?:嘅|的)?(?:时候|時候)|(?i:point form|bullet points?|bullets|emojis?|markdown)"
    # round 18: a length counted in sentences (三两句, 一两句话) or a long text refused (长篇), and plain
    # speech asked by its idiom (说人话) or bookish words refused (拽词儿, 咬文嚼字, 文绉绉)
    r"|(?<![问说讲插多这那每你您])[一二两三四五]{1,2}句(?!号)|长篇|说人话|拽词|拽文|咬文嚼字|文绉绉"
)
_IMPERATIVE = any_of(
    r"(?:^|[,;:—–]\s*|\b(?:and|also|so|then|but|just|oh)\s+"
    # round 10: a dictated clause of when, no comma after it ("when you answer me keep it short")
    r"|\bwhen(?:ever)? you (?:answer|reply|respond|write|text|message|talk)(?: to| back)?(?: me)?\s+)"
    r"(?:(?:please|just|also|always)\s+)?"
    r"(?:use|keep(?: to)?|be|stay|avoid|stop|skip|drop|no|don'?t|do not|never|always|reply|answer|respond|"
    r"format|lay|put|give|show (?:me|them|it|changes|code)|sign|address|stick|limit|cap|spell|do (?:it|them|this|that|everything)|"
    r"make (?:it|them|sure|everything|all)|write (?:in|it|them|everything|all)|leave out|go easy)\b",
    r"\b(?:could|can|would|will) you\b",
    r"\bI(?:'d like| would like| want| need) you to\b", r"\byou (?:should|must)\b", r"\bmake sure you\b",
)
_PLEASE = re.compile(r"\bplease\b|\bpl(?:s|z|ease|se)\b|\bif (?:you can|possible)\b|\bwhere possible\b", _I)  # round 7: "… if you can"
_DETERMINER = re.compile(r"\b(?:the|a|an|this|that|these|those|my|our|his|her|their|its|your)\b", _I)
_DIRECTIVE_ZH = re.compile(
    r"请(?!假|客|教|问)|唔该|唔該|尽量|别(?!人|的|处|墅)|不要|不用|都用|以后(?:[^，。！？]{0,16}都|请|要|就)|每次|始终|一律|务必"
    r"|(?<![我们他她])用[^，。！？]{0,6}(?:中文|英文|英语|要点|表格|列表|口语|简短)"
    r"|(?:[^\W\d_一二三四五六七八九十两几半]|一)[点些](?=[，,。！!；;]|$)"
    r"|就[^，。！？]{0,8}?(?:这么|这样)(?:排|说|写|列|弄|来)"  # round 11: "就一二三这么排": do it this way
)

# Session 27: rules for the agent announced by a label ("ground rules, since you'll see a lot of me: code first, …")
_RULES_FOR_YOU = re.compile(r"^\W*(?:(?:some|a few|my|our)\s+)?(?:ground|house|basic)\s+rules\b[^:：]{0,60}[:：]\s*\S", _I)
# Round 11: a form asked for one thing handed over after a colon ("title case for the list pls: ana, bo, cy")
_FOR_THIS = re.compile(r"\bfor (?:the|this|these|that|those|my|our) [\w' -]{1,30}[:：]\s*\S")


def is_style_request(sentence: str) -> bool:
    """Whether a sentence asks the assistant to answer in some way (format, length, tone or
    language): a form word in a request ("keep …", "no …", "please", "could you …", "语气轻松点").

    >>> is_style_request("No emojis in anything you send me, please.")
    True
    >>> is_style_request("The table by the window is booked.")
    False
    >>> is_style_request("解释的时候用英文单词。"), is_style_request("语气轻松一点。")
    (True, True)
    """
    if _SUM.search(sentence) or _FOR_THIS.search(sentence):
        return False  # round 8: "Could you work out how much 3 yards is in cm?": a sum asked once, not a form
    if (is_output_note(sentence) or is_conditional_instruction(without_opener(sentence)) or is_reminder_rule(sentence)
            or _RULES_FOR_YOU.search(sentence)):
        return True  # round 8: "Replies short.", "When you quote a price, round it up."; round 9: "Oh and when you …", "the day before"
    if HAN_CHAR.search(sentence):
        return bool(_STYLE_ZH.search(sentence) and _DIRECTIVE_ZH.search(sentence))
    # round 6: a terse speaker leaves out the verb ("Three lines max per answer.", "Loads in tonnes."):
    # a short note (at most six words) with no finite verb of the closed class and no determiner,
    # which a note leaves out ("The shop sells rope in metres." is a statement)
    return bool(_STYLE_STRONG.search(sentence) and (
        _IMPERATIVE.search(sentence) or _PLEASE.search(sentence)
        or (is_verbless(sentence) and len(sentence.split()) <= 6 and not _DETERMINER.search(sentence))))
