"""Which columns the instruction allows as inputs: 'using only carat and cut' limits them, 'don't use the customer
id' leaves one out. A list that names no column is asked about, never ignored."""

from __future__ import annotations

import fnmatch

from . import rx as re  # the re functions over a larger compile cache

from pydantic import BaseModel, Field

from ..contracts import ColumnProfile, DataProfile
from .clauses import (BOUND_AHEAD, CLAUSE_BREAK, COLUMN_NOUNS, LEAD_IN, RELATIVE_NOT, heading_length, input_spans,
                      list_after)
from .target import NOT_TARGETS, column_mentions, concept_synonyms, word_matches
from .transforms import LOG, TRANSFORMS, transform_of
from .words import (COUNTED_IN_TIME, STOPWORDS, abbreviates_phrase, acronyms_spelt, compounds_spelt,
                    expand_shorthand, letter_before_word, name_parts, normalise, run_of_beginnings, short_form_at_end,
                    shortens, skeleton_at_end, split_name, tokens, word_or_stem_inside_a_code)

_EXCLUDE_OPENERS = (
    rf"\b(?:do not|don't|dont|did not|didn't|never|not|shouldn't|should not|must not|mustn't|can't|cannot|won't|"
    rf"wouldn't|would not|without|(?:won't|will not|doesn't|does not|don't|do not|can't|cannot|without) "
    # 'without letting the clustering see the position'
    rf"(?:let(?:ting)?|allow(?:ing)?) (?:us|me|you|it|them|the model|the [a-z]+)(?: to)?)\s+"
    rf"(?:to\s+)?(?:us(?:e|ing)|includ(?:e|ing)|look(?:ing)? at|consider(?:ing)?|feed(?:ing)?|rel(?:y|ying) on|"
    rf"touch(?:ing)?|see(?:ing)?)\b(?:\s+(?:it|them|the model|the classifier|the regressor))?{LEAD_IN}",
    rf"\b(?:exclud(?:e|es|ed|ing)|ignor(?:e|es|ed|ing)|leav(?:e|es|ing) out|left out|omit(?:s|ted|ting)?|"
    rf"drop(?:s|ped|ping)?|remov(?:e|es|ed|ing)|skip(?:s|ped|ping)?|throw(?:ing)? away|disregard(?:s|ed|ing)?)\b"
    rf"{LEAD_IN}",
    rf"\b(?:everything|anything|all else|all the rest|(?:all|every|each|any|the other|other|the rest of the)\s+"
    rf"(?:other\s+)?(?:{COLUMN_NOUNS}))\s*,?\s+(?:except|but|apart from|"
    rf"besides|other than)(?: for)?\b{LEAD_IN}",
    rf"\b(?:except|apart from|excluding|but not|without)(?: for)?\b{LEAD_IN}",
    # 'the remaining columns as predictors, minus wage itself'
    rf"(?:,\s*|\b(?:{COLUMN_NOUNS}|rest|others|everything)\s+)minus\b{LEAD_IN}",
)
# every column there is, as a list of inputs: 'whatever else the table offers', 'all remaining columns', 'the rest'
_ALL_THE_COLUMNS = (rf"\s*(?:whatever|everything|anything|all|every|each|any|the rest|the others|the remaining|the other)"
                    rf"(?:\s+(?:the\s+)?(?:else|other|others|remaining|rest|of the|{COLUMN_NOUNS}))*(?:\s+(?:the\s+)?"
                    r"(?:table|data|file|dataset|sheet)\s+(?:offers|has|gives|contains|holds|provides))?\s*")
# 'leave OverallQual out', 'keep the id out of it'
_EXCLUDE_AROUND = (r"\b(?:leav(?:e|ing)|keep(?:ing)?|tak(?:e|ing)|left|put(?:ting)?|set(?:ting)?|hold(?:ing)?)\s+"
                   r"(?P<list>[^.;:!?]{1,60}?)\s+(?:out|aside|away\s+from\s+(?:the\s+)?(?:model|inputs?|features?|training))\b")
# 'Sex must not be an input', 'the ID is off limits': the column said first, then that it may not be used
# 'those can't be used as inputs', 'the indicators (white, black) stay out of the model'
_EXCLUDE_AFTER = (r"(?:^|[.;:!?]\s*|,\s*|\band\s+|\bbut\s+|\bthat\s+)(?P<list>[^.;:!?,]{1,60}?|[^.;:!?(]{0,60}?\([^()]{1,120}\))"
                  r"\s+(?:(?:(?:must|should|may|can|will|is to|are to|has to|have to)\s*(?:not|never)|can't|cannot|won't|"
                  r"mustn't|shouldn't|may not)\s+be\s+(?:used|(?:an? )?(?:input|feature|predictor)s?|included|considered|fed in|"
                  r"touched)"
                  # 'the player's name is out too'
                  r"|(?:is|are)\s+(?:therefore\s+|thus\s+|also\s+)?out(?=\s*(?:too|as well|also)?\s*(?:[.;,!]|$))"
                  r"|(?:is|are)\s+(?:therefore\s+|thus\s+|also\s+)?(?:off[- ]limits|not allowed|forbidden|banned|taboo|"
                  r"off the table|out of bounds|not to be used|not an? (?:input|feature)s?|"
                  # 'the price index and the degree-day count are not needed here'
                  r"not (?:needed|necessary|required|wanted|relevant)|unnecessary|unneeded|irrelevant)"
                  # 'the other shares I do not want inside'
                  r"|(?:i|we)\s+(?:do not|don't|dont)\s+want(?=\s*(?:inside|in\s+(?:it|there|the model)|included|used)?\s*"
                  r"(?:[.;,!]|$))"
                  r"|sits?\s+(?:this\s+(?:one|1)\s+|it\s+)?out"
                  # 'so they must be removed'
                  r"|(?:must|should|has to|have to|need to|needs to|are to|is to)\s+be\s+(?:removed|dropped|excluded|left out|"
                  r"taken out|deleted|discarded|ignored)"
                  r"|(?:(?:must|should|has to|have to|need to|needs to|will)\s+)?(?:stay|stays|remain|remains|be kept|be left)"
                  r"\s+out(?:side)?\s+of\s+(?:the\s+)?(?:model|inputs?|features?|training))\b")
# 'Also lsalary out, it is same as target', 'rank and top10 out too': names said bare, then 'out' (only names as
# written count: 'the week it sold out' says nothing of a column)
_NAMES_OUT = (r"(?:^|[.;:!?]\s*|,\s*|\bbut\s+)(?:also\s+|and\s+|plus\s+)?(?P<list>[\w.]+(?:\s*(?:,|\band\b|&|\+)\s*[\w.]+)*)"
              r"\s+out(?:\s+too|\s+as\s+well|\s+also)?\s*(?=[.;,!]|$)")
# the items a pronoun stands for: 'the action code and the reject flag' ... 'those can't be used'
_PRONOUN_LIST = (r"\s*(?:so\s+|and\s+)?(?:obviously\s+|clearly\s+|of course\s+)?"
                 r"(?:(?:(?:all|both|the)\s+(?:(?:two|three|four|five|six|\d)\s+)?of\s+)?(?:those|these|they|both|them)"
                 r"|all\s+(?:two|three|four|five|six|\d))"  # 'keep all three out'
                 r"(?:\s+(?:two|three|four|five|six|\d|columns?|fields?|variables?))?\s*")
_PRONOUN_WORDS = _PRONOUN_LIST.removeprefix(r"\s*").removesuffix(r"\s*")
# 'drop rows with a missing price' removes rows; 'without overfitting' leaves out no column
_NOT_COLUMNS = (r"\s*(?:the\s+|any\s+|all\s+)?(?:rows?|records?|entries|duplicates?|outliers?|missing|nulls?|nans?|"
                r"nas?|n/a|empty|blanks?|zeros?|negative|invalid|bad|corrupt\w*|wrong|typos?|nois\w*|samples?|"
                r"examples?|observations?|cases?|lines?|warnings?)\b")
# 'drop the values in carat above 3' filters cells, it keeps the column
_CELL_FILTER = r"\b(?:values?|rows?|cells?|entries|records?)\s+(?:in|of|where|with|from|for)\b|\b(?:where|when|if)\b"
# 'no depth, no table': said of a column by its exact name
# ('not RI') in parentheses leaves a column out too; 'predict price, not the carat' says what is not the target
_NO_COLUMN = (r"(?:(?:^|[,.;:!?(]\s*|\band\s+|\bbut\s+)no|\(\s*not)\s+((?:[`'\"]?[\w. -]+?[`'\"]?)(?:\s*(?:,|\bor\b|\bnor\b)\s*"
              r"[`'\"]?[\w. -]+?[`'\"]?)*)\s*(?=[,;:!?()]|\.(?:\s|$)|\band\b|\bcolumns?\b|\bnames?\b|$)")
# 'do not use estperf, ..., and obviously not the name either': a further column left out
_NOT_EITHER = r"\b(?:not|nor)\s+(?:the\s+|its\s+|their\s+)?([\w.]+(?:\s+[\w.]+)?)\s+(?:either|too|as well|neither)\b"
# 'so drop that too': the column the clause began with
_DROP_THAT = (r"\b(?:drop|exclude|remove|ignore|skip|omit|leave)\s+(?:that|this|it)(?:\s+one)?(?:\s+out)?\s*"
              r"(?:too|also|as well|out)?\b")
# 'the price columns for all four brands': whose they are, said of every member of a family of columns
_FOR_EVERY_MEMBER = (r"(?<=\w)\s+(?:for|of|across)\s+(?:all|each|every|both)\s+(?:of\s+)?(?:the\s+)?(?:\d+\s+|"
                     r"(?:two|three|four|five|six|seven|eight|nine|ten)\s+)?[\w-]+\b(?=\s*(?:$|[,;(]|\band\b))")
_ITEM_SPLIT = r",|;|/|&|\+|\band\b|\bor\b|\bnor\b|\bplus\b|\bas well as\b|\balong with\b"
_ITEM_NOISE = rf"\b(?:the|a|an|its|their|his|her|our|my|your|these|those|this|that|{COLUMN_NOUNS}|" \
              r"column named|called|named|values?|info(?:rmation)?|data|measured|given|stones?|each|overall|altogether|itself|themselves)\b"
# a kind of column, said of a group: 'the categorical ones', 'all numeric columns'; not 'its category' (one column)
_KIND_WORDS = {"numeric": r"numeric|numerical|numbers|quantitative|continuous",
               "categorical": r"categorical|categories|qualitative|nominal"}
STRONG = 0.75  # how sure a word match must be to name a column
# words that add nothing to a column's name: 'smoker status', 'the contract type', 'the balcony flag'
_GENERIC = {"status", "type", "kind", "flag", "indicator", "code", "level", "info", "information", "value", "values",
            "column", "columns", "feature", "features", "field", "variable", "data", "details", "yes", "no", "label",
            "labels", "number", "only", "just", "pls", "plz", "please", "also", "too", "alone", "all", "whatsoever",
            "entirely", "completely", "either", "figure", "figures", "readings", "group"}
# a list of these is about rows, resources or the model, not columns: 'using only a CPU', 'only on rows after 2020'
_NOT_INPUTS = (r"\d|\b(?:under|over|above|below|less|more|than|between|after|before|model|models|cpu|gpus?|cores?|"
               r"memory|ram|time|seconds?|minutes?|hours?|ms|mb|gb|librar(?:y|ies)|sklearn|scikit|linear|trees?|"
               r"network|algorithms?|rows?|records?|training|train|test|validation|budget|samples?|examples?|subset|"
               r"part|half|percent|fraction|standard|open|python|default|defaults|settings?|data|dataset|file|table|csv|"
               r"code|lines|care|cloud|laptop|machine)\b")


class FeatureChoice(BaseModel):
    """What the instruction says about the inputs: kept empty when it says nothing, so every usable column is used."""

    only: list[str] = Field(default_factory=list, description="the columns the model is limited to")
    excluded: list[str] = Field(default_factory=list, description="columns the instruction says not to use")
    only_phrase: str = Field(default="", description="the words that set the limit")
    excluded_phrase: str = ""
    unresolved: list[str] = Field(default_factory=list,
                                  description="items of a 'use only' list that name no column, or several")
    unresolved_exclusions: list[str] = Field(default_factory=list,
                                             description="items said not to be used that name no column, or several")


def _items(chunk: str, names: frozenset[str] = frozenset()) -> list[str]:
    """The list's items without their noise words; an item that is a column's name whole stays, though the name is a
    noise word ('pages, subs and field' with a column called field)."""
    items = []
    chunk = re.sub(r"\s+or\s+not\b", "", chunk)  # 'urban or not' is the urban item, asked as a yes or no
    # 'the change between 71 and 82': the two ends of a span are one item
    chunk = re.sub(r"\b(between\s+(?:the\s+)?[\w.'-]+)\s+and\s+(?=[\w.'-])", "\\1\x01", chunk)
    # 'the free/reduced-price lunch share': two words for one head after them are one item ('age/income and
    # tenure' is still two, and so is the end of a longer chain: 'the price/time/change/comfort attributes')
    chunk = re.sub(r"(?<![/\w-])([a-z][\w-]*)/(?=[a-z][\w-]*\s+(?!(?:and|or|nor|plus|as|along)\b)[a-z])", "\\1 ", chunk,
                   flags=re.IGNORECASE)
    for piece in re.split(_ITEM_SPLIT, chunk):
        piece = piece.replace("\x01", " and ")
        if re.match(r"\s*(?:(?:which|who)\s+(?:is|are|was|were|has|have|had|would|will|can|could|may|might|must|"
                    r"should)|since|because)\b", piece):
            continue  # 'the logged pay variable, which is just the answer rewritten, and ...': an aside on the item before
        if re.fullmatch(r"\s*(?:all|both|each|each one|every one|everything)\s+(?:of\s+them\s+)?(?:in|as)\s+"
                        r"(?:(?:their\s+)?levels?|plain|raw|original)(?:\s+(?:units|form|values|terms))?\s*", piece):
            continue  # '..., all in levels': the items as they stand, said of the list, no item itself
        # 'the occupation where he is working': the item, without what is said of it
        piece = re.sub(r"\s+(?:where|who|which)\s+(?:he|she|they|it|is|are|was|were)\b.*$", "", piece)
        piece = re.sub(_FOR_EVERY_MEMBER, "", piece)
        bare = re.sub(r"^(?:(?:the|its|their|a|an)\s+)+", "", " ".join(piece.strip(" '\"`:-.").split()))
        words = bare if bare.lower() in names or _noise_spells_a_name(bare, names) else " ".join(
            re.sub(_ITEM_NOISE, " ", piece.strip(" '\"`:-")).split())
        if words:
            items.append(words)
    return items


def _noise_spells_a_name(item: str, names: frozenset[str]) -> bool:
    """'the market value' with a column mktval: a word that is noise elsewhere ('value', 'data') gives a coded name
    its last letters, so the item keeps it."""
    said = [t.text for t in tokens(item) if t.text not in STOPWORDS]
    return len(said) >= 2 and bool(re.fullmatch(r"values?|data|info(?:rmation)?", said[-1])) and any(
        abbreviates_phrase(name, said[-2:]) or abbreviates_phrase(name, said) for name in names if name.isalpha())


def _scores(item: str, columns: list[ColumnProfile], head: bool = False) -> dict[str, float]:
    return {name: score for name, (score, _) in _mentions(item, columns, head).items()}


def _mentions(item: str, columns: list[ColumnProfile], head: bool = False) -> dict[str, tuple[float, frozenset[str]]]:
    """How strongly the item's words say each column, and which of its words do. With head=True a column counts only when its name says the
    item's head word, its last meaningful one: 'floor area' is an area, not the floor column; 'smoker status' is
    the smoker column, 'the applicant's credit score' CreditScore."""
    toks = tokens(item)
    meaningful = [t.text for t in toks if t.text not in STOPWORDS and t.text not in _GENERIC]
    # 'the number of children at home', 'price per square foot', 'access to health services': a place, rate or goal
    # said after the head qualifies it
    # (but 'the score on the intelligence test' says which score)
    # ('the distance from house to incinerator': from where and to where, both)
    # ('the GPA before the term': when, which says nothing of a term column)
    headed = re.sub(r"(?:(?<=\w)\s+(?:at|in|on|per|during|within|inside|across|to|from|before|after|until|since|"
                    r"prior\s+to)\s+(?:(?:the|a|an|his|her|their|its|"
                    r"each)\s+)?[\w-]+(?:\s+[\w-]+)??){1,2}\s*$", "", item)
    before_place = [t.text for t in tokens(headed) if t.text not in STOPWORDS and t.text not in _GENERIC]
    tries = [meaningful]
    if head and headed != item and before_place and before_place[-1] not in _MEASURE_KINDS:
        tries.insert(0, before_place)
    for words in tries:
        scored = {}
        for column in columns:
            evidence = [e for e in column_mentions(column, item, toks) if e.how != "values"]
            if head and words:
                # a measure's kind may stay unsaid in the name: 'household size' is the family column's head 'household'
                # ('the science pass rate' is sci11: any word before the measure's kind may be the one the name says)
                heads = set(words) if words[-1] in _KINDS else {words[-1]}
                evidence = [e for e in evidence if heads & {t.text for t in tokens(e.words)}]
            strongest = max(evidence, key=lambda e: (e.score, len(e.words.split())), default=None)
            if strongest is not None and strongest.score > 0:
                scored[column.name] = (strongest.score, frozenset(strongest.words.split()))
        if scored:
            return scored
    return {}


_MEASURE_KINDS = {"percentage", "percent", "rate", "ratio", "share", "average", "count", "number", "total", "score",
                  "index", "amount", "level", "value", "size", "degree", "content", "years"}
# kinds of measure a name leaves unsaid as often as the ones above (the column Lateral is the lateral distance)
_UNSAID_KINDS = {"distance"}
_KINDS = _MEASURE_KINDS | _UNSAID_KINDS
# words for the whole of what is measured: 'body measurements' are every measurement of the body
_WHOLE_BODY = {"body", "bodily", "physical", "anatomical", "morphological", "morphometric", "overall"}
# first parts of names that say how a thing is measured, not what: 'the log' is no group of LogMass, LogIntake, ...
_HOW_MEASURED = _KINDS | _GENERIC | {"log", "ln", "sqrt", "avg", "mean", "median", "max", "min", "std", "sum", "tot",
                                     "num", "pct", "diff", "lag", "delta", "cum", "rel", "abs", "has", "is", "new", "old"}


def _opens_with_column(text: str, profile: DataProfile) -> bool:
    said = text.lstrip().lower()
    return any(said.startswith(c.name.lower()) and not re.match(r"\w", said[len(c.name):]) for c in profile.columns)


def _head_unsaid(words: list[str]) -> list[str]:
    """'the mean maximum temperature' for meanmax: the head noun may stay unsaid in the name ('slugging percentage'
    for slg: a measure's kind may stay unsaid too)."""
    return words[:-1] if len(words) >= 3 or (words and words[-1] in _MEASURE_KINDS) else []


def _duration_until(event: str, columns: list[ColumnProfile]) -> list[str]:
    """'the time-to-relapse column' is how long until the relapse came (edrel), not whether it came (rel): of the
    columns of many values, the one whose name holds the event's column name or spells '<event> time' (rtime)."""
    flags, _ = _columns_for(event, columns)
    stems = [f.lower() for f in flags]
    found = [c.name for c in columns if c.name not in flags and c.kind == "numeric" and c.n_unique > 2
             and (any(len(s) >= 3 and s in c.name.lower() for s in stems)
                  or abbreviates_phrase(c.name, [event, "time"]))]
    return found if len(found) == 1 else []


# units a column is kept in, said after it ('in thousands of dollars', 'in ounces')
_UNIT_WORDS = (r"(?:us\s+|u\.s\.\s+)?dollars|euros|pounds(?:\s+sterling)?|yen|cents|usd|eur|gbp|ounces|oz|grams|g|kilograms|kg|lbs?|"
               r"tonnes|tons|met(?:er|re)s|cm|mm|km|kilomet(?:er|re)s|miles|feet|inches|litres|liters|percent|%|degrees"
               r"(?:\s+(?:celsius|fahrenheit|c|f))?|years|months|weeks|days|hours|minutes|seconds")


_SAID_NUMBER = re.compile(r"\b(?:(?:19|20)(?P<year>\d\d)|(?P<number>\d{1,3}))(?P<plus>\s+upwards)?\b")


def _numbered_name(item: str, content: list[str], columns: list[ColumnProfile]) -> str | None:
    """The one column whose name holds the number the item says ('in 1981' for pcInd81, 'mother aged 25 upwards' for mom25p,
    Hgt97 for 'height in 1997') and whose letters the item's other words spell, all of them or those before an 'of'
    (whose it is may stay unsaid), or say as a whole word ('mother' for mom)."""
    said = _SAID_NUMBER.search(item)
    if said is None:
        return None
    digits = said.group("year") or said.group("number")
    pattern = rf"_?(?:(?:19|20)?{digits})$" if said.group("year") else rf"_?{digits}(?:p|plus)$" if said.group("plus") \
        else rf"_?{digits}$"
    words = [w for w in content if not w.isdigit() and w not in {"aged", "upwards"}]
    head = [w for w in re.split(r"\bof\b", item)[0].split() if w not in STOPWORDS and w not in _GENERIC
            and not w.isdigit() and w not in {"aged", "upwards"}]
    found = set()
    for column in columns:
        letters = re.sub(pattern, "", column.name)
        if letters == column.name or not letters.isalpha():
            continue
        if any(tried and (abbreviates_phrase(letters, tried) or run_of_beginnings(letters, tried)
                          or (len(tried) == 1 and letters.lower() in {tried[0], *concept_synonyms(tried[0])}))
               for tried in (words, head)):
            found.add(column.name)
    return found.pop() if len(found) == 1 else None


def _columns_for(item: str, columns: list[ColumnProfile]) -> tuple[list[str], bool]:
    """The columns one list item names, and whether it names a group on purpose: the exact name, several exact names
    without commas ('x y z'), a kind ('the numeric columns'), or the column whose name its words say best. Several
    equally good columns ('length' with bill and flipper lengths) come back as not a group, so the caller can ask."""
    bare = re.sub(r"\s+(?:either|too|as well|also)$", "", item.strip().strip("`'\"").lower())
    exact = [c.name for c in columns if c.name.lower() == bare or c.name.lower().replace("_", " ") == bare]
    if exact:
        return exact, False
    # 'price.valley that day': a name no one writes by accident, then words about it
    lead = re.match(r"([a-z][\w]*[._][\w.]*[a-z0-9])\s+[a-z]", bare)
    if lead:
        named = [c.name for c in columns if c.name.lower() == lead.group(1)]
        if len(named) == 1:
            return named, False
    # 'the promo.* columns', 'all x_*': a wildcard names every column it matches
    wildcard = re.fullmatch(r"(?:(?:the|all|every|each)\s+)*([\w.]*\*[\w.*]*)(?:\s+(?:columns?|fields?|variables?|ones))?", bare)
    if wildcard:
        matched = [c.name for c in columns if fnmatch.fnmatchcase(c.name.lower(), wildcard.group(1))]
        if matched:
            return matched, True
    # 'the 3 binary columns ActiveFeeding': a heading of a kind of columns, then the first of their names
    headed = re.fullmatch(rf"(?:the\s+)?(?:\d+\s+|all\s+)?(?:[\w-]+\s+){{0,2}}?(?:{COLUMN_NOUNS}|flags)\s+([\w.]+)", bare)
    if headed:
        named = [c.name for c in columns if c.name.lower() == headed.group(1)]
        if named:
            return named, False
    quoted = re.fullmatch(r"[^'\"]*?\s['\"\u2018\u201c]([\w .-]+?)['\"\u2019\u201d]?", bare)
    if quoted:  # 'the catch-all "other"': the word in quotes is the name the item gives
        named, group = _columns_for(quoted.group(1), columns)
        if len(named) == 1:
            return named, group
    rate = re.fullmatch(r"(.+?)\s+per\s+(?:\d+\s+|a\s+|one\s+|each\s+|thousand\s+|hundred\s+)?[\w-]+", bare)
    if rate:  # 'spending per pupil' is the spending, whatever column the pupils have
        # (unless a column's name says the whole rate: 'expenditure per pupil' is exppp beside expend)
        said = re.sub(r"^(?:the|a|an|its|their)\s+", "", bare)
        whole = [c.name for c in columns if any(e.words.lower() == said and e.score >= 0.7
                                                 for e in column_mentions(c, said, tokens(said)))]
        if len(whole) == 1:
            return whole, False
        named, group = _columns_for(rate.group(1), columns)
        if len(named) == 1:
            return named, group
    measured = re.fullmatch(r"(.*?)\b(?:(?:the\s+)?(?:number|count|amount)\s+of\s+)?(?:years|months|weeks|days|hours)\s+of\s+"
                            r"([a-z].+)", bare)
    if measured:  # 'the father's years of schooling' is his schooling, counted in years
        named, group = _columns_for(f"{measured.group(1)}{measured.group(2)}", columns)
        if len(named) == 1:
            return named, group
    unit = re.fullmatch(rf"(.+?)\s+(?:in|as|measured in)\s+(?:(?:thousands|millions|billions|hundreds|tens)\s+of\s+)?"
                        rf"(?:{_UNIT_WORDS})", bare)
    if unit:  # 'the family's income in thousands of dollars' is the income, whatever unit it is kept in
        named, group = _columns_for(unit.group(1), columns)
        if len(named) == 1:
            return named, group
    if re.search(r"[a-z]-[a-z]", bare):  # 'mid-parent height' for midparentHeight
        joined, group = _columns_for(re.sub(r"(?<=[a-z])-(?=[a-z])", "", bare), columns)
        if len(joined) == 1:
            return joined, group
    until = re.fullmatch(r"(?:the\s+)?(?:time|days|weeks|months|years|duration|delay|interval)[\s-]+(?:to|until|till|"
                         r"before)[\s-]+(?:the\s+|a\s+)?([a-z]+)(?:\s+(?:column|variable|field|time|duration))?", bare)
    if until and (duration := _duration_until(until.group(1), columns)):
        return duration, False
    when = re.fullmatch(r"(.+?)\s+(before|after|until|since|prior\s+to|during)\s+(?:(?:the|a|an|this|that|each|their|his|"
                        r"her|its)\s+)?[\w-]+", bare)
    if when:  # 'the GPA before the term': the term says when; the GPA is the item, the earlier one where there are two
        named, group = _columns_for(when.group(1), columns)
        said = [t for t in tokens(when.group(1)) if t.text not in STOPWORDS]
        # (a short form the names end with says each of them: 'the GPA' for priGPA and termGPA)
        named = named or [c.name for c in columns if said and _name_says(c.name, said[-1])]
        if len(named) > 1 and re.fullmatch(r"before|prior\s+to", when.group(2)):
            earlier = [n for n in named if set(split_name(n)) & _EARLIER]
            named = earlier if len(earlier) == 1 else named
        if named:
            return named, group
    counted = re.fullmatch(r"(?:(?:the|all)\s+)?(\d+|both)\s+(.+)", bare)  # 'both race fields'
    if counted:
        group = _counted_group(2 if counted.group(1) == "both" else int(counted.group(1)), counted.group(2), columns)
        if group:
            return group, True
    numbered = re.fullmatch(r"(?:the\s+)?([a-z]{3,})\s+(?:number|no|nr|code|id|identifier)", bare)
    if numbered and numbered.group(1) not in STOPWORDS:  # 'the patient number' is its identifier: pid, patient_id
        # ('the school code' for schidkn: an id with a wave's or a round's letters after it)
        noun = numbered.group(1)
        by_id = [c.name for c in columns if (m := re.fullmatch(r"([a-z]+?)_?id(?:_?[a-z]{1,3})?", c.name.lower()))
                 and noun.startswith(m.group(1))]
        if len(by_id) == 1:
            return by_id, False
    names = {c.name.lower(): c.name for c in columns}
    initials = "".join(w[0] for w in bare.split() if w not in STOPWORDS)
    by_initials = [c.name for c in columns if len(initials) >= 2 and c.name.lower() == initials]
    if len(bare.split()) > 1 and by_initials:  # 'refractive index' for RI
        return by_initials, False
    content = [w.removesuffix("'s") for w in bare.split() if w not in STOPWORDS]
    # 'the weight of the heart' (its 'of the' gone by now) is 'heart weight'; 'the education years of the mother'
    # the mother's education years
    owner_first = content[-1:] + content[:-1] if len(content) == 3 else []
    head_unsaid = _head_unsaid(content)
    orders = (content, content[::-1] if len(content) == 2 else [], head_unsaid,
              head_unsaid[::-1] if len(head_unsaid) == 2 else [], _head_unsaid(owner_first))
    # 'the education of husband' is husEd, its words' beginnings run together the other way round, before ethn, whose
    # letters the words hold only scattered
    # (two letters the other way round are only chance: 'batting average' is no AB, the at-bats)
    turned = [words for words in (orders[1], orders[3]) if words]
    by_beginnings = {c.name for words in orders if len(words) > 1 for c in columns if run_of_beginnings(c.name, words)
                     and not (words in turned and len(c.name) <= 2)}
    if len(by_beginnings) == 1:
        return list(by_beginnings), False
    numbered = _numbered_name(bare, content, columns)
    if numbered:  # 'the percent indigenous of community in 1981' for pcInd81
        return [numbered], False
    # ('the recoded occupation category' for occrecode: the name may put the words the other way round)
    # ('the total spend' for totexp: a word of the same meaning gives the letters ('exp'enditure); 'years of schooling'
    # for educyr: the name may put the words the other way round)
    by_synonym = {c.name for i in range(2) for other in concept_synonyms(content[i]) for c in columns
                  for words in ([other if k == i else w for k, w in enumerate(content)],)
                  if abbreviates_phrase(c.name, words) or abbreviates_phrase(c.name, words[::-1])} \
        if len(content) == 2 and not any(w in names for w in content) else set()
    for words in orders:
        if len(words) < len(content) and len(by_synonym) == 1:
            # ('the attendance percent' is atndrte, the attendance rate, before attend, which drops a word)
            return list(by_synonym), False
        spelled = [c.name for c in columns if (len(words) > 1 or words == head_unsaid)
                   and abbreviates_phrase(c.name, words) and not (words in turned and len(c.name) <= 2)]
        # ('the number of baths' is baths, not nbh: a word that is a column's whole name is that column, unless the name
        # spelled ends with it, as 'log price' spells lprice; only the phrase's head: 'the school's gender' is schgend)
        whole = {w for w in words[-1:] if w in names and names[w] != spelled[0] and not spelled[0].lower().endswith(w)} \
            if len(spelled) == 1 else set()
        if len(spelled) == 1 and not whole:  # 'body weight' for Bwt
            return spelled, False
    if len(bare.split()) > 1 and all(w in names for w in bare.split()):
        return [names[w] for w in bare.split()], True
    # ('the subscription price' is price, a column's whole name, not subs spelled with a synonym 'sold')
    if len(by_synonym) == 1:
        return list(by_synonym), False
    for kind, pattern in _KIND_WORDS.items():
        if re.fullmatch(rf"(?:all\s+)?(?:the\s+)?(?:{pattern})(?:\s+ones)?", bare):
            return [c.name for c in columns if (c.kind == "numeric") == (kind == "numeric") and usable_kind(c)], True
    mentioned = {name: found for name, found in _mentions(bare, columns, head=True).items() if found[0] >= STRONG}
    top = max((score for score, _ in mentioned.values()), default=0.0)
    # ('if mother did work outside' says momWork by two words and mom by one of them: the one that says more)
    best = [name for name, (score, said) in mentioned.items() if score == top
            and not any(other != name and said < other_said and other_score == top
                        for other, (other_score, other_said) in mentioned.items())]
    # 'the sex of the child': 'sex' is the head noun; 'the carbon content of a fuel sample': 'carbon content'
    head = re.fullmatch(r"(?:the\s+)?((?:[\w-]+\s+)?[\w-]+)\s+of\s+(.+)", bare)
    if head and (head.group(1) in _GENERIC or head.group(1) in STOPWORDS):
        head = None
    if head and any(w in names for w in re.findall(r"[\w-]+", head.group(2))) \
            and not any(w in names for w in head.group(1).split()):
        # 'the height of the father', with a father column and none called height: whose it is is the column said
        # ('the carbon content of a fuel sample' is still carbon)
        head = None
    if best and head and head.group(1).split()[-1] in COUNTED_IN_TIME:
        head = None  # 'years of school': what it is counted in, said first; what is counted names the column
    if best and head \
            and not any(_name_says(name, t) for name in best for t in tokens(head.group(1))):
        # 'the sex of the child': what the item is, said first, wins over whose it is ('child' in childNum)
        named, _ = _columns_for(head.group(1), columns)
        if len(named) == 1:
            return named, False
    if best:
        return best, False
    # every word said belongs to one column's name and to no other's: 'income' for ApplicantIncome_USD, 'living
    # area' for Gr_Liv_Area; 'length' with two length columns stays open
    said = [t for t in tokens(bare) if t.text not in STOPWORDS]
    covering = [c.name for c in columns if said and all(_name_says(c.name, t) for t in said)]
    if len(covering) == 1:
        return covering, False
    # 'the math score' for tmathssk: what is measured names the column, the kind of measure may be left to its code
    measured_words = [t for t in said if t.text not in _KINDS and t.text not in _GENERIC]
    if 0 < len(measured_words) < len(said) and not covering:
        covering = [c.name for c in columns if all(_name_says(c.name, t) for t in measured_words)]
        if len(covering) == 1:
            return covering, False
    # 'the food share' for wfood: a letter or two that stand for the measure, then the thing measured, whole or
    # shortened ('the transport share' wtrans); the thing alone in a list of such things ('food, fuel, clothes')
    measured = content[0] if (len(content) == 2 and content[1] in _MEASURE_KINDS) or len(content) == 1 else ""
    if measured and measured not in _KINDS and len(measured) >= 4:
        lettered = [c.name for c in columns if c.name.isalpha() and any(
            (rest := c.name.lower()[k:]) == measured or (len(rest) >= 4 and measured.startswith(rest))
            or (len(content) == 2 and len(rest) >= 3 and shortens(rest, measured)) for k in (1, 2))]
        # (not where the thing stands inside another name too: 'assimilation' is Cassim and LogCassim alike)
        stem = measured[:4]
        if len(lettered) == 1 and not any(stem in c.name.lower() for c in columns if c.name != lettered[0]):
            return lettered, False
    # 'the identifier of the order', 'the order ID': the one identifier column, when the table has one
    if {t.text for t in said} & {"identifier", "identifiers", "id", "ids"}:
        # a column whose name says id first ('idNum' beside a row counter 'rownames'), else any identifier
        # ('idcode', 'idnum': id run together with the kind of id it is)
        for identifiers in ([c.name for c in columns if "id" in name_parts(c.name).words
                             or re.fullmatch(r"id_?(?:code|num|no|nr|number|key)", c.name.lower())],
                            [c.name for c in columns if c.kind == "identifier" or "id" in name_parts(c.name).words]):
            if len(identifiers) == 1:
                return identifiers, False
    # 'the identifier of the order': nothing names both words, and the head noun, said before 'of', names one column
    if head:
        named, _ = _columns_for(head.group(1), columns)
        if len(named) == 1:
            return named, False
    # 'the assimilation columns' for Cassim, LogCassim, Nassim, LogNassim: a word whose first five letters or more stand
    # inside several names, and in no other, names them as a group
    family = re.fullmatch(rf"(?:(?:the|all|any|no)\s+)?([a-z]{{6,}})(?:\s+(?:{COLUMN_NOUNS}))?", bare)
    # (a word said whole inside names, 'charges' in monthly_charges and total_charges, is asked about as before)
    if family and not any(family.group(1) in c.name.lower() for c in columns):
        for cut in range(len(family.group(1)) - 1, 4, -1):
            inside = [c.name for c in columns if family.group(1)[:cut] in c.name.lower()]
            if inside:
                return (inside, True) if len(inside) >= 2 else ([], False)
    # 'the manufacturing measurements' for man_proc_01 ... man_proc_45: a word that begins with the first part of
    # several names (three letters or more) names them as a group, when every name so begun shares that part; a
    # shorter word only when it is that part whole ('its bill' for bill_length_mm and bill_depth_mm)
    led = re.fullmatch(rf"(?:(?:the|all|any|no|its|their)\s+)?([a-z]{{3,}})"
                       rf"(?:\s+(?:{COLUMN_NOUNS}|measurements?|measures|readings|sizes|dimensions|flags|indicators|"
                       rf"dummies))?", bare)
    if led and led.group(1) not in STOPWORDS and led.group(1) not in _HOW_MEASURED:
        firsts = {c.name: parts.words[0] for c in columns if len((parts := name_parts(c.name)).words) > 1}
        begun = {name: first for name, first in firsts.items() if len(first) >= 3 and (
            led.group(1) == first or (len(led.group(1)) >= 6 and led.group(1).startswith(first)))}
        if len(begun) >= 2 and len(set(begun.values())) == 1:
            return list(begun), True
        # ('its flipper measurements' for flipper_length_mm, the one name so begun; 'body measurements' are the whole
        # animal's, not body_mass_g's)
        if len(begun) == 1 and re.search(r"\s(?:measurements|measures|readings|sizes|dimensions)$", bare) \
                and led.group(1) not in _WHOLE_BODY:
            return list(begun), False
    return [], False


def _counted_group(n: int, words: str, columns: list[ColumnProfile]) -> list[str]:
    """'the 2 years columns', 'the 8 fatty-acid columns': the count says which group. The columns whose names say
    the words (or abbreviate them: 'yrs' for years), when there are exactly n of them; else the usable numeric
    columns, when there are exactly n. Any other count names no group."""
    said = [t for t in tokens(words) if t.text not in STOPWORDS and t.text not in _GENERIC]
    by_words = [c.name for c in columns if usable_kind(c) and any(
        _name_says(c.name, t) or any(shortens(w, t.text) for w in name_parts(c.name).words) for t in said)]
    if len(by_words) == n:
        return by_words
    numeric = [c.name for c in columns if c.kind == "numeric" and usable_kind(c)]
    return numeric if len(numeric) == n and n > 1 else []


def _name_says(name: str, token) -> bool:
    parts = name_parts(name)
    if letter_before_word(name, token.text) or short_form_at_end(name, token.text) \
            or word_or_stem_inside_a_code(name, token) or skeleton_at_end(name, token.text):
        return True
    # ('hwy' for highway, 'pct' for percent: a part written without its vowels)
    return any(word_matches(token, w, ws) or (len(parts.words) > 1 and len(w) == 3 and len(token.text) >= 6
                                               and token.text.startswith(w))
               or (len(w) >= 3 and not re.search(r"[aeiou]", w) and shortens(w, token.text) and token.text[-1] == w[-1])
               for w, ws in zip(parts.words, parts.stems))


def _resolve(chunk: str, profile: DataProfile, target: str | None) -> tuple[list[str], list[str]]:
    """(columns, items that name no column or several, each with the nearest columns)."""
    columns = [c for c in profile.columns if c.name != target]
    found: list[str] = []
    unresolved: list[str] = []
    headed = _headed_items(chunk, columns)
    if headed:
        return headed, []
    whole = re.fullmatch(r"\s*(?:the\s+|its\s+|their\s+)?(\d+)\s+([\w/ -]+?)\s*", chunk)
    if whole:  # 'the 4 sepal/petal measurements': one counted group, not two items
        group = _counted_group(int(whole.group(1)), whole.group(2).replace("/", " "), columns)
        if group:
            return group, []
    # ('the price/time attributes of both alternatives': every numbered version of each item)
    every_version = _EVERY_VERSION.search(chunk)
    if every_version:
        chunk = chunk[:every_version.start()] + chunk[every_version.end():]
    for item in _items(chunk, frozenset(c.name.lower() for c in columns)):
        names, group = _columns_for(item, columns)
        if every_version and len(names) > 1 and len({re.sub(r"_?\d+$", "", n) for n in names}) == 1:
            group = True
        names, group = _compound_spelt(item, columns, names, group)
        if len(names) > 1 and not group:
            names = _plain_of_transformed(names, item)
        if len(names) == 1 or (names and group):
            found += [n for n in names if n not in found]
        elif names:
            unresolved.append(f"'{item}' (could be {describe(names, 'or')})")
        elif (changed := _target_changed(item, profile, target)):
            found += [changed] if changed not in found else []
        elif (family := _acronym_family(item, columns)) and family[1]:
            found += [n for n in family[0] if n not in found]
        elif family:
            unresolved.append(f"'{item}' (could be {describe(family[0], 'or')})")
        elif (reworded := _reworded(item, columns)):
            found += [n for n in reworded if n not in found]
        elif (named := re.fullmatch(r"(.+?)\s+names?", item)) and len(owner := _columns_for(named.group(1), columns)[0]) == 1:
            found += [n for n in owner if n not in found]  # 'the state name' is the state column, where none is 'name'
        else:
            near = sorted(_scores(item, columns).items(), key=lambda kv: -kv[1])[:3]
            hint = f" (nearest: {describe([n for n, _ in near], 'or')})" if near else ""
            unresolved.append(f"'{item}'{hint}")
    # ('the 12 measurements of the raw material, of bio_material_01, ..., bio_material_12': an item that counts as many
    # columns as the others name is their heading)
    counts = {u: int(m.group(1)) for u in unresolved if (m := re.match(r"'(?:the\s+|all\s+)?(\d+)\s+[a-z]", u))}
    if found and counts:
        unresolved = [u for u in unresolved if counts.get(u) != len(found)]
    return found, unresolved


_EVERY_VERSION = re.compile(r"\s*\b(?:of|for|across)\s+(?:both|all|each|every)\s+(?:the\s+)?(?:\d+\s+)?(?:alternatives?|options?|"
                            r"versions?|choices?|sides?|products?|brands?|items?|trips?|offers?)\b")


def _target_changed(item: str, profile: DataProfile, target: str | None) -> str | None:
    """'don't feed it the seasonally adjusted column' of the target hs, beside hssa; 'the logged one' of wage beside
    lwage: an item that names only a change is the target's column so changed."""
    if target is None or re.sub(r"\b(?:the|a|an|its|column|one|version|series|variable|field)\b", " ", item).strip() == "":
        return None
    made = [c.name for c in profile.columns for t in TRANSFORMS
            if c.name != target and transform_of(c.name, target) is t and re.fullmatch(
                rf"\s*(?:the\s+|its\s+|a\s+)?(?:{t.asked})(?:\s+(?:column|one|version|series|variable|field))?\s*",
                item)]
    return made[0] if len(made) == 1 else None


def _acronym_family(item: str, columns: list[ColumnProfile]) -> tuple[list[str], bool] | None:
    """'both antral follicle counts' with LowAFC and MeanAFC: words spelling an acronym that several names end in.
    Said of all of them ('both', 'all', 'the two', a plural) they are a group; a single one said is any of them."""
    words = [t.text for t in tokens(item)]
    spelt = acronyms_spelt(words, [c.name for c in columns])
    if not spelt:
        return None
    i, length, family = spelt[0]
    last = words[i + length - 1]
    many = bool(re.search(rf"\b(?:both|all|the {len(family)}|{len(family)})$", " ".join(words[:i]))) \
        or (last.endswith("s") and not last.endswith("ss"))
    return family, many


# adjectives a Romance language writes after its noun ('la FSH maximale' read as 'the FSH maximum')
_AFTER_THE_NOUN = r"maximum|minimum|max|min|mean|average|total|peak|median"


def _reworded(item: str, columns: list[ColumnProfile]) -> list[str]:
    """An item that names no column as written, read once more in plainer words: without a participle after the noun
    that only describes it ('the number of eggs collected', 'the dose given'), and with an adjective written after its
    noun put before it ('the FSH maximum'). Only a single column so found counts."""
    names = {c.name.lower() for c in columns}
    forms = []
    described = re.fullmatch(r"(.*\w)\s+(?:[a-z]{3,}ed|given|taken|drawn|seen|done|known|grown|written|made|held|kept|"
                             r"paid|spent|sold|bought)", item)
    if described and described.group(0).split()[-1] not in names:
        forms.append(described.group(1))
    after = re.fullmatch(rf"(?:(the|its|their)\s+)?(.*\w)\s+({_AFTER_THE_NOUN})", item)
    for form in forms:
        found, group = _columns_for(form, columns)
        if len(found) == 1 and not group:
            return found
    if after:
        # (the column found must be the noun's own, or hold the adjective: 'batting average' turned round spells no AB)
        found, group = _columns_for(" ".join(p for p in (after.group(1), after.group(3), after.group(2)) if p), columns)
        kind = after.group(3)[:3]
        if len(found) == 1 and not group and (_columns_for(after.group(2), columns)[0] == found
                                               or kind in found[0].lower()):
            return found
    return []


def _compound_spelt(item: str, columns: list[ColumnProfile], names: list[str], group: bool) -> tuple[list[str], bool]:
    """'the spread-covered flag' is sprdcvr, not spread: the words a hyphen joins spell one name together, and their
    first word naming another column is no mention of it."""
    for _, _, name in compounds_spelt(item, [c.name for c in columns]):
        if names != [name]:
            return [name], False
    return names, group


# name parts that say a value is the one from before: priGPA, prevscore, lag_sales, base_weight
_EARLIER = {"pri", "prior", "pre", "prev", "previous", "lag", "lagged", "past", "last", "old", "orig", "initial", "base",
            "before", "earlier"}


_TRANSFORM_AFFIXES = r"(?:sq|squared|2|_?log|_?ln|_?sqrt|_?cubed|3)"


def _headed_items(chunk: str, columns: list[ColumnProfile]) -> list[str]:
    """'the other self-rated health indicators (very good, good, fair)': items in parentheses after a heading are
    kinds of what the heading names, each a column with a word of the heading ('very good health' vghealth, 'good
    health' goodhealth); only when every item so completed names one column."""
    m = re.fullmatch(r"\s*(?P<head>[^()]*?[a-z][^()]*?)\s*\((?P<items>[^()]+)\)?[\s,.;]*", chunk)
    if not m:
        return []
    heads = [t.text for t in tokens(m.group("head")) if len(t.text) >= 3 and t.text not in STOPWORDS
             and t.text not in _GENERIC and not re.fullmatch(rf"(?:{COLUMN_NOUNS})|indicators?|measures?|other", t.text)]
    items = [i.strip(" .") for i in re.split(_ITEM_SPLIT, m.group("items")) if i.strip(" .")]
    if len(items) < 2 or not heads:
        return []
    found: list[str] = []
    for item in items:
        completed = [_columns_for(f"{item} {head}", columns)[0] for head in heads]
        named = {names[0] for names in completed if len(names) == 1}
        if len(named) != 1:
            return []
        found += [n for n in named if n not in found]
    return found if len(found) == len(items) else []


def _plain_of_transformed(names: list[str], item: str) -> list[str]:
    """'education' fits educ and educsq alike: the plain column, unless the words say the square or the log
    (agesq, educ2, lwage, lnincome are the same measure transformed)."""
    if re.search(r"\b(?:squared?|square|log\w*|ln|root|cubed?)\b", item):
        return names
    lowered = {n: n.lower() for n in names}
    plain = [n for n in names if all(o == n or transform_of(o, n) is LOG or re.fullmatch(
        rf"(?:{'|'.join(LOG.prefixes)})?{re.escape(lowered[n])}{_TRANSFORM_AFFIXES}?", lowered[o]) for o in names)]
    return plain if len(plain) == 1 else names


def _ambiguous(unresolved: list[str]) -> bool:
    return any("(could be" in u or "(nearest" in u for u in unresolved)


def _about_inputs(chunk: str) -> bool:
    return not re.search(_NOT_INPUTS, chunk)


def plain(instruction: str) -> str:
    """The instruction as the rules read it: lower case, number words as digits, 'w/' as 'with'."""
    # ('both of the follow-up columns' is 'both the follow-up columns')
    return re.sub(r"\bboth\s+of\s+(?=the\b|these\b|those\b|its\b|their\b)", "both ",
                  expand_shorthand(normalise(instruction)))


def decide_features(instruction: str, profile: DataProfile, target: str | None) -> FeatureChoice:
    text = plain(instruction)
    said = instruction if len(instruction) == len(text) else text  # the phrases quoted back, as written
    choice = FeatureChoice()
    for start, a, b, end, strength in input_spans(text):
        chunk = text[a:b]
        pronoun = re.search(r"\b(?:those|these|them|both|the)\s*$", text[start:a])
        if pronoun and re.fullmatch(r"\s*(?:\d+\s*)?(?:columns?|fields?|variables?|inputs?|features?|ones?)?\s*"
                                    r"(?:[a-z]+\s*)?", chunk):
            # 'a model using only those two': what they stand for, said before, as many as it counts
            phrase = pronoun.group(0) + chunk
            referred = _referent(text, start, profile, phrase)
            if referred and len(_resolve(referred, profile, target)[0]) != (_counted(phrase) or 0):
                referred = ""
            chunk = referred or _listed_before(text, start, profile, target, phrase) or chunk
        listed_after = re.match(r"\s*\(([^()]+)\)", text[end:])
        if listed_after and not re.match(r"\s*(?:not|never|but|except|no|without|excluding)\b", listed_after.group(1)) \
                and not re.fullmatch(_ALL_THE_COLUMNS, chunk) and not _resolve(chunk, profile, target)[0] \
                and _resolve(listed_after.group(1), profile, target)[0]:
            chunk = listed_after.group(1)  # 'from the head-of-household basics only (age, years of schooling, ...)'
        if re.match(rf"\s*(?:everything|all|anything|all (?:the )?(?:{COLUMN_NOUNS}))\s+(?:but|except|apart from|other than|"
                    r"minus|besides)\b", chunk):
            continue  # 'inputs: everything but Records' leaves a column out; the exclusion reading takes it
        if re.fullmatch(_ALL_THE_COLUMNS, chunk):
            continue  # 'Inputs: whatever else the table offers', 'all remaining columns' set no limit
        names_inputs = bool(re.search(rf"\b(?:{COLUMN_NOUNS})\b", text[start:a] + text[b:end]))
        columns, unresolved = _resolve(chunk, profile, target)
        # ('only use the economic numbers, so not the state name and not the year': the limit is the columns it names
        # as left out, when each of them names one)
        restated = re.match(r"[\s,;:-]*(?:so|i\.?\s?e\.?|that is|meaning|which means)\b[\s,]*(?P<out>(?:not|no)\b[^.;!?]*)",
                            text[end:])
        if not columns and restated:
            items = [i for i in re.split(r"\b(?:and\s+|or\s+)?(?:not|no|nor)\b|,", restated.group("out")) if i.strip()]
            named = [_resolve(i, profile, target) for i in items]
            if items and all(n[0] and not n[1] for n in named):
                _exclude(choice, [c for n in named for c in n[0]], said[end:end + restated.end()].strip(" ,"))
                continue
        if not columns and not names_inputs and not _about_inputs(chunk) and len(_items(chunk)) < 3:
            continue  # 'using only a CPU', 'only on rows after 2020' (a list of three things is inputs)
        if not columns and strength != "strong" and not _ambiguous(unresolved):
            continue  # 'only with care', 'from just one store': no column named, and the words need not name one
        if strength in ("soft", "listed") and any("(could be" not in u for u in unresolved) and not (
                strength == "soft" and len(columns) >= 2
                and all(re.search(r"\((?:could be|nearest:)", u) for u in unresolved)):
            # ('from her age and education', with educ and educ0: every item names columns, one asks which; 'camps
            # based on Blair, Hague and Kennedy plus their stance on European integration': after a clustering's
            # 'based on', two or more items name columns and the rest come near one, so it is a list of inputs, asked
            # about rather than dropped)
            continue
        choice.only += [c for c in columns if c not in choice.only]
        choice.unresolved += [u for u in unresolved if u not in choice.unresolved]
        choice.only_phrase = choice.only_phrase or said[start:end].strip(" ,.;:!?-")
    listed_out: list[int] = []  # where lists of columns left out start
    for opener in _EXCLUDE_OPENERS:
        for m in re.finditer(opener, text):
            a, b = list_after(text, m.end())
            if re.match(_NOT_COLUMNS, text[m.end():]) or re.search(_CELL_FILTER, text[a:b]):
                continue
            named = _resolve(text[a:b], profile, target)[0]
            # ('leave out lsalary and the city columns: whitepop, ...': a name said before the list's heading is one
            # of them too)
            if re.search(rf"\b(?:{COLUMN_NOUNS}|ones|stuff|things)\s*:\s*$", text[m.end():a]):
                named += [n for n in _names_in(text[m.end():a], profile) if n not in named and n != target]
            listed_out += [m.start()] if named else []
            _exclude(choice, named, said[m.start():b].strip())
    unreferred = []  # 'so they cannot be inputs' where 'they' names no column: asked about, not dropped
    for m in re.finditer(_EXCLUDE_AFTER, text):
        chunk = m.group("list")
        if re.fullmatch(_PRONOUN_LIST, chunk):
            if any(_sentence_starts(text, m.start("list"))[1] <= at < m.start("list") for at in listed_out):
                continue  # 'but: A and B, these leak the answer, so they must be removed': they are that list
            chunk = _referent(text, m.start("list"), profile, chunk)
            # ('the city and highway figures': city_mpg found, the highway figures not: asked, not half dropped)
            if chunk and (not (referred := _resolve(chunk, profile, target))[0] or referred[1]):
                unreferred.append(chunk)
        elif re.fullmatch(_SINGULAR_PRONOUN, chunk):  # '..., so it must be kept out of the model'
            chunk = ", ".join(_subject_before(text, m.start("list"), profile, target))
        elif grouped := re.search(r"\(([^()]{1,120})\)\s*$", chunk):  # 'race indicators (white, black)': the names
            chunk = grouped.group(1)
        else:  # 'white, black, hispan, male stay out': the names before the last comma belong to the list too
            chunk = _names_before(text, m.start("list"), profile) + chunk
        _exclude(choice, _resolve(chunk, profile, target)[0], said[m.start("list"):m.end()])
    for m in re.finditer(_EXCLUDE_AROUND, text):
        chunk = m.group("list")
        if re.fullmatch(_PRONOUN_LIST, chunk):  # 'keep all four of them away from the model'
            chunk = _referent(text, m.start("list"), profile, chunk)
        _exclude(choice, _resolve(chunk, profile, target)[0], said[m.start():m.end()])
    for m in re.finditer(_NAMES_OUT, text):
        items = [i.strip() for i in re.split(r",|\band\b|&|\+", m.group("list")) if i.strip()]
        named = [_names_in(i, profile) for i in items]
        if all(len(n) == 1 and n[0].lower() == i for n, i in zip(named, items)):
            _exclude(choice, [n[0] for n in named], said[m.start("list"):m.end()])
    columns = [c for c in profile.columns if c.name != target]
    for m in re.finditer(_NOT_EITHER, text):
        names, _ = _columns_for(m.group(1), columns)
        if len(names) == 1:
            _exclude(choice, names, said[m.start():m.end()])
    for m in re.finditer(_DROP_THAT, text):
        _exclude(choice, _subject_before(text, m.start(), profile, target), said[m.start():m.end()])
    for m in re.finditer(_NO_COLUMN, text):
        items = [i.strip("`'\" ") for i in re.split(r",|\bor\b|\bnor\b", m.group(1)) if i.strip("`'\" ")]
        found = [_columns_for(i, columns) for i in items]
        if items and all(len(names) == 1 for names, _ in found):  # 'no Min.Price or Max.Price', 'not RI'
            _exclude(choice, [names[0] for names, _ in found], said[m.start():m.end()].strip(" ,.;("))
    family, family_at = _others_of_the_targets_kind(text, profile, target)
    _exclude(choice, family, said[family_at[0]:family_at[1]].strip(" ,.;:"))
    negated = negated_inputs(instruction, profile, target)
    for name, clause in negated.columns:
        _exclude(choice, [name], clause)
    if family:
        # ('keep every other fatality figure out - the raw counts (total, night, weekend), the three per-mile
        # versions ...': what follows in that sentence spells the family out; its items need no answer of their own)
        rest = set(re.findall(r"[\w-]+", text[family_at[0]:_sentence_end(text, family_at[1])]))
        negated.unresolved = [u for u in negated.unresolved
                              if not set(re.findall(r"[\w-]+", u.split(" (")[0])) <= rest]
    # with the inputs limited to a list, words said not to be used that name no column leave nothing out of it
    # ('from this season's numbers only (AtBat, Hits), leave the career totals out')
    choice.unresolved_exclusions = [] if choice.only else [u for u in [*negated.unresolved, *unreferred]
                                                            if u not in choice.unresolved]
    return choice


# 'every other fatality figure', 'all the other columns of mortality', 'any other price variables'
_OTHERS_OF_A_KIND = re.compile(
    r"\b(?:every|all|any|each)\s+(?:of\s+)?(?:the\s+)?other\s+(?:(?P<kind>[a-z][a-z-]{2,}(?:\s+[a-z][a-z-]{2,})?)\s+)??"
    r"(?:figures?|columns?|variables?|measures?|fields?|counts?|numbers?|rates?|series|versions?|statistics|stats|"
    r"indicators?)\b(?:\s+(?:of|on|about|for)\s+(?:the\s+)?(?P<after>[a-z][a-z-]{2,}))?")


_SENTENCE_END = re.compile(r"[.;!?](?:\s|$)")


def _sentence_end(text: str, at: int) -> int:
    end = _SENTENCE_END.search(text, at)
    return end.start() if end else len(text)


def _others_of_the_targets_kind(text: str, profile: DataProfile, target: str | None) -> tuple[list[str], tuple[int, int]]:
    """'keep every other fatality figure out of the inputs' with the target totfatrte: the columns that share with
    the target the part of its name the kind word spells (fat: totfat, nghtfatpvm, ...), when the clause says not to
    use them. ([], (0, 0)) where no such words are said."""
    if target is None:
        return [], (0, 0)
    low = target.lower()
    pieces = [low[i:j] for i in range(len(low)) for j in range(i + 3, len(low) + 1) if low[i:j].isalpha()]
    for m in re.finditer(_OTHERS_OF_A_KIND, text):
        clause = text[max(0, text.rfind(". ", 0, m.start()) + 1):_sentence_end(text, m.end())]
        if not re.search(_NEGATION, clause):
            continue
        kind = (m.group("kind") or m.group("after") or "").split()
        said = [w for word in kind for w in (word, *concept_synonyms(word))]
        part = max((p for p in pieces if any(w.startswith(p) for w in said)), key=len, default="")
        family = [c.name for c in profile.columns if c.name != target and part and part in c.name.lower()]
        if family:
            return family, (m.start(), m.end())
    return [], (0, 0)


# a word that turns what follows (or, said last, what came before) into something not to use
# said of columns already named: 'keep all four of them away from the model', 'those two sit this one out', 'are taboo'
_KEEP_AWAY = (r"away\s+from\s+(?:the\s+)?(?:model|inputs?|features?|training)|sits?\s+(?:this\s+(?:one|1)\s+|it\s+)?out|"
              r"taboo|forbidden|banned|off[- ]limits|off\s+the\s+table|out\s+of\s+bounds")
_NEGATION = (r"\b(?:not|no|nor|neither|without|except|excluding|exclude|never|don'?t|doesn'?t|leave\s+out|leaving\s+out|"
             r"left\s+out|(?:stay|stays|stayed|staying|keep|keeps|kept|keeping)\s+(?:therefore\s+|thus\s+|also\s+|then\s+)?out|drop|ignore|omit|skip|remove|"
             r"none\s+of|(?:leave|leaving|left|keep|keeping|kept)(?=\s[^.;:!?]{1,60}?\s(?:out|aside)\b)|"
             rf"{_KEEP_AWAY})\b")
# ... unless it bounds a number or asks a yes/no question: 'no more than 10 ms', 'whether or not', 'insurance or no'
_NOT_ABOUT_USE = (r"(?<=\d),\s*(?:and\s+|or\s+)?no\s+[a-z-]+(?:\s+[a-z-]+)?\s*\)|"  # '(55, 65, 70, no limit)': a value
                  # 'there is no date column', 'the table has no timestamp': what the table lacks, nothing left out
                  r"\bthere\s+(?:is|are|was|were)\s+no\b|\bthere's\s+no\b|\b(?:has|have|had|holds?)\s+no\b|"
                  r"\b(?:is|it's|its|be|of)\s+(?:no|little)\s+use\b|\bno\s+use\s+(?:to|for)\b|"  # 'or it's no use to me'
                  r"\byes\s*/\s*no\b|\bno\s*/\s*yes\b|\byes[- ]or[- ]no\b|"  # 'two yes/no columns'
                  r"\b(?:no|not)\s+(?:more|less|fewer|longer|later|earlier|bigger|larger|higher|lower|greater|smaller|"
                  r"above|below|over|under|exceed\w*|worse|better|than|only|just|missing|null|empty|blank|duplicate\w*|"
                  r"outliers?|rows?|records?)\b|\b(?:or|and)\s+(?:not|no)\b(?!\s+\w+\s+(?:columns?|inputs?))|"
                  r"\b(?:don'?t|doesn'?t|do not|does not|not)\s+(?:need|have)\s+to\b|"
                  # 'I don't remember which column holds it': what the writer does not know, nothing left out
                  r"\b(?:don'?t|do not|can'?t|cannot|didn'?t|did not)\s+(?:remember|recall|know|recollect|understand)\b|"
                  rf"{RELATIVE_NOT}|"
                  # 'whether the respondent thinks abortion should be banned': the words are the question asked
                  rf"\bwhether\b.*(?:\bnot\b|\b(?:{_KEEP_AWAY})\b)|\bnot\s+(?:to\s+)?(?:be\s+)?(?:repaid|paid|renewed|returned|survive\w*|"
                  r"default\w*|churn\w*|buy|bought|subscribe\w*)\b")
# what says the clause is about the inputs: a verb of using, or the cue itself when it can mean nothing else
_ABOUT_USE = (r"\b(?:us(?:e|es|ed|ing)|want|include|including|consider\w*|take|need|feed|put|inputs?|features?|columns?|"
              r"variables?|predictors?|without|except|excluding|exclude|leave\s+out|leaving\s+out|left\s+out|drop|"
              r"(?:stay|stays|stayed|staying|keep|keeps|kept|keeping)\s+(?:therefore\s+|thus\s+|also\s+|then\s+)?out|"
              rf"ignore|omit|skip|remove|nor|neither|none\s+of|{_KEEP_AWAY}|"
              r"(?:leave|leaving|left|keep|keeping|kept)(?=\s[^.;:!?]{1,60}?\s(?:out|aside)\b))\b"
              # 'No pace, no dates, no shoes, nothing else.': a run of 'no' items says what stays out without a verb
              r"|^\s*no\s+[\w-]+(?:\s+[\w-]+)?\s*,\s*(?:and\s+)?no\s+")
_SEGMENT = rf"[.;!?]\s+|[.;!?]$|{CLAUSE_BREAK}|,\s*(?:and|also|as well)\b|{BOUND_AHEAD}"
_LIMITERS = r"\b(?:only|just|solely|exclusively|purely)\b"
_VERB_OF_A_CLAUSE = r"\b(?:is|are|was|were|be|should|must|will|would|can|could|may|might|has|have|had|do|does|did)\b"
# a clause that adds to the list the one before it left out (', as well' is a cut: 'as' is what is left of it)
_ADDS = r"^\s*(?:and\s+)?(?:also|as well as|as|plus)\b"


class NegatedInputs(BaseModel):
    """What clauses that say 'do not use' name: the columns, and the words that name none (the run asks)."""

    columns: list[tuple[str, str]] = Field(default_factory=list, description="(column, the clause that leaves it out)")
    unresolved: list[str] = Field(default_factory=list, description="items said not to be used that name no column")


# the verbs and fillers around a negated list, dropped before its items are read
_NEGATED_NOISE = (# 'exclude it from features', 'keep X out of the inputs': where it is kept from is no item
                  r"\b(?:from|out\s+of)\s+(?:the\s+|its\s+|my\s+|our\s+)?(?:features?|inputs?|predictors?|model|"
                  r"training)\b|"
                  r"\b(?:as well|the|a|an|any|its|their|please|also|do|does|did|i|we|you|it|they|them|this|that|these|those|us|our|my|want|wants|"
                  r"may|might|can|could|should|must|shall|will|would|be|been|out|aside|"
                  r"inside|in|us(?:e|es|ed|ing)|include|including|consider|take|need|feed|put|as|inputs?|features?|"
                  r"columns?|variables?|predictors?|at all|either|too|here|model|for|of it|obviously|of course|clearly|"
                  r"entirely|completely|altogether|totally|strictly|"
                  r"naturally|surely|thanks?|thank you|pls|plz|"
                  # 'without letting the clustering see the position'
                  r"let(?:s|ting)?|allow(?:s|ing)?|see(?:s|ing)?|touch(?:es|ing)?|clustering|algorithm)\b")
_USE_VERB = r"\b(?:us(?:e|es|ed|ing)|include[sd]?|including|consider(?:ed)?|tak(?:e|en)|feed|fed|put)\b"
_NOT_ITEMS = (r"\b(?:anything|everything|nothing|something|everyone|everybody|nobody|other|others|rest|interesting|"
              r"important|useful|relevant|"
              r"rows?|records?|cases?|observations?|entries|labels?|thanks?|perfect|supervis\w*|help|care|leak\w*|"
              r"overfit\w*|cheat\w*|bias\w*|data|table|file)\b|^to\b|^\W*\w{0,2}\W*$")
# where the list said not to be used ends and its reason begins: 'X because it gives the answer away', 'Y, which is
# only known after delivery'
_REASON = (# who asked for it, and its subject: 'not union, compliance asked us to leave those two out'
           r"(?:,\s*(?:[\w']+\s+){0,2})?\b(?:ask(?:s|ed)|told|tells|insists?|insisted|requires|required)\b|"
           # and who says why, after a comma: 'but not income, my professor says it is endogenous'
           r",\s*(?:[\w']+\s+){1,2}(?:says?|said|thinks?|claims?|believes?|reckons?)\b|"
           # ('..., this we know only when the claim is closed': an object put first, then who knows it)
           r"\b(?:this|that|these|those)\s+(?:we|i|you|they)\b|"
           r"\b(?:because|since|as\s+(?:they|it|this|these|those)|which|who|so|where|when|if|until|unless|they|it|"
           r"is|are|was|were|be|been|being|has|have|had|gives?|give|known|exists?|call|calls|looking|look|find|sees?|"
           r"get|gets|make|makes|come|comes|happens?|only|just|solely|exclusively|depends?|derived|computed|"
           r"calculated|reflects?|encodes?|leaks?|"
           r"(?:may|must|should|can|could|shall)(?= (?:not |never )?(?:go|enter|be|feed|appear|get))|goes? into)\b")


def negated_inputs(instruction: str, profile: DataProfile, target: str | None) -> NegatedInputs:
    """Columns named in a clause that says not to use them, however it is worded ('please not use the medicaid
    column', 'the income I don't want inside', 'nor the stays in the hospital', 'Region and ethnicity without'),
    and the items of such a clause that name no column. The list readers above know many exclusion phrasings; this
    is the net under them: a column said not to be used is never fed in because its phrasing was new, and words
    said not to be used that name no column are asked about, never dropped."""
    text = plain(instruction)
    columns = [c for c in profile.columns if c.name != target and (len(c.name) >= 3 or _code_like_name(c.name))]
    found = NegatedInputs()
    start = 0
    about_use = used_before_reason = False
    opened_by = ""
    cuts = [c for c in re.finditer(_SEGMENT, text) if text.count("(", 0, c.start()) <= text.count(")", 0, c.start())]
    for cut in [*cuts, None]:  # a list in parentheses is one clause: 'must stay out (how long they were followed, and ...)'
        end = cut.start() if cut else len(text)
        clause, clause_at = text[start:end], start
        start = cut.end() if cut else len(text)
        opener, opened_by = opened_by, cut.group(0) if cut else ""
        benign = [(m.start(), m.end()) for m in re.finditer(_NOT_ABOUT_USE, clause)]
        cues = [m for m in re.finditer(_NEGATION, clause) if not any(a <= m.start() < b for a, b in benign)]
        # "don't use drive_desc, ..., and also not the class of the car": the clause goes on with the one before
        # ('do not use county and year, they are only identifiers, and also not density': across the reason between)
        goes_on = (about_use or used_before_reason) and bool(re.match(r"\s*(?:and\s+)?(?:also\s+)?(?:not|nor|no)\b",
                                                                        clause))
        # 'keep the calendar out of it (date, year), and also the precip and events fields': the list goes on
        # ('leave grade out, and the id number too': 'too' after it adds to the list as 'also' before it does)
        too = re.match(r"\s*(?:and\s+)?(?P<item>(?:the\s+)?[^,;.]{1,40}?)\s+(?:too|as well)\b", clause) \
            if re.search(r"\band\s*$", opener) or re.match(r"\s*and\b", clause) else None
        adds_to = about_use and not cues and bool(re.match(rf"{_ADDS}\s+(?:the\s+)?\w", clause) or too)
        # ('two columns have to stay out: A, because it leaks, and the B score, which ...': after the reason the list
        # goes on, where what follows 'and' is a short noun phrase)
        adds_to = adds_to or (used_before_reason and not cues and re.search(r"\band\s*$", opener) is not None
                              and len(clause.split()) <= 5 and not re.search(_VERB_OF_A_CLAUSE, clause))
        a_reason = not cues and bool(re.match(r"\W*(?:they|it|which|because|since|those|these)\b",
                                              opener.strip(" ,") + " " + clause.strip()))
        used_before_reason = a_reason and (about_use or used_before_reason)
        about_use = bool(cues) and (bool(re.search(_ABOUT_USE, clause)) or goes_on)
        if adds_to:
            listed = too.group("item") if too else re.split(_REASON, re.sub(_ADDS, " ", clause), maxsplit=1)[0]
            named = _names_in(listed, profile) or _resolve(re.sub(_NEGATED_NOISE, " ", listed), profile, target)[0]
            found.columns += [(n, clause.strip(" ,")) for n in named
                              if n != target and (n, clause.strip(" ,")) not in found.columns]
            if not named:
                found.unresolved.append(repr(listed.strip(" ,.")))
            about_use = True
            continue
        if not about_use:
            continue
        after = clause[cues[0].end():]
        after = after[heading_length(after):]  # 'except the other versions of the price: A, B and C'
        rows = re.match(_NOT_COLUMNS, after)
        if rows and not _opens_with_column(after, profile):
            continue  # 'drop the rows where the carrier is missing' ('Drop Row/Col' names the grid's columns)
        # ('the Time and Pace columns are just copies ..., so drop those': 'just' after a verb of being is 'merely')
        limited = any(not re.search(r"\b(?:is|are|was|were|be|been)\s+$", clause[:m.start()])
                      for m in re.finditer(_LIMITERS, clause[:cues[0].start()]))
        # (what follows a colon after 'must not be used' is its reason: 'A and B must not be used: they come later')
        said_after = re.sub(_NEGATED_NOISE, " ", re.sub(_NEGATION, " ", _without_colon_reason(after))).strip(" ,.'")
        span = after if said_after or limited else clause[:cues[0].start()]
        listed_part = re.split(_REASON, _without_colon_reason(span), maxsplit=1)[0]  # 'X, because they give it away'
        lone = not said_after and _stands_alone(cues[0].group(0), clause[:cues[0].start()])
        if (lone or re.match(rf"{_PRONOUN_LIST}\b", after) or (re.search(rf"\b(?:{_PRONOUN_WORDS})\b", listed_part)
                                                                and not _names_in(listed_part, profile))) and not limited:
            # 'linkstatus ... and dayslink ...: we exclude them both, as well as id'; 'X is decided at check-in, and Y
            # and Z pile up later, so none of those may be used': the pronoun stands for what came before
            before = clause[:cues[0].start()]
            pronoun = re.search(rf"(?<![\w.]){_PRONOUN_WORDS}(?![\w.])", after) or re.search(
                rf"(?<![\w.]){_PRONOUN_WORDS}(?![\w.])", listed_part)
            # 'the length, width and depth (x, y and z) ... keep all three out': a named list it points back to
            referred = "" if _names_in(before, profile) else _referent(
                text, clause_at, profile, pronoun.group(0) if pronoun else "")
            if referred and len(_names_in(referred, profile)) > 1:
                span = referred
            else:
                if not _names_in(before, profile):
                    before = text[_sentence_starts(text, clause_at)[1]:clause_at] + " , " + before
                span = before + " , " + after
        span = _without_colon_reason(span)
        # ('drop case (f1 >= .74, WS = positive) (train < 2 min)': a parenthesis of bounds is no item)
        span = re.sub(r"\([^()]*[<>=\u2264\u2265][^()]*\)?", " ", span)
        # ('except high.risk (that's the doctor's own judgement and we want the model to stand on its own)': a
        # parenthesis that names no column and says a sentence is the reason, no item)
        span = re.sub(r"\(([^()]*)\)?", lambda m: " " if _a_reason_said(m.group(1), profile, target) else m.group(0), span)
        said = re.split(_REASON, span, maxsplit=1)[0]  # not what a reason names
        if grouped_after := re.match(r"\s*\(([^()]+)\)", span):
            said = grouped_after.group(1)
        elif (grouped := re.search(r"\(([^()]+)\)[\s,]*$", said)) and _only_names(grouped.group(1), profile):
            # 'the race and sex indicators (white, black, male) stay out': the names are the list
            said, span = grouped.group(1), f"({grouped.group(1)})"
        # ('don't use woman' with a column called use: the verb after the negation is no item)
        said = re.sub(rf"^\s*(?:(?:be|been|get|being)\s+)?{_USE_VERB}\s+(?=\S)", " ", said)
        for item in re.split(_ITEM_SPLIT, said):  # an item names its first column: 'the chapter of their cause of death'
            compounds = compounds_spelt(item, [c.name for c in columns])
            hits = [(a, spelt) for a, _, spelt in compounds]
            for column in columns:
                spellings = {column.name.lower(), column.name.lower().replace("_", " "), column.name.lower().replace(".", " ")}
                hits += [(m.start(), column.name) for s in spellings
                         for m in re.finditer(rf"(?<![\w.]){re.escape(s)}(?![\w]|\.\w)", item)
                         if not any(a <= m.start() < b for a, b, _ in compounds)]
            if not hits:
                continue
            first = min(hits)[1]
            # 'the log price' is lprice, though the name 'price' stands in it
            named, _ = _columns_for(re.sub(_NEGATED_NOISE, " ", item).strip(), columns)
            if len(named) == 1 and first.lower() in named[0].lower():
                first = named[0]
            if (first, clause.strip(" ,")) not in found.columns:
                found.columns.append((first, clause.strip(" ,")))
        span = re.sub(rf"\b(?:keep|keeps|kept|keeping|hold|holds)\b|(?<![\w.]){_PRONOUN_WORDS}(?![\w.])", " , ",
                      re.sub(_FOR_EVERY_MEMBER, "", span))
        grouped = re.match(r"\s*\(([^()]+)\)", span)
        listed = grouped.group(1) if grouped else re.split(_REASON, span, maxsplit=1)[0]
        if grouped:  # the items of a parenthesised list that name a column exactly are read already
            listed = ",".join(i for i in re.split(_ITEM_SPLIT, listed) if not _names_in(i, profile))
        # ('the number of kids in the household': where they are counted says which column no more than 'kids' does)
        listed = re.sub(r"(?<=\w)\s+(?:in|at|within|inside)\s+(?:the|a|an|his|her|their|its|each)\s+[\w-]+\b", "", listed)
        chunk = re.sub(_NEGATED_NOISE, " ", re.sub(_NEGATION, ",", listed))
        named, unresolved = _resolve(chunk, profile, target)
        found.columns += [(n, clause.strip(" ,")) for n in named if (n, clause.strip(" ,")) not in found.columns]
        said_here = {name for name, said_in in found.columns if said_in == clause.strip(" ,")}
        unresolved = [u for u in unresolved if not _said_beside(u, said_here)]
        found.unresolved += [u for u in unresolved if not re.search(_NOT_ITEMS, u.split("(")[0])
                             and not (target and target.lower() in u.split("(")[0].lower())
                             and u not in found.unresolved]
    return found


def _without_colon_reason(span: str) -> str:
    """'the patient number and the vital-status flag: durations and death are only recorded after the fact' -> 'the
    patient number and the vital-status flag': a colon after the list opens its reason, a sentence of its own (a
    colon before a list, 'these: A, B and C', is a heading and stays)."""
    head, colon, rest = span.partition(": ")
    said = re.split(r"[,;]", rest)[0]
    if colon and re.search(r"\w", head) and (re.search(_VERB_OF_A_CLAUSE, said) or re.match(
            r"\s*(?:they|it|these|those|both|all of them)\b", said) or re.search(
            r"\b(?:adds?|sums?|totals?|makes?)\s+up\b|\b(?:sums?|adds?)\s+to\b|\b(?:leaks?|gives?\s+away|reveals?)\b", said)):
        return head  # ('...: they add up to one', '...: the fractions add up to one')
    return span


def _said_beside(unresolved: str, said_here: set[str]) -> bool:
    """'the class of the car' with class said beside it in the same clause is that column: a column said there is
    among the item's nearest and its name holds the item's head word (before 'of'), or it is the only one near. 'the
    detail of the force action', near force_type_action and force_type, is no force_type: its head is not in it."""
    item = re.match(r"'([^']*)'", unresolved)
    head = item.group(1).split(" of ")[0] if item else ""
    words = {t.text for t in tokens(head)} | {t.stem for t in tokens(head)}
    nearest = _nearest(unresolved)
    # (or the column said is the only one near: 'the count of children still alive' beside children)
    return (len(nearest) == 1 and nearest[0] in said_here) or any(
        words & set(split_name(name)) for name in said_here & set(nearest))


def _nearest(unresolved: str) -> list[str]:
    """The columns an unresolved item's note names as nearest: "'class of car' (nearest: class or car_truck)"."""
    m = re.search(r"\(nearest: ([^)]*)\)\s*$", unresolved)
    return re.split(r",\s*|\s+or\s+", m.group(1)) if m else []


def _code_like_name(name: str) -> bool:
    return bool(re.search(r"[._0-9]", name) or re.search(r"[A-Z]", name[1:]))


def _names_before(text: str, at: int, profile: DataProfile) -> str:
    """Exact column names listed with commas right before `at` ('white, black, ' before 'male'), as a list prefix."""
    names = {c.name.lower() for c in profile.columns}
    found: list[str] = []
    head = text[:at]
    while m := re.search(r"(?:^|[\s(])([\w.]+)\s*,\s*$", head):
        if m.group(1) not in names:
            break
        found.insert(0, m.group(1))
        head = head[:m.start(1)]
    return "".join(f"{name}, " for name in found)


_SINGULAR_PRONOUN = r"\s*(?:so\s+|and\s+|but\s+|hence\s+|therefore\s+)?(?:it|this|that)(?:\s+one|\s+column|\s+field)?\s*"


def _subject_before(text: str, at: int, profile: DataProfile, target: str | None) -> list[str]:
    """The column 'it' or 'that' stands for in 'SexCode is just Sex again as 0/1, so drop that too' or 'the log-wage
    column is the log of what we predict, so it must be kept out': the first column its clause names, else its
    sentence's (a dot inside a name ends neither), else the one column the clause's subject, said before its verb,
    names; nothing when it is not sure."""
    for bound in (r"[.;:!?,](?:\s+|$)|\band\s+", r"[.;:!?](?:\s+|$)"):
        clause = text[max((b.end() for b in re.finditer(bound, text[:at])), default=0):at]
        named = [(n.start(), c.name) for c in profile.columns if c.name != target  # 'wage' in 'log-wage' is not it
                 for n in re.finditer(rf"(?<![\w.-]){re.escape(c.name.lower())}(?![\w-])", clause)]
        if named:
            return [min(named)[1]]
    subject = re.match(r"\s*(.{1,40}?)\s+(?:is|are|was|were|has|gives?|just|simply|merely|only)\b", clause)
    if subject:
        named, unresolved = _resolve(subject.group(1), profile, target)
        if len(named) == 1 and not unresolved:
            return named
    return []


_COUNT_WORDS = {"two": 2, "both": 2, "three": 3, "four": 4, "five": 5, "six": 6}


def _referent(text: str, at: int, profile: DataProfile, pronoun: str = "") -> str:
    """What 'those' stands for, in the same or the previous sentence: the last parenthesised list, else the last run
    of two or more column names ('Outcome, Class, Result and ABEvent ... keep all four of them away'); '' when there
    is none, or when the pronoun counts ('those two') and the run has another length."""
    window = text[_sentence_starts(text, at)[0]:at]
    groups = [g for g in re.finditer(r"\(([^()]{1,120})\)", window)
              if re.search(r",|\band\b|\bor\b", g.group(1)) or len(_names_in(g.group(1), profile)) > 1]
    names = "|".join(re.escape(c.name.lower()) for c in sorted(profile.columns, key=lambda c: -len(c.name)))
    name = rf"(?<![\w.])(?:{names})(?![\w]|\.\w)"
    found = list(re.finditer(rf"{name}(?:\s*(?:,|\band\b|\bor\b|\bplus\b|&|\+)\s*(?:the\s+)?{name})+", window)) \
        if names else []
    # the nearer of the last parenthesised list and the last run of names ('(inside three miles, the nearinc flag)
    # ... the two interaction columns y81ldist and y81nrinc, these ...': these are the two)
    if groups and (not found or groups[-1].end() > found[-1].end()):
        return groups[-1].group(1)
    if not names:
        return ""
    runs = [r.group(0) for r in found]
    if not runs:
        # 'the city and highway figures are published with it, so they cannot be inputs': the sentence's subject,
        # its last noun said of each ('city figures and highway figures')
        subject = re.match(r"\s*(?:the\s+)?([a-z][\w-]*(?:\s*,\s*[\w-]+)*\s+and\s+[\w-]+)\s+([a-z]+s)\s+"
                           r"(?:are|were|have|get|come)\b", text[_sentence_starts(text, at)[1]:at])
        if subject is None or pronoun.strip() not in {"they", "so they", "and they", "them", "these", "those"}:
            return ""
        return " and ".join(f"{w.strip()} {subject.group(2)}" for w in re.split(r",|\band\b", subject.group(1)) if w.strip())
    counted = _counted(pronoun)
    if counted is not None and len(re.findall(name, runs[-1])) != counted:
        return ""
    return runs[-1]


def _listed_before(text: str, at: int, profile: DataProfile, target: str | None, pronoun: str) -> str:
    """'... explained by the mid-parent height together with the child's sex? ... using only those two': the last
    list of inputs in the sentence before, in words, when its items name exactly as many columns as the pronoun
    counts ('' when they do not)."""
    previous, sentence = _sentence_starts(text, at)
    before = text[previous:sentence]
    opener = list(re.finditer(r"\b(?<!together )(?<!along )(?:by|from|using|with|on|given)\s+", before))
    if not opener:
        return ""
    listed = re.sub(r"\btogether with\b|\balong with\b|\bplus\b", ",", before[opener[-1].end():]).strip(" ?.!;")
    named, unresolved = _resolve(listed, profile, target)
    return ", ".join(named) if named and not unresolved and len(named) == _counted(pronoun) else ""


def _stands_alone(cue: str, before: str) -> bool:
    """'..., so neither may be an input': 'neither' or 'none of' with nothing but connectives before it in its
    clause (and nothing said after it) points back to what came before, like a pronoun."""
    return bool(re.fullmatch(r"neither|none\s+of", cue)) \
        and not re.sub(r"[\W\d]+|\b(?:so|and|but|thus|hence|therefore|then)\b", "", before)


def _sentence_starts(text: str, at: int) -> tuple[int, int]:
    """Where the sentence before the one holding `at` starts, and where that one starts (0 for the first)."""
    this = max((m.end() for m in re.finditer(r"[.;!?]\s", text[:at])), default=0)
    return max((m.end() for m in re.finditer(r"[.;!?]\s", text[:max(0, this - 1)])), default=0), this


def _counted(pronoun: str) -> int | None:
    """How many a pronoun counts: 'those 2' 2, 'both' 2, 'those' None."""
    counted = [n for w, n in _COUNT_WORDS.items() if re.search(rf"\b{w}\b", pronoun)] + \
        [int(d) for d in re.findall(r"\d+", pronoun)]
    return counted[0] if counted else None


def _a_reason_said(inside: str, profile: DataProfile, target: str | None = None) -> bool:
    """What a parenthesis holds is a sentence about the list, or a gloss of its item, not items of it: no column named
    but the target, and a verb or a subject ('that's the doctor's own judgement and we want ...', 'just log(fare), it
    would leak'), or a noun said with 'a' ('a route code, not a real feature'); '(trunk diameter, spread and needle
    length)' lists; '(same thing)' says what the item is. A sentence that gives a reason may name a column itself:
    '(the final counts towards it, so it leaks)'."""
    # ('the salary itself, of which lwage is only the log': one column made from the other is the reason too)
    reason = re.search(r"\b(?:because|since|so|leaks?|leaking|leakage|cheat\w*|gives? (?:it|the answer) away|"
                       r"derived|computed|calculated|(?:just|only|merely) (?:the|a|its) (?:log|logarithm|square|copy|"
                       r"transform\w*|rescal\w*|version))\b", inside)
    return (reason is not None or not [n for n in _names_in(inside.lower(), profile) if n != target]) and re.search(
        rf"{_VERB_OF_A_CLAUSE}|'s\b|\b(?:because|since|we|they|it|i)\b|^\s*(?:a|an)\s|\bnot\s+(?:a|an|really)\b|"
        # ('only known once the mailing comes back': when it is known is why it stays out; "its just the log of
        # salary", its verb left out)
        r"^\s*(?:only\s+)?known\b|\b(?:just|only|merely)\s+(?:the|a|its)\s+(?:log|logarithm|square|copy)\b|"
        r"^\s*(?:the\s+)?same\s+(?:thing|as\b)|^\s*(?:a\s+)?(?:duplicate|copy|redundant|identical)\b", inside) is not None


def _only_names(chunk: str, profile: DataProfile) -> bool:
    """Whether every item of a list names a column: '(white, black, male)' restates a list, '(all divided by
    annearn)' says something of it."""
    items = [i for i in re.split(_ITEM_SPLIT, chunk) if i.strip()]
    if not items:
        return False
    for item in items:
        named = _names_in(item, profile)
        if not named:
            return False
        rest = re.sub(rf"(?<![\w.])(?:{'|'.join(re.escape(n) for n in named)})(?![\w.])", " ", item, flags=re.IGNORECASE)
        if re.search(rf"\b(?!{_ITEM_NOISE})[a-z]+\b", rest, re.IGNORECASE):  # a word beside the name: 'divided'
            return False
    return True


def _names_in(chunk: str, profile: DataProfile) -> list[str]:
    """The columns named in full in the words, or spelt by words a hyphen joins ('spread-covered' is sprdcvr, and
    no mention of spread)."""
    compounds = compounds_spelt(chunk, profile.names)

    def inside_a_compound(name: str, start: int, end: int) -> bool:
        return any(a <= start and end <= b and name != spelt for a, b, spelt in compounds)
    return [c.name for c in profile.columns
            if any(spelt == c.name for _, _, spelt in compounds)
            or any(not inside_a_compound(c.name, m.start(), m.end())
                   for m in re.finditer(rf"(?<![\w.]){re.escape(c.name.lower())}(?![\w]|\.\w)", chunk))]


def _exclude(choice: FeatureChoice, columns: list[str], phrase: str) -> None:
    added = [c for c in columns if c not in choice.excluded and c not in choice.only]
    choice.excluded += added
    if added and not choice.excluded_phrase:
        choice.excluded_phrase = phrase


def describe(columns: list[str], conjunction: str = "and") -> str:
    return ", ".join(columns[:-1]) + f" {conjunction} {columns[-1]}" if len(columns) > 1 else "".join(columns)


def usable_kind(column: ColumnProfile) -> bool:
    """A column a tabular model can learn from: the kinds that cannot be a target cannot be an input either."""
    return column.kind not in NOT_TARGETS
