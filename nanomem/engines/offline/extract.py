"""Which sentences the offline consolidator keeps, and with which mark (pure, English and Chinese).

Sentences come from :func:`nanomem.engines.offline.sentences.split_sentences`;
:func:`classify_sentence` judges each sentence on its own and returns its mark (``correction``,
``permanent``, ``ephemeral``, ``durable``) or ``None``. Two families of its rules live apart: the
cues of a correction (:mod:`nanomem.engines.offline.correction_cues`) and a request for how the
assistant should answer (:mod:`nanomem.engines.offline.answer_style`, which the offline Dream
also reads). ``docs/offline-engine.md`` lists every trigger.

>>> classify_sentence("Keep your replies under five lines."), classify_sentence("Sure, thanks.")
('durable', None)
"""

from __future__ import annotations

import re

from nanomem.engines.offline.asking import asks_without_mark, statement_before_asking
from nanomem.engines.offline.asks import LEAD_TIME_REMINDER
from nanomem.engines.offline.chatfix import is_own_statement_zh
from nanomem.engines.offline.answer_style import is_style_request
from nanomem.engines.offline.correction_cues import has_correction_cue, tells_of_change
from nanomem.engines.offline.hypothetical import is_daydream, tells_a_dream
from nanomem.engines.offline.informative import is_informative_statement, is_of_the_moment, without_durations
from nanomem.engines.offline.medicines import MEDICINE_EN, MEDICINE_ZH
from nanomem.engines.offline.notices import is_machine_notice
from nanomem.engines.offline.relayed import without_report_frame
from nanomem.engines.offline.snippets import is_identity_field
from nanomem.engines.offline.tasks import is_task_request
from nanomem.engines.offline.sentences import has_name, split_sentences
from nanomem.engines.offline.tense import is_narrative
from nanomem.engines.offline.terse import (
    is_day_anecdote,
    is_label_note,
    is_naming,
    is_pasted,
    is_place_note,
    is_role_naming,
    reports_speech,
    without_quotes,
)
from nanomem.engines.offline.shapes import (
    is_note_fragment,
    is_occasion_anecdote,
    is_retraction,
    is_self_named,
    is_year_anecdote,
    statement_before_question,
    story_body,
    without_numbers,
    without_secret,
    without_year,
)
from nanomem.engines.offline.spelled_out import spelled_out
from nanomem.text.hant import fold_hant
from nanomem.text.filler import holds_template_slot, is_filler
from nanomem.vocab import HAN_CHAR, HAN_CLASS, any_of

MAX_FACT_CHARS = 500  # a longer "sentence" is pasted material, not a statement

_I = re.IGNORECASE


_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
          r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
_WEEKDAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
# Each category: English patterns, then Chinese. The order of marks is decided in classify_sentence().
# Round 5: a place named with "is/are at", "is/are held in": "Rehearsals are at the Old Mill".
_VENUE = re.compile(
    r"\b(?:is|are)\s+(?:usually\s+|always\s+|normally\s+|now\s+|held\s+|based\s+)*(?:at|in)\s+(?:the\s+)?"
    r"[A-Z][a-z]+", 0)
# Round 5: a standing reminder ("whenever we plan a trip, remind me to …", 每次…提醒我) lasts.
_STANDING_REMINDER = any_of(
    r"\b(?:whenever|every time|each time|any time)\b[^.!?]{0,60}\bremind\b",
    # session 25: how to remind, said as a condition ("if you remind me of anything, do it the day before")
    r"\b(?:when|if)\s+(?:you|u)\s+remind\b", r"提醒[^。！？，]{0,12}(?:的话|嘅话|嘅話|的时候|嘅时候|嘅時候)",
    r"\bremind\b[^.!?]{0,60}\b(?:whenever|every time|each time|any time)\b", r"每次[^。！？]{0,20}提醒|提醒[^。！？]{0,20}每次")
# "If …", "贫血的话": a condition for the question that follows, not a statement.
_CONDITIONAL = any_of(r"^\W*(?:if|when|whenever|unless|suppose|assuming)\b", r"如果|要是|假如|的话\s*$")
# Round 17: a weekday said as a plural or with a part of the day ("on Sundays", "Sunday evenings")
# recurs, Sunday included (the ungrouped alternation of ``_RECURRING`` reads every weekday but Sunday).
_WEEKDAYS = r"\b(?:on )?" + _WEEKDAY + r"(?:s\b| (?:mornings|afternoons|evenings|nights)\b)"
# Round 5: a request put as a question that asks to keep something ("Could you call me Jo from
# now on?", "Can you remember that I'm vegan?") is a request, not a question; round 17: so is one
# for a recurring time ("could you send me the list on Sunday evenings?", "… every Friday?").
_KEEPING_REQUEST = any_of(
    r"^\W*(?:(?:so|and|also|oh|ok|okay|by the way)\W+)*(?:could|can|would|will) you\b[^?]*"
    r"(?:\b(?:from now on|always|in future|going forward|remember|keep in mind|call me)\b"
    r"|\bevery (?:other )?" + _WEEKDAY + r"\b|" + _WEEKDAYS + ")")
# The part of today that is already over: "I booked it this morning" tells what was done.
_EARLIER_TODAY = any_of(r"\bthis morning\b", r"\bearlier today\b", r"今天早上|今早")
# The day that is going on: a remark with only this and no value tells of the day, not of a
# plan ("The pizza place sent the wrong order tonight", "今天早上地铁又挤又慢").
_THIS_DAY = any_of(r"\bthis (?:morning|afternoon|evening)\b", r"\bearlier today\b", r"\btoday\b",
                r"\btonight\b", r"今天(?:早上|上午|下午|晚上)?|今早|今晚")
# A transaction whose result lasts: "I booked the flight this morning, FI 615" is not short-lived
# (unlike "I parked in bay C-14 this morning").
_TRANSACTION = any_of(
    r"\b(?:booked|reserved|ordered|bought|purchased|paid|signed|registered|renewed|enrolled|"
    r"submitted|applied|confirmed|scheduled|subscribed)\b", r"订了|订好|买了|签了|报名了|交了|预约了")
# A bounded stretch of time: "from tomorrow I'm in Oslo for three days" stays short-lived.
_BOUNDED = any_of(
    r"\bfor (?:the|a|an|\d+|one|two|three|four|five|six|seven|a few|a couple of) (?:days?|weeks?|nights?|"
    r"weekend|week)\b", r"\b(?:until|till|through)\b", r"[一两三四五六七八九十几\d]+天")
# Round 17: a course of days or weeks ("for a week", "for 10 days", 吃七天): a treatment that ends
_COURSE = any_of(r"\bfor (?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|fourteen|a few|a couple of|another|\d+) "
                 r"(?:more )?(?:days?|weeks?)\b(?!\s+now\b)",
                 r"(?:吃|用|打|服)[一两三四五六七八九十\d]+(?:天|个?星期|周)")
# "From next week …", "starting Monday …", "从下周起 …": a lasting change from a point in time.
_STARTING = any_of(
    r"\bfrom (?:(?:this|next) (?:week|month|year|" + _WEEKDAY + r")|tomorrow|today)\b",
    r"\bfrom " + _WEEKDAY + r"\b(?!\s*(?:to|till|until|through|thru|and|or|-|–)\b)",  # round 11: "47 from Monday"
    r"\b(?:starting|beginning|as of|effective)\s+(?:(?:this|next)\s+\w+|today|tomorrow|"
    + _WEEKDAY + r"|" + _MONTH + r"\b|\d)",
    r"从(?:下|这|本)?(?:周|星期|个月|月)[一二三四五六日天]?(?:起|开始)", r"(?:下周|下个月|明天|从今天)(?:起|开始)",
)
_IDENTITY = any_of(
    r"\bmy name is\b", r"\bmy (?:name|birthday|email|phone number|pronouns)\b",
    r"\bcall me\b", r"\bI(?:'m| am) (?:a|an)\s+\w+", r"\bI(?:'m| am) \d+\b",
    r"\bI(?:'m| am) from\b", r"\bI (?:live|work|was born|grew up)\b", r"^\W*(?:live|work|based) (?:in|for|at) (?-i:[A-Z])", r"\bI(?:'m| am) based in\b",
    r"\bmy (?:wife|husband|partner|son|daughter|mother|father|dog|cat)(?:'s name)? is\b",
    r"我叫", r"我的名字", r"(?:^|以后|就|你|可以|直接|都|[，,\s])叫我(?!去|来|做|帮|别|不要|起|一声|们)" + HAN_CLASS + r"{2,3}", r"我是(?!说|不是|否)", r"我住在", r"(?:现在|目前|如今)住(?!院)", r"我来自",
    # session 27: a self-introduction by its label, then the name ("先报个名：…", "quick intro: Ana Lima, …")
    r"(?:报个名|报下名|自我介绍一?下?|介绍一下(?:我)?自己)[：:，,\s]*" + HAN_CLASS + r"{2,4}",
    r"^\W*(?:(?:a )?quick |brief |short )?(?:intro(?:duction)?|about me)\s*[:：]\s*(?-i:[A-Z][a-z]+)", r"我在\S{1,12}工作", r"我的生日",
)
# Case-sensitive: "I'm" followed by a capitalised word introduces the person ("Hey, I'm Sam Ode"),
# and so does a name followed by "here" or "speaking" ("Hi, Rosa Lind here.").
_SELF_NAME = re.compile(
    r"\bI(?:'m|’m| am)\s+[A-Z][a-z]+\b"
    r"|^(?:(?:[Hh]i|[Hh]ello|[Hh]ey|[Mm]orning|[Ee]vening)\b[\s,!.]*(?:(?:it's|this is)\s+)?"
    r"[A-Z][a-z]+(?:[ -][A-Z][a-z'’-]+){0,2}|(?:(?:[Ii]t's|[Tt]his is)\s+)?[A-Z][a-z]+(?:[ -][A-Z][a-z'’-]+){1,2})"
    r" (?:here|speaking)\s*(?:[.!,;]|$)"
)
# Someone or something named: "my landlord is Jonas", "the vet is called Dr Ruiz", "合伙人叫王磊",
# "老大叫林一鸣" (a family or work role, then 叫 and a two- or three-character name).
_ROLE_ZH = (r"(?:老大|老二|老三|老小|老幺|大宝|二宝|儿子|女儿|闺女|老公|老婆|丈夫|妻子|爱人|先生|太太|媳妇|"
            r"婆婆|公公|岳父|岳母|妈妈|爸爸|母亲|父亲|哥哥|姐姐|弟弟|妹妹|孩子|宝宝|老板|上司|领导|同事|"
            r"室友|房东|医生|老师|班主任|助理|合伙人|搭档|律师|会计|导师|教练|保姆|阿姨|经理|秘书|"
            r"[茶果菜花药蜂渔菇]农|农户|师傅|供应商|老乡|房客|租客|邻居|客户|未婚夫|未婚妻|伴娘|伴郎|司仪|同学|闺蜜|发小|"
            r"(?:化妆|摄影|设计|装修|婚礼|策划|造型|理发)师)")
_NAMED = re.compile(
    r"\b[Mm]y (?:[a-z]+ ){1,2}(?:is|are)\s+(?:called\s+|named\s+)?[A-Z][a-z]+"
    r"|\b(?:is|are|'s)\s+(?:Dr|Mr|Mrs|Ms|Mx|Prof)\.?\s+[A-Z][a-z]+"  # round 6: "GP is Dr Lewin"
    # round 6: a name introduced as the speaker's ("Biscuit is my beagle") or by "there's"
    # and an apposition ("Then there's Pip, a lurcher, …")
    r"|^\W*(?:(?:[Aa]nd|[Ss]o|[Tt]hen|[Aa]lso)\W+)*[A-Z][a-z]+(?: [A-Z][a-z]+)? (?:is|are) (?:my|our) [a-z]"
    r"|\b[Tt]here(?:'s|’s| is) [A-Z][a-z]+, (?:a|an|my|our|the) "
    r"|^\W*[A-Z][a-z]+(?:['’]s)? [^.!?]{0,80}?, (?:he|she)(?:['’]s| is) (?:my|our) [a-z]"
    r"|\b(?:is|are)\s+(?:called|named)\s+[A-Z]|\b(?:[Ii]t|[Ss]he|[Hh]e)(?:'s|’s)\s+(?:called|named)\s+[A-Z]"
    r"|(?:的|名字|名)[^，。！？\s]{0,8}?叫(?:做)?" + HAN_CLASS + r"{2,4}"
    r"|^(?:我们|我家|我的|咱们|咱家)的?" + HAN_CLASS + r"{1,3}叫(?:做)?(?![我你他她它])" + HAN_CLASS + r"{2,8}"  # round 9: 我家狗叫X
    r"|(?:外包给|委托给)(?![我你他她它这那])" + HAN_CLASS + r"{2,3}[，,。]"
    r"|" + _ROLE_ZH + r"(?:的名字)?叫(?:做)?(?![我你他她它们了过人车外卖醒不])" + HAN_CLASS + r"{2,3}"
    r"|" + _ROLE_ZH + r"(?:是)?" + HAN_CLASS + r"{2,3}(?:老师|医生|大夫|律师|教练|经理|阿姨|先生|女士|教授)"
    r"|" + _ROLE_ZH + r"(?:约|请|定|找|选)的是" + HAN_CLASS + r"{2,3}[，,。]"  # round 7: "化妆师约的是罗芊，"
    r"|" + _ROLE_ZH + r"是我[^，。！？]{0,6}?" + _ROLE_ZH + HAN_CLASS + r"{2,3}[，,。]"  # "伴娘是我大学室友褚一凡，"
    # round 5: a role, a name and "at their place": "从茶农岩温那里收的", "找房东老周家"
    r"|" + _ROLE_ZH + HAN_CLASS + r"{2,3}(?:那里|那儿|那边|家的|家里)"
    # round 11: my role, then a name before a pause of voice input or a comma ("我孙子涵涵 今年上初二")
    r"|(?:^|\s)我(?:的|家)?(?:" + _ROLE_ZH[3:-1] + r"|孙子|孙女|外孙|外孙女|老伴)\s?"
    r"(?![给把被让跟和在是说也都就还要会去来了的上下不没很挺太又才刚已出回走到看做吃喝睡住买今明昨每])"
    + HAN_CLASS + r"{2,3}(?=[\s，,。])"
)
_PLACE = any_of(
    r"\bour (?:office|company|headquarters|shop|studio|team|school|clinic) (?:is|are) (?:now )?(?:in|at|on|based)\b",
    r"(?:办公室|公司|总部|我家|工作室)(?:现在)?(?:在|位于)",
    r"^我(?:的)?(?:" + _ROLE_ZH + r"|妈|爸|爸妈|姥姥|奶奶|爷爷|外婆)(?:现在)?住在",  # round 9: 我妈住在丹东
)
# Words of diet: in a sentence told in the past they name a food ("vegan sausage rolls"), not the person.
_DIET = any_of(r"\b(?:vegetarian|vegan|veggie|gluten(?:-free)?|lactose(?:-free)?|pescatarian|pescetarian|halal|kosher)\b",
               r"素食|吃素")
_HEALTH = any_of(
    r"\b(?:veggie|pescatarian|pescetarian|teetotal|halal|kosher)\b",  # session 25: diets of a person
    r"\ballerg(?:y|ic|ies)\b", r"\bdiabet(?:es|ic)\b", r"\basthma\b", r"\blactose\b",
    r"\bgluten\b", r"\bvegetarian\b", r"\bvegan\b", r"\bmedication\b", r"\bpregnant\b",
    r"过敏", r"糖尿病", r"哮喘", r"素食", r"吃素", r"乳糖不耐",
    r"高血压|低血压|高血脂|高血糖|心脏病|冠心病|痛风|降压药|降糖药|胰岛素",  # round 11: chronic conditions and their medicines
    r"\bgout\b",  # round 17: the English of 痛风
    # a condition without a trigger word: "tendinitis in my wrist", "my knee is bad"
    r"\b(?:tendin|arthr|burs|dermat|col|sinus|gastr|fasc|epicondyl)itis\b", r"\bmigraines?\b",
    r"\bmy (?:left |right )?(?:back|knees?|wrists?|shoulders?|hips?|neck|ankles?|elbows?|eyes|ears|heart)"
    r" (?:is|are|has been|have been) (?:bad|weak|injured|sore|dodgy|stiff|fragile|damaged|not great)\b",
    r"腱鞘炎|关节炎|偏头痛|腰不好|膝盖不好|颈椎不好|腰椎间盘",
    # round 5: a medicine by its name's stem (warfarin, metformin, ramipril, atenolol, a statin …)
    # or a common one, and a sense or condition of the person ("I'm deaf in my left ear")
    MEDICINE_EN,  # the stems are listed once, in medicines.py
    r"\b(?:aspirin|paracetamol|ibuprofen|antidepressants?|blood thinners?)\b",
    MEDICINE_ZH,  # round 18: the same stems as Chinese names write them
    r"\banaphyla\w*|\bepi-?pens?\b|\badrenaline (?:pen|jab)s?\b",  # round 9: "wasp sting = anaphylaxis for me"
    r"\b(?:deaf|hard of hearing|tinnitus|colou?r-?blind|partially sighted|epilep(?:sy|tic)|dyslexi[ac]|"
    r"coeliac|celiac|anaemi[ac]|anemi[ac]|hearing aids?|pacemaker)\b",
    r"耳聋|耳背|听力不好|色盲|癫痫|贫血|心脏起搏器",
)
_PREFERENCE = any_of(
    r"\bI (?:really )?(?:prefer|like|love|hate|dislike|enjoy|want|need)\b",
    r"\bI don'?t (?:like|want|enjoy|need)\b", r"\bmy favou?rite\b",
    r"\bplease (?:always|never|use|reply|answer|write|keep|call|be|show|format|avoid|include)\b",
    r"^\W*(?:(?:and|also|oh|plus|so|but)\W+)*(?:please\s+)?(?:don'?t|do not|never|always)\b",  # round 19: "and always tell me"
    r"喜欢", r"偏好", r"讨厌", r"请用", r"请总是", r"请始终", r"请一直", r"用\S{1,6}(?:回答|回复)", r"请不要", r"别用", r"不要用", r"最爱",
)
_CONSTRAINT = any_of(
    # round 6: not "must have gone", "must be very full" (a deduction) nor "have never tasted the
    # same since" (the aftermath of a story told in the perfect; "has never been late" stays)
    r"\bmust\b(?!\s+(?:have|'ve)\s+\w+(?:ed|en|ne|ght|wn|t)\b|\s+be\s+(?:very|so|really|quite|pretty|awfully|terribly|"
    r"sick of|fed up|mad|joking|tired|exhausted|starving|freezing|thrilled|delighted|relieved)\b"
    r"|\s+(?:tell|say|admit|confess|ask)\s+(?:you|ya)\b|\s+(?:get on|dash|fly|be off|be going|go now)\b)",
    # round 7: "I must tell you, …" opens a story, "Right, must dash" takes leave
    r"\bnever\b(?![^.!?]*\b(?:since|after that|ever again)\b)",
    r"(?<!\bhave )(?<!\bhas )(?<!\bhad )(?<!'ve )(?<!'d )(?<!’ve )\bnever\b", r"\bbudget\b", r"\blimit\b", r"\bat most\b", r"\bat least\b",
    r"\bno more than\b", r"\brequired?\b", r"\bnot allowed\b",
    r"预算", r"不能", r"必须", r"不得", r"最多", r"至少", r"限制", r"不允许",
)
_DECISION = any_of(
    r"\bwe(?:'ve| have)? decided\b", r"\bI(?:'ve| have)? decided\b", r"\blet'?s go with\b",
    r"\bwe(?:'ll| will) (?:use|go with)\b", r"\bwe chose\b", r"\bgoing with\b",
    r"\bthe plan is\b", r"\bagreed\b",
    r"决定", r"定了", r"就用", r"选定", r"确定用", r"定在",
)
# Near-term words. _RELATIVE ones only make sense against the day they were said; the others
# (deadline, due, remind me, 截止) are near-term only when no absolute date is given.
_RELATIVE = any_of(
    r"\btoday\b", r"\btonight\b", r"\btomorrow\b", r"\bthis (?:whole |entire )?(?:week|weekend|morning|afternoon|evening)\b",
    r"\bnext (?:week|" + _WEEKDAY + r")\b",
    r"\bby (?:" + _WEEKDAY + r"|noon|tonight|eod|end of)\b", r"\bin \d+ (?:minutes|hours|days)\b",
    r"\b(?:until|till|through|expires?(?: on)?)\s+(?:(?:this|next)\s+)?(?:" + _WEEKDAY + r"|tomorrow|"
    r"tonight|noon|the weekend|(?:the )?end of (?:the )?(?:day|week))\b",
    r"有效到(?:明天|今晚|(?:这|本|下)?(?:周|星期)[一二三四五六日天末])",
    r"\bremind me\b", r"今天", r"今晚", r"明天", r"后天", r"下周", r"本周", r"这周", r"周末", r"之前完成",
    r"提醒我",
    # a stretch that starts now: "for the next two days", "this week only", 这两天
    r"\bfor the next (?:few|couple of|\d+|one|two|three|four|five|six|seven) (?:days|nights|weeks?)\b",
    r"\b(?:this|that) (?:week|weekend) only\b", r"\bonly (?:this|for this) (?:week|weekend)\b",
    r"这[两几]天|这周内|这几晚",
    # round 9: a stopgap until something awaited ("till the plumber comes", "until the part arrives")
    r"\b(?:until|till|til)\s+(?:the|a|an|my|our|his|her|their)\s+(?:[a-z]+\s+){0,2}(?:comes?|arrives?|gets? here|"
    r"is back|turns? up|is fixed|is sorted|is done|is in)\b",
    # round 18: the same words in the Spanish of a speaker who mixes it with English (esta semana, hoy,
    # mañana but not "por la mañana", hasta que …)
    r"\besta (?:semana|noche|tarde)\b", r"\beste fin de semana\b", r"\bhoy\b", r"(?<!la )\bmañana\b",
    r"\bhasta (?:que|el (?:lunes|martes|miércoles|jueves|viernes|sábado|domingo)|mañana)\b",
)
# A recurring slot: "every Thursday", "Fridays at", 每周四, 每个星期二; and, as the second pattern's alternation is not grouped (session 27:
# kept so, the dev set leans on it), any weekday named: "from Monday", "Wednesday mornings".
_RECURRING = any_of(r"\bevery (?:other )?" + _WEEKDAY + r"\b", r"\b" + _WEEKDAY[3:-1] + r"s (?:at|from)\b",
                 r"每(?:个)?(?:周|星期|礼拜)[一二三四五六日天]", _WEEKDAYS,
                 # round 18: the same in a speaker's Spanish ("los domingos", "todos los martes", "cada jueves")
                 r"\b(?:los|todos los|cada) (?:lunes|martes|miércoles|jueves|viernes|sábados?|domingos?)\b")
# Session 25: a habit of weekends ("we usually ride out at weekends", 成日週末去): recurring, not this weekend.
_HABIT = any_of(r"\b(?:usually|always|normally|often)\b[^.!?]{0,30}\b(?:at|on) (?:the )?weekends\b",
                r"(?:经常|通常|平时|成日|每逢|逢|以后|今后)[^。！？，]{0,4}(?:周末|星期|礼拜)",  # session 27: 以后周末 lasts
                r"(?:周末|礼拜天|星期天)[^。！？，\s]{0,3}(?:都在|在做|在教|在打)")  # session 27: an ongoing job at weekends
# Round 9: a reading given after a colon ("Weighed her today: 28 kg.", "今天上秤了：28公斤。").
_READING = re.compile(r"[:：]\s*(?:[£$€¥]\s?\d[\d.,]*|\d[\d.,]*\s?(?:[A-Za-z]{1,6}|[\u4e00-\u9fff]{1,2}))\s*[.。!！]?\s*$")
_DUE = any_of(r"\bdeadline\b", r"\bdue\b", r"截止")
_IDENTIFIER = re.compile(
    r"\b[A-Z][A-Z0-9]*-\d[\w-]*\b|\b[A-Z]{2,}\d+[A-Z0-9]*\b"
    r"|\b(?!(?:EUR|USD|GBP|CHF|JPY|CNY|RMB|AUD|CAD|SEK|NOK|DKK|UTC|GMT|CET|EST|PST|AM|PM)\b)"
    r"[A-Z]{2,5} \d{2,12}\b(?![:.,]\d)"  # "FI 615", "ID 2291", "MMSI 235098761"
    r"|(?:\b(?:[Nn]o\.|[Nn]r\.|ID|[Rr]ef\.?|[Nn]umber)|#)\s?\d{2,}\b"  # "No. 48", "#512"
)
_DATE = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b|\d{1,2}月\d{1,2}[日号]"
    r"|\b" + _MONTH + r"\.? \d{1,2}(?:st|nd|rd|th)?\b(?!:)|\b\d{1,2}(?:st|nd|rd|th)? (?:of )?" + _MONTH + r"\b",
    _I,
)
# Outcomes worth keeping although told in the past: "my paper got accepted", "we got approved".
_MILESTONE = any_of(
    r"\b(?:got|was|were|been|be|is|are)\s+(?:officially\s+|finally\s+)?(?:accepted|approved|admitted|"
    r"hired|promoted|elected|awarded|published|funded|granted|selected|shortlisted|engaged|married|"
    r"diagnosed|certified|licensed)\b",
    r"\b(?:I|we)\s+(?:just\s+|finally\s+)?(?:graduated|got (?:married|engaged|the job|the grant)|passed (?:my|the|our))\b",
)
# A preference stated inside a question ("Can you remember I prefer aisle seats?").
_ASKED_PREFERENCE = any_of(r"\bI (?:really )?(?:prefer|like|love|hate|dislike)\b", r"\bmy favou?rite\b",
                        r"喜欢", r"偏好", r"讨厌")
_NUMBER = re.compile(r"\d")
_OPENING_YEAR = re.compile(r"^\W*(?:(?:back|way back|oh|so|and)\s+)*(?:in|during|around)\s+(?:19|20)\d\d\b", _I)
_QUESTION = re.compile(r"[?？]\s*$")
_THIS_COMING = re.compile(r"\bthis coming " + _WEEKDAY + r"\b", _I)
_YEARLY = re.compile(r"\b(?:birthday|anniversary)\b|生日|纪念日", _I)  # a yearly occasion's day is worth keeping
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I’m|my|we|we're|we’re|our|us)\b", _I)
# Round 17: an answer to what the agent asked, after the question's clause ("你上次问我车停哪 停在B2"):
# the person tells of themselves
_ANSWERS_YOU_ZH = re.compile(r"^\W*(?:(?:对了|还有|哦)[，,\s]*)?(?:你|您)(?:上次|上回|上趟|之前|刚才|前面|前两天)?问(?:过)?我[^，,。\s]{0,12}[，,\s]+[^，,。\s]")
def classify_sentence(sentence: str) -> str | None:
    """The mark of a decisive sentence, or ``None`` for small talk and noise (pure).

    >>> classify_sentence("Actually, I moved to Lisbon last month.")
    'correction'
    >>> classify_sentence("We pushed the launch to 9 October.")
    'correction'
    >>> classify_sentence("I spilled coffee on my keyboard this morning.") is None
    True
    >>> classify_sentence("The grant report is due on June 3."), classify_sentence("It is due tomorrow.")
    ('durable', 'ephemeral')
    """
    if len(sentence) > MAX_FACT_CHARS or holds_template_slot(sentence) or is_pasted(sentence) or is_machine_notice(sentence):
        return None  # pasted material; an unfilled slot ("Dear {{name}}"); round 8: a forward, a lyric; round 9: a pickup text
    if spelled_out(sentence) != sentence:
        return classify_sentence(spelled_out(sentence))  # round 17: "Bramble's our spaniel", "wife is Noor"
    if without_quotes(sentence) != sentence and not reports_speech(sentence):
        return classify_sentence(without_quotes(sentence))  # round 8: a quotation is no cue of its own
    style = is_style_request(sentence)
    if not style and (is_filler(sentence) or is_task_request(sentence)):
        return None  # social talk, a sign-off, a bare plan; a task done in the conversation
    preference = style or bool(_PREFERENCE.search(sentence))
    if is_retraction(sentence):
        return None  # "It's not the Perkins I thought.": takes back a value, gives none
    if (_QUESTION.search(sentence) or asks_without_mark(sentence)) and not (  # session 27: or put as one
            style or _ASKED_PREFERENCE.search(sentence) or re.match(r"\s*please\b", sentence, _I)
            or _KEEPING_REQUEST.search(sentence)):
        return None  # a question asks for an answer, unless it asks for a way of answering
    # round 6: one past occasion ("Once sat in a queue at J12 for an hour") tells a story
    past_story = is_narrative(without_numbers(story_body(sentence)))
    occasion = (is_occasion_anecdote(sentence, past_story) or is_day_anecdote(sentence, past_story)) and not (
        _TRANSACTION.search(sentence) or _MILESTONE.search(sentence))
    year_story = occasion or is_year_anecdote(sentence, is_narrative(without_year(sentence))) and not (
        _TRANSACTION.search(sentence) or _MILESTONE.search(sentence))
    # round 11: a story dated by its past year is told in the past, names and all ("In 1987 a man came in …")
    narrative = (is_narrative(sentence) or occasion or (year_story and bool(_OPENING_YEAR.match(sentence)))
                 ) and not _MILESTONE.search(sentence)
    named = has_name(sentence)
    health = bool(_HEALTH.search(sentence)) and not (narrative and not _HEALTH.search(_DIET.sub(" ", sentence)))
    if (is_daydream(sentence) or tells_a_dream(sentence)) and not (style or health):
        return None  # session 30: "if i won the lottery would it be daft to …": imagined; round 17: a dream told
    identity = bool(_IDENTITY.search(sentence) or health or is_self_introduction(sentence))  # session 25: "the canteen ran out of vegan pies": a food, not the person
    starting = bool(_STARTING.search(sentence)) and not _BOUNDED.search(sentence)
    dated = bool(_DATE.search(sentence))
    relative = _RELATIVE.search(without_report_frame(sentence))  # round 9: "院长今天开会说，…": when the news came
    if not relative and not _YEARLY.search(sentence):
        relative = _THIS_COMING.search(sentence)  # session 27: "this coming Tuesday", not a birthday's day
    if relative and _EARLIER_TODAY.search(sentence) and _TRANSACTION.search(sentence) and not _RELATIVE.search(
            _EARLIER_TODAY.sub(" ", sentence)):
        relative = None  # "I booked the hall this morning, ref 48-K": done, not a reminder
    if relative and is_anecdote_of_today(sentence):
        relative = None  # "The dog barked all morning": the day's news, over when it is told
    standing = bool(_STANDING_REMINDER.search(sentence) or LEAD_TIME_REMINDER.search(sentence))
    # round 7: a decision in a clause of its own lasts ("场地定在X，下周去看"): the near-term clause is the visit
    clauses = re.split(r"[，,;；]", sentence)
    decided = any(_DECISION.search(c) and not _RELATIVE.search(c) and not _RELATIVE.search("".join(clauses[:i]))
                  for i, c in enumerate(clauses))
    reading = bool(_READING.search(sentence)) and not re.search(r"\b(?:tomorrow|tonight|next)\b|明天|今晚|下周", sentence, _I)
    near_term = (
        not style and not narrative and not starting and not standing and not decided and not reading
        and not _HABIT.search(sentence)  # session 25: "成日週末去" is a habit, not this weekend
        and not re.search(r"\bfrom now on\b", sentence, _I)  # round 10: "… the one to give from now on" lasts
        and bool(relative or (_DUE.search(sentence) and not dated))
    )
    durable = (
        preference
        or bool(_CONSTRAINT.search(sentence))
        or bool(_DECISION.search(sentence))
        or bool(_NAMED.search(sentence))
        or bool(_PLACE.search(sentence))
        or bool(_IDENTIFIER.search(sentence)) or (bool(HAN_CHAR.search(sentence)) and named)  # round 8: 《书名》, CATTI
        or dated
        # session 27: a weekday in one past occasion ("… on a Saturday night") is no habit
        or (bool(_RECURRING.search(sentence) or _HABIT.search(sentence)) and not occasion)
        or (bool(_NUMBER.search(without_durations(sentence))) and _long_enough(sentence) and not year_story)  # session 25: "for 40 mins" measures an occasion
        or standing or is_identity_field(sentence) or is_note_fragment(sentence) or is_label_note(sentence) or is_naming(sentence)
        or is_role_naming(sentence) or is_place_note(sentence) or bool(_VENUE.search(sentence) and has_name(sentence))
        or (named and not narrative and not is_of_the_moment(sentence) and bool(_FIRST_PERSON.search(sentence))
            and _long_enough(sentence))  # session 25: not "my aunt is watching Strictly again"
        or (bool(_MILESTONE.search(sentence)) and bool(_FIRST_PERSON.search(sentence)))
        or (is_own_statement_zh(fold_hant(sentence)) and not narrative)  # session 24: 我弟承翰在新竹上班
        or is_informative_statement(fold_hant(sentence), narrative=narrative)  # session 25: by make-up, not phrase
        or bool(_ANSWERS_YOU_ZH.match(fold_hant(sentence)))  # round 17: "你问我开了几年 驾龄二十三年了"
    )
    decisive = identity or near_term or durable
    if has_correction_cue(sentence, decisive=decisive, named=named, near_term=near_term, starting=starting):
        return "correction" if (decisive or named or _long_enough(sentence)) else None
    if health and _COURSE.search(sentence) and not re.search(r"\b(?:been|since)\b", sentence, _I):
        return "ephemeral"  # round 17: "the dentist put me on amoxicillin for a week": a course, over when it ends
    if identity:
        return "permanent"
    if near_term:
        return "ephemeral"
    if durable:
        return "durable"
    return None


def fact_part(sentence: str) -> str:
    """The part of a sentence that is judged and kept (pure): without the clauses that tell a
    password (:func:`nanomem.engines.offline.shapes.without_secret`: a secret is never kept),
    and, for a question the rules drop, the statement its tag follows ("I'm vegan, is that a
    problem?" keeps "I'm vegan"). Every word kept is the speaker's, in their order.

    >>> fact_part("I'm coeliac, is that a problem for the caterers?")
    "I'm coeliac"
    >>> fact_part("The vault PIN is 88X-31Q, and the key is under the mat")
    'the key is under the mat'
    """
    rest = without_secret(sentence)
    if rest is not None:
        return rest
    if not _QUESTION.search(sentence) and classify_sentence(sentence) is None:
        lead = statement_before_asking(sentence)  # session 27: "…硝苯地平 一天一片 那边能开吗"
        if lead and classify_sentence(lead) is not None:
            return lead
    if _QUESTION.search(sentence) and classify_sentence(sentence) is None:
        lead = statement_before_question(sentence)
        if lead and not _CONDITIONAL.search(lead) and classify_sentence(lead) == "permanent":
            return lead  # who the person is, said before asking something
    return sentence


def announces_change(sentence: str) -> bool:
    """Whether a sentence announces a change without carrying the new value itself
    ("They reissued my badge.", "Plans changed."): the decisive sentence that follows it in
    the same message is then a correction (see :func:`nanomem.engines.offline.engine.extract_dated_facts`).

    >>> announces_change("The office reissued my badge."), announces_change("I like my badge.")
    (True, False)
    """
    if len(sentence) > MAX_FACT_CHARS or _QUESTION.search(sentence):
        return False
    return tells_of_change(sentence)


def is_self_introduction(sentence: str) -> bool:
    """Whether a sentence introduces the speaker by name ("Hi, Rosa Lind here.").

    >>> is_self_introduction("Hi, Rosa Lind here."), is_self_introduction("The plumber here is slow.")
    (True, False)
    """
    return bool(_SELF_NAME.search(sentence)) or is_self_named(sentence)


def is_anecdote_of_today(sentence: str) -> bool:
    """Whether a sentence only tells the news of the day it is said, with no value: its one
    time word is the day going on ("this morning", "tonight", 今天早上) and either that part of
    the day is over ("this morning", "earlier today", 今早) or the sentence is told in the past
    ("The bus was packed tonight"). A number, identifier, date or name keeps it short-lived
    instead ("I parked in bay C-14 this morning"), and so does any other time word or a
    transaction (a booking for tonight).

    >>> is_anecdote_of_today("The neighbours' parrot screamed all morning, this morning I mean.")
    True
    >>> is_anecdote_of_today("The printer at work ate my slides tonight.")
    True
    >>> is_anecdote_of_today("I parked in bay C-14 this morning."), is_anecdote_of_today("Tonight I'm at the gym.")
    (False, False)
    >>> is_anecdote_of_today("今早楼下的狗叫个不停。"), is_anecdote_of_today("今天早上送修的电脑明天取。")
    (True, False)
    """
    if not _THIS_DAY.search(sentence) or _RELATIVE.search(_THIS_DAY.sub(" ", sentence)):
        return False
    sentence = without_durations(sentence)  # session 25: "we stood outside for 40 mins today" holds no value
    if (_NUMBER.search(sentence) or _IDENTIFIER.search(sentence) or _DATE.search(sentence)
            or has_name(sentence) or _TRANSACTION.search(sentence)):
        return False  # a value, or a booking whose result lasts ("订了今晚的餐厅")
    return bool(_EARLIER_TODAY.search(sentence)) or is_narrative(_THIS_DAY.sub(" ", sentence))


def _long_enough(sentence: str) -> bool:
    if HAN_CHAR.search(sentence):
        return len(HAN_CHAR.findall(sentence)) >= 6
    return len(sentence.split()) >= 4
