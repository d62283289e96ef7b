"""Forecast windows as people say them: how many steps the model reads (lookback) and predicts (horizon), from
settings (INPUT_SEQ_LEN=96), counts ('the next 12 steps') or calendar units converted with the data's time step."""

from __future__ import annotations

from . import rx as re  # the re functions over a larger compile cache

from .words import normalise


# units that count the data's own steps, whatever their length: '120 sessions' of a trading series, '48 ticks'
_COUNTED = (r"(?:steps?|points?|values?|observations?|periods?|time steps?|readings?|rows?|lags?|sessions?|bars?|"
            r"ticks?|intervals?|slots?|blocks?|buckets?|bins?|samples?|measurements?|records?|entries|entry|time points?|"
            r"data points?|candles?)")
_SECONDS = {"minute": 60, "half-hour": 1800, "half hour": 1800, "hour": 3600, "day": 86400, "week": 604800,
            "fortnight": 1209600, "month": 2629746, "quarter": 7889238, "half-year": 15778476, "year": 31556952,
            "decade": 315569520}
_WEEKS = {"year": 52, "half-year": 26, "quarter": 13, "fortnight": 2, "week": 1}
_CALENDAR = r"(?:half[- ]hours?|minutes?|hours?|days?|weeks?|fortnights?|months?|quarters?|half[- ]years?|years?|decades?)"
_WINDOW_UNITS = rf"(?:{_COUNTED}|{_CALENDAR})"
_NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
                 "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30,
                 "half": 0.5, "half a": 0.5, "half an": 0.5, "a half": 0.5}
_NUMBER_OR_ONE = (r"(\d+(?:\.\d+)?|half an?|a half|half|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|"
                  r"twelve|fifteen|twenty|thirty)")
# words that may stand between a count and its unit: 'the next 10 trading days', '12 more months'
_UNIT_ADJECTIVES = (r"(?:(?:trading|business|working|calendar|market|full|whole|more|further|additional|consecutive|"
                    r"hourly|daily|weekly|monthly|quarterly|yearly|future|past|historical|"
                    # the length of each step: 'the next 3 five-minute intervals', '12 half-hour slots'
                    r"\d+[- ]?(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?)|half[- ]hour(?:ly)?|"
                    r"quarter[- ]hour(?:ly)?|most[- ]recent|latest|newest)\s+){0,2}")


def _snapped(step_s: float) -> float:
    """A measured step of 28-31 days is a month, of 89-92 days a quarter, of 365-366 days a year."""
    for unit, (low, high) in {"month": (27, 32), "quarter": (88, 93), "year": (360, 367)}.items():
        if low * 86400 <= step_s <= high * 86400:
            return _SECONDS[unit]
    return step_s


def _steps(number: str | None, unit: str | None, step_s: float | None) -> int | None:
    """N units as steps of the data: '24 hours' on hourly data is 24, 'next quarter' on monthly data 3; counted
    units ('96 steps') as said; calendar units on data without a known step, as said."""
    n = 1.0 if number is None else float(_NUMBER_WORDS.get(number.lower(), number) if not number[0].isdigit() else number)
    unit = re.sub(r"half[ -](hour|year)", r"half-\1", (unit or "").lower().rstrip("s"))
    if not unit or re.fullmatch(_COUNTED, unit + "s") or re.fullmatch(_COUNTED, unit) or step_s is None:
        return int(n) if n.is_integer() else None
    if abs(step_s - _SECONDS["week"]) < 3600 and unit in _WEEKS:  # on weekly data a year is 52 weeks, not 52.18
        return int(round(n * _WEEKS[unit])) if (n * _WEEKS[unit]) >= 1 else None
    steps = n * _SECONDS.get(unit, 0) / _snapped(step_s)
    return int(round(steps)) if steps >= 1 and abs(steps - round(steps)) <= 0.05 * steps else None


def _lookback_phrases() -> tuple[str, ...]:
    unit = rf"{_UNIT_ADJECTIVES}({_WINDOW_UNITS})"
    return (
        rf"\b(?:last|past|previous|preceding|prior|trailing)\s+{_NUMBER_OR_ONE}?\s*(?:{unit})?",
        # 'the most recent 36 months' (a count after it; 'the 24 most recent' is read below)
        rf"\b(?:most[- ]recent|latest|newest)\s+{_NUMBER_OR_ONE}\s*(?:{unit})?",
        rf"\blook(?:ing)?[- ]?back\s*(?:window\s*)?(?:of\s*|over\s*(?:the\s*)?)?(?:(?:a|the)\s+(?:full|whole)\s+)?[=:]?\s*"
        rf"{_NUMBER_OR_ONE}\s*(?:{unit})?",
        rf"\b(?:input|history|context|lag)[\s_]+(?:window|length|size)\s*(?:of\s*)?[=:]?\s*(?:the\s+)?{_NUMBER_OR_ONE}\s*(?:{unit})?",
        # 'with a history of 24 months', 'a window of 36 weeks'
        rf"\b(?:history|window|context)\s+of\s+(?:the\s+)?(?:last\s+|past\s+)?{_NUMBER_OR_ONE}\s*(?:{unit})",
        # 'fed the 24 most recent monthly observations'
        rf"\b{_NUMBER_OR_ONE}\s+(?:most[- ]recent|latest|newest)\s+{unit}",
        rf"{_NUMBER_OR_ONE}[- ]{unit}\s+(?:look[- ]?back|(?:input |history |context |lag )?window|of (?:history|context))",
        rf"\b{_NUMBER_OR_ONE}\s+{unit}\s+of\s+(?:\w+\s+)?(?:history|data|context|past values|observations|figures|"
        rf"values|numbers|readings|counts|records)\b",
        # 'giving the model the 40 sessions before as its input'
        rf"\b{_NUMBER_OR_ONE}\s+{unit}\s+(?:before|earlier|prior|beforehand)\b(?=[^.;]{{0,30}}\b(?:inputs?|history|"
        rf"context|window)\b)")


def _horizon_phrases() -> tuple[str, ...]:
    unit = rf"{_UNIT_ADJECTIVES}({_WINDOW_UNITS})"
    return (
        rf"\bhorizon\s*(?:of\s*)?[=:]?\s*{_NUMBER_OR_ONE}\s*(?:{unit})?",
        # 'h=4 quarters', 'h = 12': the forecasting texts' letter for the horizon
        rf"(?<![\w.])h\s*=\s*(\d+)\s*(?:{unit})?",
        rf"\b(?:next|following|coming|upcoming)\s+{_NUMBER_OR_ONE}?\s*{unit}",
        # 'a three-month-ahead forecast' as well as '3 months ahead'
        rf"{_NUMBER_OR_ONE}[- ]{unit}(?:\s*\([^()]{{0,30}}\))?(?:\s+|-)(?:ahead|out|forward|horizon|into the future)\b",
        # 'the four weeks after the series ends', '6 months beyond the end of the data': the stretch after the data
        rf"\b{_NUMBER_OR_ONE}\s+{unit}\s+(?:after|beyond|past|following)\s+(?:the\s+|its\s+)?(?:very\s+)?"
        r"(?:end|series|data|history|sample|last|final|latest|observed|recorded)\b",
        # 'a 3-year outlook', 'an 18-month projection': the outlook's length is the horizon
        rf"\b{_NUMBER_OR_ONE}[- ]{unit}\s+(?:outlook|forecast|projection|view)\b",
        # 'a full-year outlook': the outlook's length is the horizon
        rf"\b(\d+)?(?:full|whole)[- ]({_CALENDAR})\s+(?:outlook|forecast|projection|view)\b")


def requested_windows(instruction: str, step_s: float | None = None) -> tuple[int | None, int | None]:
    """(input length, forecast horizon) in steps of the data: from INPUT_SEQ_LEN=96 / PRED_SEQ_LEN=24, 'horizon: 24',
    'the next 24 hours', 'next quarter', '12 steps ahead', 'from the last 96 hours', 'a 60-step lookback'; calendar
    units are converted with the data's time step (step_s seconds). None where the instruction does not say."""
    text = normalise(instruction)
    lookback = _window(text, r"input_seq_len\s*[=:]\s*(\d+)", _lookback_phrases(), step_s)
    if lookback is None:
        lookback = _history_glossed(text, step_s)
    horizon = _window(text, r"pred_seq_len\s*[=:]\s*(\d+)", _horizon_phrases(), step_s)
    return lookback, horizon


def window_spans(text: str) -> list[tuple[int, int]]:
    """Where a window or a cadence is said, up to its unit ('the coming year', 'the last 12 months', 'month by
    month'): a calendar word there names no column (a column called Year is not what 'for the coming year' asks
    for)."""
    spans = []
    for phrase in (*_lookback_phrases(), *_horizon_phrases()):
        for m in re.finditer(phrase, text):
            if m.group(2):
                spans.append((m.start(), m.end(2)))
    # the cadence: 'month by month', 'day by day'
    spans += [(m.start(), m.end()) for m in re.finditer(rf"\b({_CALENDAR})\s+by\s+\1\b", text)]
    return spans


def _a_point_in_time(m: re.Match) -> bool:
    """'starting from the last month we have on record': a moment the forecast starts at, not a window of months."""
    return m.group(1) is None and bool(re.search(r"\b(?:since|starting(?:\s+(?:from|at|with))?|beginning(?:\s+(?:with|at))?|"
                                                 r"as of|up to|until|through|after)\s+the\s*$",
                                                 m.string[max(0, m.start() - 30):m.start()]))


def _window(text: str, setting: str, phrases: tuple[str, ...], step_s: float | None) -> int | None:
    """A window given as a setting (INPUT_SEQ_LEN=96) as said; else the first phrase that matches, in steps: its
    number (group 1) and its unit (group 2), either of which may be missing."""
    m = re.search(setting, text)
    if m:
        return int(m.group(1))
    m = next((found for phrase in phrases for found in re.finditer(phrase, text) if not _a_point_in_time(found)),
             None)
    if not m or not (m.group(1) or m.group(2)):
        return None
    # 'the whole previous business day as history (169 slots)', 'one year of weekly lags (52)': a count of steps in
    # parentheses says what the words before it mean on this data
    # (in the same clause: no comma between; 'the next 3 5-minute intervals, working from the last hour of traffic
    # (12 intervals)' counts the hour, not the 3)
    counted = re.match(rf"[^.;(),]{{0,40}}\(\s*(\d+)\s+{_UNIT_ADJECTIVES}{_COUNTED}\b", text[m.end():]) \
        or re.match(r"[^.;(),]{0,30}\(\s*(\d+)\s*\)", text[m.end():])
    if counted:
        return int(counted.group(1))
    # ('one trading year (250 days)': a length said again in parentheses, in days, is the one meant)
    measured = re.match(rf"\s?\(\s*(\d+)\s*{_UNIT_ADJECTIVES}({_WINDOW_UNITS})\s*\)", text[m.end():])
    if measured and _steps(measured.group(1), measured.group(2), step_s) is not None:
        return _steps(measured.group(1), measured.group(2), step_s)
    # 'the last year of history, call it 250 trading days': a calendar window said again as a count, which wins (a
    # count of steps said first stays: 'a 338-step window, which is two full business days')
    if not re.fullmatch(_COUNTED, m.group(2) or "") and (restated := _RESTATED.match(text, m.end())):
        return _steps(restated.group(1), restated.group(2), step_s)
    return _steps(m.group(1), m.group(2), step_s)


def _history_glossed(text: str, step_s: float | None) -> int | None:
    """'one full Schwabe cycle of history (call it 11 years, i.e. 132 monthly values)': a history named by what it is
    rather than by a unit, and measured in its parentheses; the last length there is the one the words settle on."""
    m = re.search(r"\b(?:of|as)\s+(?:the\s+|its\s+)?(?:history|context|past values|input history)\s*\(([^()]*)\)", text)
    if not m:
        return None
    lengths = re.findall(rf"(\d+(?:\.\d+)?)\s*{_UNIT_ADJECTIVES}({_WINDOW_UNITS})\b", m.group(1))
    return _steps(*lengths[-1], step_s) if lengths else None


_RESTATED = re.compile(rf"[^.;()\d]{{0,25}}?,\s*(?:i\.?\s?e\.?|that is|that's|which is|call it|say|roughly|about|"
                       rf"approximately|around)\s*,?\s*(?:about\s+|roughly\s+|around\s+)?(\d+)\s*{_UNIT_ADJECTIVES}"
                       rf"({_WINDOW_UNITS})\b")


# 'monthly', 'one row per month', 'one observation each quarter': how far apart the rows of a series are, as said
_CADENCE_SECONDS = {"hourly": 3600, "daily": 86400, "weekly": 604800, "monthly": 2629746, "quarterly": 7889238,
                    "yearly": 31556952, "annual": 31556952}
_ROW_WORDS = r"(?:rows?|lines?|records?|observations?|values?|entries|entry|points?|data points?|readings?)"


def stated_step_s(instruction: str) -> float | None:
    """The gap between a series' rows in seconds where the instruction says it ('a monthly series', 'one row per
    month', 'monthly from January 1950'); None where it says no cadence."""
    text = normalise(instruction)
    # ('half-hourly', 'one reading every half hour', 'every 15 minutes': a step said as a length of time)
    if re.search(r"\bhalf[- ]?hourly\b", text):
        return float(_SECONDS["half-hour"])
    every = re.search(r"\b(?:every|each)\s+(\d+\s*|half[- ](?:an\s+)?|other\s+)?"
                      r"(min(?:ute)?s?|hours?|hrs?|days?|weeks?|months?|quarters?|years?)\b", text)
    if every and not re.search(r"\b(?:retrain\w*|refresh\w*|runs?|schedul\w*|update\w*)\s+(?:\w+\s+)?$",
                               text[:every.start()]):
        unit = {"min": "minute", "hr": "hour"}.get(re.sub(r"(?:ute)?s?$", "", every.group(2)), every.group(2).rstrip("s"))
        count = (every.group(1) or "").strip()
        factor = 0.5 if count.startswith("half") else 2.0 if count == "other" else float(count or 1)
        return float(_SECONDS[unit] * factor) if unit in _SECONDS else None
    said = re.search(r"\b(hourly|daily|weekly|monthly|quarterly|yearly|annual)\b", text)
    if said:
        return float(_CADENCE_SECONDS[said.group(1)])
    per = re.search(rf"\b(?:one|an?|1|single)\s+{_ROW_WORDS}\s+(?:per|a|an|each|every|for each)\s+"
                    r"(half[- ]hour|hour|day|week|month|quarter|year)\b", text)
    if per:
        return float(_SECONDS[per.group(1).replace(" ", "-")])
    # ('forecast 20 trading days ahead from the last 250': a market's rows are its trading days)
    traded = re.search(r"\b(?:\d+|one|a)\s+(?:trading|business|market)\s+(days?|sessions?)\b", text)
    return float(_SECONDS["day"]) if traded else None


def rows_are_the_steps(instruction: str, profile) -> bool:
    """A table of numbers with no time column is a series in file order when the instruction says how far apart its
    rows are and asks for the steps after them ('monthly from January 1950 ... the next 12 months'). Without both, a
    table with no clock stays a table: 'spending over the next 12 months' of a customer table is no series."""
    columns = profile.columns
    # (a row counter beside the numbers, R's rownames, numbers the steps: it keeps no table from being a series)
    return any(c.kind == "numeric" for c in columns) and all(c.kind in ("numeric", "identifier") for c in columns) \
        and profile.graph is None \
        and stated_step_s(instruction) is not None and requested_windows(instruction)[1] is not None
