"""How the rules read the clauses of an instruction: the verbs that open a target clause, the comma that opens a
new clause, and where a list of inputs begins and ends ('using only carat and cut', 'amount and hour are the only
features'). Both the target decision and the input decision read sentences this way, so it lives below both."""

from __future__ import annotations

import os

from . import rx as re  # the re functions over a larger compile cache
from functools import lru_cache

from ..metrics import ALIASES
from .words import name_parts

_VERB_STEMS = (r"predict|forecast|estimat|classif|detect|flag|spot|identif|tell|catch|filter|find|model|regress|guess|"
               r"determin|figur(?:e|es|ed|ing) out|know|label|sort|scor|learn|infer|output|anticipat|project|calculat|"
               r"comput|work(?:s|ed|ing)? out|decid|recogni[sz]|foresee|distinguish|suggest|recommend|get|giv|say|"
               r"flag|screen|pick out|look(?:s|ed|ing)? for|see")
# the verb stems with any ending: 'predicts', 'estimating', 'classifies', 'flagged'
TARGET_VERBS = rf"(?:{_VERB_STEMS})(?:s|es|ed|d|ing|y|ies|ied|e)?"
# verbs that start a target clause wherever they stand; the others only after a comma or 'and'/'then'/'to'
# ('credit score' is not a verb, ', score them' is)
CLAUSE_VERBS = r"predict\w*|forecast\w*|estimat\w*|classif\w*|detect\w*|regress\w*|guess\w*|determin\w*|infer\w*|anticipat\w*|foresee\w*"
FEATURE_MARKERS = (r"from|using|use|based on|given|with|by|on the basis of|according to|plus|along with|"
                   # 'throw in every column, household id too'
                   r"as a function of|in terms of|throw in|throwing in|toss in|feed in|include|including")
NEGATIONS = (r"not|don't|dont|do not|doesn't|never|without|except|excluding|exclude|instead of|rather than|ignore|"
             r"ignoring|no|leave out|leaving out|omit|omitting|drop|dropping|stay out|stays out|left out")
# 'not missing fraud' means caring about fraud
NEGATED_NEGATIVES = r"\s+(?:miss|missing|overlook|overlooking|lose|losing|let through|letting through|skip|skipping)\b"
# 'everyone who was not hospitalised died': a 'not' in a relative clause describes the rows, it leaves nothing out
RELATIVE_NOT = r"\b(?:who|which|that|whose)\s+(?:was|were|is|are|had|has|have|did|do|does|could|would)\s*(?:n't|not)\b"
# a unit of a rate between a number and its bound word: '0.42 min/mile or better', '3 dollars per unit or less'
RATE_UNIT = r"[a-z$€£]+\s*(?:/|per\s+)\s*[a-z]+"
# a comma that opens a new clause ('with a camera, so could we get the weight'), not a list ('age, income and sex')
_CLAUSE_WORDS_BUT_IF = r"so|but|which|who|then|could|can|would|will|do|does|did|please|because|while|where|when|i|we|you|it|they|that"
_COMMA_CLAUSE_WORDS = rf"{_CLAUSE_WORDS_BUT_IF}|if"
_AND_THEN_VERB = (r"\band\s+(?:then\s+)?(?:evaluate|report|compare|measure|check|see|verify|test|tell|"
                  r"find out|look whether|make|keep|show|"
                  r"give|return|print|plot|save|assess|validate|test|optimi[sz]e|maximi[sz]e|minimi[sz]e|aim|score|rank)\b"
                  # (a verb with no object ends a list of names: 'GPAadj and Rank only', 'age and score.')
                  r"(?!\s*(?:only|alone)?\s*(?:[.,;:()]|$))")
CLAUSE_BREAK = rf",\s*(?:{_COMMA_CLAUSE_WORDS}|whether|what|how)\b|{_AND_THEN_VERB}"

# words that put a list of inputs after them: 'using', 'based on', 'look at', 'feed it'
INPUT_VERBS = (r"us(?:e|es|ed|ing)|based|by|bas(?:e|ing) it|rel(?:y|ying|ies) on|from|with|on|given|look(?:s|ing)? at|"
                r"consider(?:s|ing)?|feed(?:ing)?(?: it)?|train(?:ed|ing)?(?: it)? on|fit(?:ted)?(?: it)? on|"
                r"includ(?:e|ing)|keep(?:ing)?|allow(?:ed)?|sees?|seeing|know(?: about)?|get")
# 'regress Y on', 'a regression of Y on': the list after 'on' is what Y is regressed on
REGRESS_ON = r"\bregress(?:es|ed|ing|ion\s+(?:of|for))?\s+(?!on\b)[^.;]*?\bon\b"
_GLOSS = re.compile(r"\s*,\s*(?:the|a|an|its|his|her|their)\s+([^,;.()]{1,60}?),(?!\s*(?:and|or)\b)|"
                    r"\s*(?:column|variable|field)?\s*\(([^()]{1,80})\)")


def gloss_after(text: str, start: int, end: int, name: str) -> int | None:
    """Where what is said right after a column's name (text[start:end]) to gloss it ends: 'lprice, the log house
    price, on ...', 'the assess column (assessed value of house)'; its words describe that column and name no other.
    A gloss shares a word with the name ('price' in lprice, 'assess' in assessed); 'body_weight, the bone density,
    ...' and 'the built area, the area of the land, ...' are lists, whose items are said after commas."""
    m = _GLOSS.match(text, end)
    if m is None or (m.group(1) is not None and re.search(r",\s*(?:the\s+|a\s+|an\s+)?[\w.\s'-]{0,40}$", text[:start])):
        return None
    said = (m.group(1) or m.group(2) or "").lower()
    squashed = re.sub(r"[^a-z]", "", name.lower())
    parts = [p for p in {*re.split(r"[^a-z]+|(?<=[a-z])(?=[A-Z])", name), *name_parts(name).words} if len(p) >= 3]
    # (or begins like it: 'Recommends (the recommended course code)')
    shares = any(len(w) >= 3 and w in squashed for w in re.findall(r"[a-z]+", said)) or \
        any(p.lower() in said for p in parts) or \
        any(len(os.path.commonprefix([w, p.lower()])) >= 6 for w in re.findall(r"[a-z]+", said) for p in parts)
    return m.end() if shares and not re.search(r"\band\b", said) else None
ONLY_WORDS = (r"only|just|solely|exclusively|purely|nothing but|nothing except|nothing other than|no more than|"
         r"nothing more than|nothing beyond")
COLUMN_NOUNS = r"columns?|cols?|features?|fields?|inputs?|variables?|predictors?|attributes?|signals?|factors?"
LEAD_IN = rf"(?:\s*(?::|on|from|the|these|those|following|its|their|{COLUMN_NOUNS})\b\s*)*"
# where a restriction list opens
_RESTRICT_OPENERS = (
    rf"\b(?:{INPUT_VERBS})\s+(?:{ONLY_WORDS})\b{LEAD_IN}",  # 'using only', 'based solely on', 'from just'
    rf"\b(?:{ONLY_WORDS})\s+(?:{INPUT_VERBS})\b{LEAD_IN}",  # 'only use', 'just using', 'solely based on'
    rf"\bgo(?:es|ing)?\s+(?:{ONLY_WORDS})\s+(?:on|by|off)\b{LEAD_IN}",  # 'go only on their SAT result, ...'
    # 'the only things we know about a mouse are'
    rf"\bthe only (?:{COLUMN_NOUNS}|things|facts|details)\s+(?:(?:we|you|i) (?:know|have)(?: about (?:\w+ ){{1,2}}?)?)?"
    rf"(?:(?:it|the model|we|you) )?(?:(?:should|may|can|must|will) )?"
    r"(?:use|see|get|be|allowed|permitted|trust(?:ed)?|have|need(?:ed)?|want(?:ed)?|to use)?\s*(?:are|is|should be|"
    r"will be|:)\s*",  # 'the only inputs are', 'the only features allowed are'
    rf"\b(?:limit|restrict|limited|restricted|confine|confined)\b[^.;:]{{0,40}}?\bto\b{LEAD_IN}",  # 'limit the features to'
    rf"(?<!\bis )(?<!\bare )(?<!\bwas )(?<!'s )\bnothing (?:but|except|other than|else than)\b{LEAD_IN}",  # not 'X is nothing but Y'
    # 'Predictors: tenure, contract', '* allowed inputs: cc, attach'
    # ('(Inputs: a, b and c, nothing more; ...)': a heading may open parentheses)
    rf"(?:^|[.;!?]\s*|\(\s*|\n\s*[-*\u2022]?\s*|\b(?:with|and)\s+)(?:the\s+)?(?:(?:allowed|permitted|usable|available|"
    rf"candidate|model)\s+)?(?:{COLUMN_NOUNS})"
    r"(?:\s*,?\s*(?:(?:(?:exactly|only|just|precisely)\s+)?(?:these|those|the following)|"
    r"in (?:this|that|the following|no particular|any) order))?\s*:\s*",  # 'inputs, exactly these:', 'inputs, in this order:'
    rf"{REGRESS_ON}\s+",  # 'regress charges on age and bmi', 'a regression of lbwght on these columns: ...'
    # 'cluster them by A, B', 'fall into natural camps based on A and B'
    r"\b(?:cluster|group|segment|camps?\b|tribes?\b|personas?\b)\w*\b[^.;]*?\b(?:by|on|using|from|in)\s+(?!only\b|just\b)",
    r"(?:^|[.;:!?,\-]\s*)only\s+(?!if\b|when\b|for\b|in\b|on\b|after\b|before\b|once\b)",  # 'only tenure and contract
    # should go in', 'price, only carat'
    # 'y = Salary | X = Country, Remote', 'y: price | X: carat, cut': the inputs in a model's notation
    r"(?:^|[|;,]\s*|[.!?]\s+)(?:x|inputs?|features?|predictors?|use|using)\s*[=:]\s*",
    # 'a model that can say the pay when I give him the years in school, the age and the sex': what it is given
    r"\b(?:when|if|once)\s+(?:i|we|you|they)\s+(?:give|feed|tell|show|hand)\s+(?:him|her|it|them|you|the model)\s+",
    # 'a lab only measured the carbon content': what is known is all there is to use
    rf"\b(?:only|just|solely)\s+(?:measured|recorded|observed|collected|knew|know|had|have)\b{LEAD_IN}",
    # 'as input please take the age, ...', 'as features use: a, b', 'as inputs please only: a, b': the inputs named, then
    # given
    rf"\bas\s+(?:the\s+|its\s+|model\s+)?(?:{COLUMN_NOUNS})\s*,?\s*(?:please\s+|kindly\s+)?(?:(?:we|you|i)\s+)?"
    r"(?:(?:only\s+|just\s+)?(?:take|use|give it|feed it|have|choose|pick)\b|only\b|just\b)\s*:?\s*",  # 'as inputs please only:'
    # 'using two columns only: carat and depth', 'on two proportions only, the depth and the table', 'from these two
    # alone: A and B': a counted heading said to be all there is, then its list
    rf"\b(?:{INPUT_VERBS})\s+(?:the\s+|these\s+|those\s+)?(?:\d+|two|three|four|five|six|seven|eight|nine|ten)"
    r"(?:\s+[\w-]+){0,2}?\s+(?:only|alone)\s*[:,]\s*",
    # 'if all we knew was the age and the site', 'all the model gets is', 'knowing only'
    rf"\ball\s+(?:we|you|i|it|they|the model)\s+(?:knew|know|had|have|got|gets?|saw|sees?|was given|is given)\s+"
    rf"(?:about\s+(?:\w+\s+){{1,2}})?(?:was|were|is|are)\b{LEAD_IN}",
)
# a list of inputs then 'only' or 'and nothing else': 'with carat and cut only', 'use age and income, nothing else'
# 'amount and hour of day are the only features we trust': the list opens the sentence
_ONLY_ONES = (rf"\s+(?:are|is|will be|should be|must be)\s+(?:(?:the\s+)?only\s+(?:{COLUMN_NOUNS}|ones?)\b|"
              # 'What's left, the total spend, the net income and the age, is fair game'
              r"fair game\b|"
              r"all (?:it|the model|we|you) (?:may |can |should |will |gets to |is allowed to )?(?:see|use|look at|get|"
              r"need|have)\b)")  # 'glucose and age are all it may look at'
# ('the flock ID is only a label' says what the column is)
RESTRICT_CLOSERS = (rf"\s+(?:only|alone)\b(?!\s+(?:{INPUT_VERBS}|{COLUMN_NOUNS}|a|an|observed|known|available|recorded|measured|"
                     r"collected|filled|present|seen|valid|defined|computed|calculated|exist|exists|make sense)\b)",
                     rf"[,;.\s-]*(?:and\s+)?(?:nothing else|nothing more|no other (?:{COLUMN_NOUNS})|none of the "
                     rf"others?|not the (?:others?|rest)|(?:ignore|drop|skip|leave out) (?:everything|all|anything) "
                     rf"else|(?:ignore|drop|skip|leave out) the (?:rest|others)|(?:only|just|solely|exclusively) "
                     rf"(?:those|these|them)(?:\s+\w+)?|as (?:the\s+)?only\s+(?:{COLUMN_NOUNS})|(?:not|no|nothing)\s+"
                     rf"(?:any\s+)?(?:other|else|more)(?:\s+(?:things?|stuff|{COLUMN_NOUNS}))?)\b")
# in a list of columns ', whether they are married' and ', how many days it was' are items, not a new clause
# (and, as a learner may write them, ', if he is self-employed' and ', how big is his family')
ITEM_CLAUSES = (rf",\s*(?:{_CLAUSE_WORDS_BUT_IF}|if(?!\s+(?:he|she|they|the person)\s+(?:is|are|was|were|has|"
                rf"have)\b)|what|how(?!\s+(?:many|much|long|old|often|far|big|large|tall|heavy|high)))\b|{_AND_THEN_VERB}")
# ', F1 >= .6', ', latency < 20 ms': what follows the comma is a bound, not one more column
BOUND_AHEAD = r",\s*(?=(?:[\w%]+(?:-[\w%]+)*\s*){1,4}[<>\u2264\u2265]=?\s*\.?\d)"
# (', nothing fancy': a remark on the model after the list)
LIST_END = (rf"[;?!()|:]|\.(?:\s|$)|\s+(?:-{{1,3}}|[\u2013\u2014])\s+|{ITEM_CLAUSES}|"
            r",\s*nothing\s+(?:fancy|complicated|complex|special|elaborate|sophisticated)\b|"
            # ', the other shares I do not want': what follows speaks of the columns the list leaves out
            r",\s*(?:the|all|any)\s+others?\b|,\s*(?:everything|anything)\s+else\b|"
            rf",\s*(?:how (?:well|good|accurately|accurate|closely|close)|could we|"
             r"can we|would (?:we|it|that|the model)|will (?:we|it|the model))\b|\s+(?:without|except|but not|excluding)\b|,\s*(?:no|not|but not|except|without|leave|drop|exclude|ignore|"
             r"remove|skip|omit|don't|do not|keep|report|optimi[sz]e|maximi[sz]e|minimi[sz]e|measure|evaluate|score|"
             # ', keeping the cut grade away from the algorithm': a clause of its own, no further item
             r"leaving|dropping|ignoring|removing|skipping|omitting|keeping|reporting|measuring|evaluating|scoring|"
             r"making sure)\b|"
             r",?\s*\b(?:with|and|by|on)\s+(?:the\s+|an?\s+)?(?:" + "|".join(re.escape(a) for a in ALIASES) + r")\b|"
             rf"\b(?:to|and|then|so as to|in order to)\s+(?:{TARGET_VERBS})\b|"
             rf"(?<!\.)\b(?:{CLAUSE_VERBS}|when|where|because|since|while|as (?:features?|inputs?))\b|"
             # ('its mass, its instar and whether it is feeding': a last item may ask whether)
             r"(?<!\band )(?<!\bor )\bwhether\b|"
             rf"{RESTRICT_CLOSERS[1]}|\b(?:it|the model|a model|this)\s+(?:must|should|has to|needs to)\b|\bonly\b|"
             rf"{BOUND_AHEAD}|"
             r"\b(?:should|must|may|might|will|would|can|could|are|is|go|goes|get|gets|be|matter|matters)\b")


# words before a list of inputs said without 'only'
_LISTING_WORDS = (r"from|off|off of|using|use|based on|given|as a function of|in terms of|on the basis of|please take|"
                  r"take into account|taking into account|"
                  # 'the price of a journal with the columns society, pages, ...' ('along with' adds to what is predicted)
                  r"(?<!along )(?<!together )(?<!compared )(?<!comparing it )with")


def restriction_strength(opener: str) -> str:
    """'strong': the words can only be about inputs, so an item naming no column is asked about ('using only',
    'features restricted to'); 'soft': a limit only when every item names a column ('regress charges on age and
    bmi', not 'regress math on demographics'); 'weak': the rest ('with just', 'from only'); 'listed' (three items or
    more after a plain 'from' or 'using'): a limit only when each names a column."""
    if re.match(r"regress|cluster|group|segment|camp|tribe|persona", opener):
        return "soft"
    if re.match(r"all\s", opener):
        return "strong"
    if re.search(rf"\b(?:us(?:e|es|ed|ing)|go(?:es|ing)?|based|bas(?:e|ing) it|rel(?:y|ying|ies) on|feed(?:ing)?|{COLUMN_NOUNS}|"
                 r"limit\w*|restrict\w*)\b", opener):
        return "strong"
    return "weak"


# a heading before a colon names the list after it: 'four things:', 'their economic background:', 'three numbers:'
# ('sat, tothrs and hsize: ...' is a list itself)
_LIST_HEADING = r"[^:,.;!?]{1,60}:\s*(?=\S)"


# a heading that says which of everything: 'everything we only learn once the claim has run its course: A and B'
_EVERYTHING_HEADING = r"\s*(?:everything|anything|all|whatever)\b[^:,.;!?]{1,100}:\s*(?=\S)"


def heading_length(text: str) -> int:
    """How long the heading that opens text is ('four things: ' in 'four things: A, B and C'); 0 without one."""
    everything = re.match(_EVERYTHING_HEADING, text)
    if everything and len(everything.group(0).split()) <= 16:
        return everything.end()
    heading = re.match(_LIST_HEADING, text)
    if heading and re.search(r"\b(?:except|but|without|excluding|apart from|other than|besides)\b", heading.group(0)):
        return 0  # 'use everything except the other versions of the price: A, B': the list is what is left out
    if heading and re.match(r"\s*(?:everyone|everybody|nobody|no one|they|it|this|that|these|those|because|since|as|"
                            r"otherwise|both|each)\b", text[heading.end():]):
        return 0  # 'leave out A and also B: everyone who was not treated died': a reason follows, the list came first
    return heading.end() if heading and len(heading.group(0).split()) <= 8 else 0


_HOW_OFTEN_ITEM = re.compile(r"(?:^|,\s*|\b(?:and|or)\s+)how\s+(?:often|much|many|long|far|old)\s+(?:[\w-]+\s+){0,3}$")
# a parenthesis that glosses one item, then a comma and the next item: 'sex (the female column), black'; not one that
# says a sentence ('(the model must not see substance)') or a formula, nor one a new clause follows
_ITEM_GLOSS = re.compile(
    r"\((?![^()]*(?:=|\b(?:must|should|will|would|can|could|may|is|are|was|were|see|sees|use|uses|used)\b))"
    r"[^()]{1,80}\)\s*,\s*(?:and\s+)?(?!(?:then|so|but|because|since|as|which|who|while|when|where|i|i'[a-z]+|we|you|"
    r"they|it|he|she|this|that|there|please|plus|also)\b)(?=\w)")


def _next_list_end(rest: str, at: int):
    """The first end of a list from `at` on that has words before it."""
    return next((m for m in re.compile(LIST_END).finditer(rest, at) if rest[at:m.start()].strip()), None)


def list_after(text: str, start: int) -> tuple[int, int]:
    # 'using only four things: A, B and C', 'except three columns: A, B': what comes before the colon names the list
    start += heading_length(text[start:])
    rest = text[start:]
    stop = _next_list_end(rest, 0)
    # 'the logged pay variable, which is just the answer rewritten, and the two parental fields', 'the occupation where
    # he is working, and the region': an aside on one item, then the list goes on
    while stop and (aside := re.match(r",?\s*(?:(?:which|who)\s+(?:is|are|was|were|has|have|had)\b|where\s+(?:he|she|they|it)\b)"
                                      r"[^.;:!?()]{1,80}?,\s*(?:and|as well as|along with|together with|plus)\s+(?=\w)",
                                      rest[stop.start():])):
        stop = _next_list_end(rest, stop.start() + aside.end())
    # ('its body mass, its instar and whether it is actively feeding': an item that asks whether keeps its verb)
    while stop and re.search(r"(?:^|,\s*|\b(?:and|or)\s+)(?:whether|if)\s+(?:it|he|she|they|(?:the|its|his|her|their)\s+"
                             r"[\w-]+)\s*$", rest[:stop.start()]) \
            and re.fullmatch(r"\s*(?:is|are|was|were|has|have|had|gets?|got|be)", rest[stop.start():stop.end()]):
        stop = _next_list_end(rest, stop.end())
    # ('years of school, sex (the female column), black, ...': a parenthesis that glosses one item, then the list goes
    # on; 'how often he goes to church, ...': an item that asks how often keeps its verb)
    while stop:
        at = rest[stop.start():]
        gone_on = (re.match(_ITEM_GLOSS, at) if at.startswith("(") else None) \
            or (re.match(r"\s*\w+", at) if _HOW_OFTEN_ITEM.search(rest[:stop.start()]) else None)
        if gone_on is None:
            break
        stop = _next_list_end(rest, stop.start() + gone_on.end())
    return start, start + (stop.start() if stop else len(rest))


# words whose 'from' says where from, not what from: 'the distance from', 'derived from', 'how far away from'
_FROM_BELONGS_TO = (r"\b(?:distance|distances|far|away|apart|different|differs?|derived|separated?|absent|removed|"
                    r"flew|fled|came|comes|come|originat\w*|travell?ed|moved?|drove|walked)\s*$")


def list_before(text: str, end: int) -> tuple[int, int] | None:
    """The input list that a closing 'only' or 'nothing else' ends, back to its verb ('with carat and cut only'):
    (where the verb starts, where the list starts)."""
    head = text[:end]
    opener = None
    # a verb of using, or the inputs named as such where a sentence starts ('inputs carat/cut/color, nothing else')
    for m in re.finditer(rf"\b(?:{INPUT_VERBS})\b{LEAD_IN}|(?:^|(?<=[.;:!?])\s+)(?:the\s+)?(?:inputs?|features?|"
                         rf"predictors?)\b{LEAD_IN}", head):
        if re.match(r"from\b", m.group(0)) and re.search(_FROM_BELONGS_TO, head[:m.start()]):
            continue  # 'its sideways distance from the flock': the flock is where the distance is measured from
        opener = m
    if opener is None or re.search(r"[;:?!]|\.(?:\s|$)", head[opener.end():]):  # 'Turn.circle' ends no sentence
        return None
    if re.search(CLAUSE_BREAK, head[opener.end():]) or re.search(
            r"\b(?:not|n't|never|don't|dont)\s*$", head[:opener.start()]):  # "don't use prof, it's only an ID"
        return None
    return opener.start(), opener.end()


@lru_cache(maxsize=64)
def input_spans(text: str) -> tuple[tuple[int, int, int, int, str], ...]:
    """Where the text limits the inputs: (phrase start, list start, list end, phrase end, how sure: see restriction_strength).
    Also what the target decision treats as inputs ('based only on contract and tenure')."""
    spans = []
    for opener in _RESTRICT_OPENERS:
        for m in re.finditer(opener, text):
            a, b = list_after(text, m.end())
            spans.append((m.start(), a, b, b, restriction_strength(m.group(0))))
    for closer in RESTRICT_CLOSERS:
        for m in re.finditer(closer, text):
            end = len(text[:m.start()].rstrip(" ,;.-"))
            if re.search(r"[.;!?]", text[end:m.start()]):
                continue  # 'use the rest. only thing: ...': a sentence ended before it, it closes no list
            found = list_before(text, end)
            if found and text[found[1]:end].strip():
                spans.append((found[0], found[1], end, m.end(), restriction_strength(text[found[0]:found[1]])))
    for m in re.finditer(_ONLY_ONES, text):
        sentence = max((b.end() for b in re.finditer(r"[.;:!?]|\s[-\u2013\u2014]+\s", text[:m.start()])), default=0)
        a = list_start(text, sentence, m.start())
        if "fair game" in m.group(0):  # what is allowed may be said in clauses: 'how old the head is, ... is fair game'
            rest = re.match(r"\s*(?:(?:what's|what is|whatever is|everything) (?:left|else|remaining)|the rest),?\s*",
                            text[sentence:])
            a = sentence + (rest.end() if rest else len(text[sentence:]) - len(text[sentence:].lstrip()))
        spans.append((a, a, m.start(), m.end(), "strong"))
    # 'classify vote from dem, rep, clintondis, bushdis, perotdis': three or more named after a plain 'from' are the
    # inputs meant (a limit only when every item names a column, see restriction_strength)
    for m in re.finditer(rf"\b(?:{_LISTING_WORDS})\b{LEAD_IN}", text):
        if re.search(rf"\b(?:is|are|was|were|comes?|came|apart|aside|away|{NEGATIONS})\s*$", text[:m.start()]):
            continue  # 'whether the customer is from France, Spain or Italy', "don't use A, B and C", 'apart from A and B'
        a, b = list_after(text, m.end())
        if re.search(r"\bexcept|\bexclu|\bwithout\b", text[m.end():a]) or re.match(rf"\s*(?:{NEGATIONS})\b", text[a:b]):
            continue  # 'all the other fields with two exceptions: drop A, ... and drop B': what is left out
        items = [i for i in re.split(r",|\band\b|\bor\b|&", text[a:b]) if i.strip()]
        # (two items only when short and right after the word: 'from its bill and flipper measurements', not 'a caveat
        # from the research team: the hours and wage ...' nor 'With hprice1, model the value of each home')
        # ('gender, lunch and test preparation' cut short before 'and test' is no list of two; 'DiabetesDiagnosis as the
        # label and everything else as features' names the target)
        two = len(items) == 2 and ":" not in text[m.end():a] and all(len(i.split()) <= 4 for i in items) \
            and not re.match(r"\s*(?:(?:and|or)\b|&)", text[b:]) \
            and not re.search(r"\b(?:label|target|output|outcome|everything|else|rest)\b", text[a:b])
        if (len(items) >= 3 or two) and not any(s[1] <= a < max(s[2], s[1] + 1) or a <= s[1] < b for s in spans):
            # 'for this please take A, B and C' asks for them as plainly as 'using only'
            told = re.match(r"please|take into|taking into", m.group(0))
            spans.append((m.start(), a, b, b, "strong" if told else "listed"))
    return tuple(spans)  # cached: the target decision asks twice per instruction, the input decision once more


def list_start(text: str, start: int, end: int, windows: list[tuple[int, int]] = ()) -> int:
    """Where the list of inputs before 'as features' begins: back over short comma-separated items ('carat, cut and
    colour as features'), not into the clause before them ('a valuation model for stones, 4cs as features'), nor past
    'but' or 'X as the label and', nor over a window said between ('ausAVt, five years ahead, using the previous ten
    years as input': its inputs are years of the series, no list)."""
    chunk = text[start:end]
    cut = [m.end() for m in re.finditer(r"\bbut\b|\bas (?:the |our )?(?:label|target|output|outcome)\b(?:\s+and\b)?", chunk)]
    if cut:
        start, chunk = start + cut[-1], chunk[cut[-1]:]
    pieces = re.split(r",(?![^(]*\))", chunk)
    kept = [pieces[-1]]
    at = end - len(pieces[-1])
    for piece in reversed(pieces[:-1]):
        at -= len(piece) + 1
        if len(piece.split()) > 4 or any(a < at + len(piece) and at < b for a, b in windows):
            break
        kept.append(piece)
    return end - len(",".join(reversed(kept)))
