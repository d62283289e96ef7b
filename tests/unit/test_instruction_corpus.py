"""The instruction corpora (automl_agent/benchmark/instructions*.yaml: over 800 instructions in many voices, over the
bundled datasets and 16 synthetic tables) through INIT with the offline brain: request check, target, task, metric,
constraints and limits on the inputs, no training.

Floors sit a little under what the current understanding measures (benchmarks/results/understanding_offline*.md);
a change that understands fewer instructions, or trains on a column nobody asked for, fails here."""

from __future__ import annotations

import pytest

from automl_agent.benchmark.understanding import CORPORA, load_cases, run_corpus, summary_table

FLOORS = {"main": 0.97, "holdout": 0.95, "holdout2": 0.95, "holdout3": 0.9}


@pytest.fixture(scope="module")
def results():
    return {name: run_corpus("offline", corpus=path) for name, path in CORPORA.items()}


def test_the_corpora_are_large_and_varied():
    per_corpus = [load_cases(path) for path in CORPORA.values()]
    assert all(len({c["id"] for c in cases}) == len(cases) for cases in per_corpus)
    cases = [c for group in per_corpus for c in group]
    assert len(cases) >= 350
    assert len({c["class"] for c in cases}) >= 12
    assert sum(c["expect"] == "ask" for c in cases) >= 12 and sum(c["expect"] == "refuse" for c in cases) >= 15


@pytest.mark.parametrize("corpus", sorted(FLOORS))
def test_most_instructions_are_understood_exactly(results, corpus):
    overall = summary_table(results[corpus])[-1]
    assert overall["share"] >= FLOORS[corpus], [r.id for r in results[corpus] if not r.understood]


# written blind, first contact measured before the reader was changed for them (benchmarks/results); holdout8 has not
# been used for any change: its floor is its first contact
# holdout9 (first contact 15/40, benchmarks/results/understanding_holdout9_first_contact.md) was then used: 24/40;
# holdout10 (8/24) and holdout11 (15/43, benchmarks/results/understanding_holdout11_first_contact.md) were then used
# for the negation net, the row unit, numbers and windows: 10/24 and 19/43; holdout12 (4/20) was written after the
# last change and has not been used: its floor is its first contact; holdout13 (5/24) and holdout14 (5/24, 8 silent)
# were used for R formulas, shares of right answers, pronouns that stand for columns named before ('keep all four of
# them away', 'those two sit this one out'), held labels and counted window units: 10/24 and 14/24; holdout15, written
# blind after those changes, had a first contact of 6/24 with 6 silent wrong, and 12/24 with none after its fixes;
# holdout16, the last batch, 5/24 with 9 silent wrong (a table with one remark column read as a text task, count
# ranges read as dates), then 9/24 with 3; holdout17, 4/24 with 9 silent wrong (the data's own names read as
# errands and secrets, a bound after a comma read as a column, a scorer's name, milliseconds of a call read as
# training), then 15/24 with 2; holdout18, 2/24 with 8 silent wrong (two number words summed, windows in steps named
# by their length, pandas code, 'rmse<3k', a group-by sum), then 19/24 with 1; holdout19, written after those
# fixes, 2/12 with 3 silent wrong (a month-name column taken for the series' dates), then 4/12 with 1 (5/12 a stop
# later); holdout20, 2/12 with 2 silent wrong (a series timed in decimal years refused, 'as input please take ...'
# ignored), then 11/12 with 1; holdout21, written after those fixes, 3/12 with 5 silent wrong (4 with the brief's
# error on the default metric corrected), then 7/12 with 1; holdout22, written after those, 3/12 with 4 silent wrong
# ('trailing' respelled as 'training', a plain 'from' list of names), then 7/12 with 2 (8/12 with 1 a stop later);
# holdout23, written after those, 3/12 with 3 silent wrong (a lettered name such as memployment, 'minus wage
# itself', 'a 10-minute budget', a numbered list of inputs under a heading), then 9/12 with 2; holdout24, written after
# those, 4/12 with 4 ('collective bargaining' read as the married column, a 0/1 target trained as a regression, 'an
# RMSE of 0.47 or better' as a floor), then 9/12 with none; holdout25, written after those, 1/12 with none (a series
# timed by step numbers refused, 'all remaining columns', 'it's no use to me' read as an exclusion), then 11/12;
# holdout26, written after those, 3/12 with 4 silent wrong ('the price in 1978 dollars', 'a regression for it' after
# two forms of the price, a leak sentence's 'they' read as the target), then 10/12 with 1; holdout27, written after
# those, 3/12 with 3 silent wrong ('whether the respondent thinks abortion should be banned' read as leaving abortion
# out, 'after' as the After2004 target, the flock's ID as the distance from the flock), then 12/12; holdout28,
# written after those, 5/12 with 3 silent wrong ('Drop Row/Col' read as rows, 'everyone who was not hospitalised
# died' leaving the target out, 'anything under 145 is acceptable' a floor), then 11/12 with none; holdout29, written
# after those, 2/12 with 7 silent wrong ('back in prison' read as the person column, 'doing a project' spelling idp,
# 'workers in each county' wcon), then 7/12 with none; holdout30, written after those, 3/12 with 1 (a heading of inputs
# in parentheses ignored), then 7/12 with none (8/12 a stop later); holdout31, written after those, 0/12 with 5 silent
# wrong (1/12 with 4 once the writer's 'use:' list was recorded as one: a series with no time column refused, 'the
# fraction ... that goes on drink' trained on income, 'Don't feed it the other five fractions (food, ...)' losing its
# 'don't'), then 10/12 with 1; holdout32, written after those, 3/12 with 3 (a list cut at the 'is' of its last item
# 'whether it is feeding', dotted names before a colon reason, 'useing only'), then 9/12 with none; holdout33, written
# after those, 2/12 with 3 ('a regression of Y on these columns: ...' ignored, '(ten minutes max)', a lookback said in
# German), then 11/12 with none (the twelfth asks how far apart the rows of a table with no time column are);
# holdout34, written after those, 3/12 with 3 ('col VanKilled' trained on drivers, '(price, in $1000s)' a latency,
# 'the value of each home' the sale price beside an assessed value), then 10/12 with none; holdout35, written after
# those, 4/12 with 5 ('1.1 million nights' on figures in millions, 'h=4 qtrs ... budget 5m' a regression, 'half an hour
# at the very most' dropped, 'with the columns A, B, ...' ignored, "Don't use woman" leaving out a column called use),
# then 9/12 with none; holdout36, written by then, 7/12 with 1 ('below three percent' of a water percentage read as
# 0.03), then 10/12 with none; holdout37, written after those, 4/12 with 1 ('It can run for an hour tops' dropped, a Year
# column of one row per year no clock, 'temperature (degrees C), ausAVt' spelling tasAVt, 'the manufacturing
# measurements' for man_proc_*), then 12/12 with none; holdout38, written after those, 5/12 with 2 ('how well each student
# will do in the math course' trained on the course number, an id left out with a gloss in parentheses kept in; a series
# dated yymmdd refused), then 10/12 with none; holdout39, written after those, 2/12 with 2 ('una precisión (accuracy)'
# read as precision, '200 MB of memory' read as the model's size; a series timed 1947.01 refused), then 11/12 with none;
# holdout40, written after those, 4/12 with 2 ('the minwage data' read as the minwage column, 'how many kids each
# woman has' taken for the living children where the children ever born fit as well), then 8/12 with 1 (the kids), 9/12
# once a question offered the columns a said number names; holdout41, written after those, 2/12 with none (month
# dummies named by 'market' and the verb 'may', 'education' between educ and educsq, French elisions), then 10/12;
# holdout42, written after those, 6/12 with 3 ('peak mem' read as the model's size), then 7/12 with 2; holdout43,
# written after those, 7/12 with 1 ('lsalary is log(salary): exclude it from features' not read), then 11/12 with none;
# holdout44, written after those and measured at the end of that stop, 7/12 with 2, then 9/12 with none ('Also lsalary
# out', 'the next year and a half'); holdout45, written after those, 6/12 with 4 ('whether the favoured team won' read
# as fav25, 'the final exam measured in standard deviations' as termGPA, 'the student's GPA' as priGPA), then 10/12
# with none; holdout46, written after those and measured once they were in, 5/12 with 4 ('job-training programme'
# in the data's description taken for the target, 'nur nicht wage' read as only wage, 'the college tuition' read as
# ctuit, 'so only: ...' not read), then 8/12 with none; holdout47, written after those and measured at the end of
# that stop, 6/12 with 1 (a French list of six inputs and 'au plus 2 Mo' not read), then 10/12 with none; holdout48,
# written after those and measured on the code before them, 7/12 with 1 ('whether a donor responded' with respond and
# resplast taken as respond, where its writer expected a question), then 9/12 with the same 1; holdout49, written
# after those and measured at the end of that stop, 1/12 with 6 (three targets: 'the number of fatal accidents' read
# as nfatacc beside fatacc, 'union membership' as union beside husunion, 'home runs' as runs), then 3/12 with 3;
# holdout50, written after those and measured before any change of stop 57, 8/12 with 1 ("Don't feed the model the
# pieces it is summed from (...)" read as the only inputs), then 12/12 with none; holdout51, written after those and
# measured before any change for it, 4/12 with 3 (two forecast horizons: 'los próximos seis trimestres (año y medio)',
# 'a 3-year outlook'; and a list headed 'everything we only learn once the claim has run its course:'), then 10/12
# with none (its two questions ask with other candidates than its writer's); holdout52, written after those and
# measured before any change of stop 58, 5/12 with none (a time column stepping by 1/7 read as dates and refused),
# then 12/12 with none; holdout53, written after those and measured after stop 58's holdout52 fixes, 7/12 with none,
# then 8/12 with none; holdout54, written and measured at the start of stop 59, 1/12 with 1 ('the traffic fatality
# rate' read as the count totfat), then 8/12 with none; holdout55, the end batch of stop 59, measured after all of
# holdout54's fixes, 0/12 with 2 ('how much each mother worked' as the 0/1 worked, 'predicts the capital stock' as
# pcap), then 8/12 with none; holdout56, written and measured at the start of stop 60, 2/12 with 5 ('all cols minus
# wght' read as the only input, 'can't weigh more than 5 MB' dropped, 'whether the wife has health insurance' as hhi
# through the light verb's h), then 9/12 with none; holdout58, measured after holdout56's fixes, 5/12 with none (a
# table kept without dates beside R's row numbers refused as no series, 'tgt=' unread), then 9/12 with none;
# holdout57, the end batch of stop 60, measured after all of holdout56's and holdout58's fixes, 3/12 with 2 ('how
# much the woman is working' as wks_work beside hours, 'les deux semaines suivantes' as a regression), then 10/12 with
# none; holdout59, written and measured at the start of stop 61, 4/12 with 3 ('drop losses, rank + the 4 flags
# (...)' losing rank, a JSON config unread, 'one full cycle of history (... 132 monthly values)' unread), then 11/12
# with none; holdout60, the end batch of stop 61, measured after all of holdout59's fixes, 4/12 with none (a name
# said whole tied with a longer name holding it, windows in trading days on a table without a clock), then 8/12
# with none (Italian read).
# holdout7 allows one
# more: h7nn01 now differs only by the metric its brief set for a three-class target (f1; the default is accuracy)
FIRST_CONTACT_FLOORS = {"holdout4": 0.75, "holdout5": 0.78, "holdout6": 0.9, "holdout7": 0.75, "holdout8": 0.55,
                        "holdout9": 0.65, "holdout10": 0.4, "holdout11": 0.46, "holdout12": 0.4, "holdout13": 0.4,
                        "holdout14": 0.55, "holdout15": 0.5, "holdout16": 0.45, "holdout17": 0.6,
                        "holdout18": 0.75, "holdout19": 0.4, "holdout20": 0.9,
                        "holdout21": 0.55, "holdout22": 0.65, "holdout23": 0.7,
                        "holdout24": 0.7, "holdout25": 0.9, "holdout26": 0.8,
                        "holdout27": 0.95, "holdout28": 0.9, "holdout29": 0.55, "holdout30": 0.65,
                        "holdout31": 0.8, "holdout32": 0.7, "holdout33": 0.9,
                        "holdout34": 0.8, "holdout35": 0.75, "holdout36": 0.8, "holdout37": 0.95,
                        "holdout38": 0.8, "holdout39": 0.9,
                        "holdout40": 0.7, "holdout41": 0.8, "holdout42": 0.55, "holdout43": 0.85, "holdout44": 0.7,
                        "holdout45": 0.8,
                        "holdout46": 0.65, "holdout47": 0.8, "holdout48": 0.7,
                        "holdout49": 0.25, "holdout50": 0.95, "holdout51": 0.8, "holdout52": 0.95, "holdout53": 0.65,
                        "holdout54": 0.65, "holdout55": 0.65, "holdout56": 0.74, "holdout57": 0.8,
                        "holdout58": 0.74, "holdout59": 0.9, "holdout60": 0.65}
# runs on a spec that differs from what was meant in any field: at most what the reader does now, so that a change
# never trades a question for a silent mistake (first contact: holdout9 12, holdout10 9, holdout11 13)
SILENT_WRONG_CEILINGS = {"holdout7": 5, "holdout8": 4, "holdout9": 2, "holdout10": 4, "holdout11": 2, "holdout12": 4,
                         "holdout13": 1, "holdout14": 1, "holdout15": 0,
                         "holdout16": 2, "holdout17": 1, "holdout18": 1, "holdout19": 1, "holdout20": 1,
                         "holdout21": 0, "holdout22": 1, "holdout23": 2, "holdout24": 0,
                         "holdout25": 0, "holdout26": 1, "holdout27": 0, "holdout28": 0, "holdout29": 0,
                         "holdout30": 0, "holdout31": 1, "holdout32": 0, "holdout33": 0, "holdout34": 0,
                         "holdout35": 0, "holdout36": 0, "holdout37": 0, "holdout38": 0, "holdout39": 0,
                         "holdout40": 1, "holdout41": 0, "holdout42": 2, "holdout43": 0, "holdout44": 0,
                         "holdout45": 0, "holdout46": 0, "holdout47": 0, "holdout48": 1,
                         "holdout49": 3, "holdout50": 0, "holdout51": 0, "holdout52": 0, "holdout53": 0,
                         "holdout54": 0, "holdout55": 0, "holdout56": 0, "holdout57": 0,
                         "holdout58": 0, "holdout59": 0, "holdout60": 0}


@pytest.mark.parametrize("corpus", sorted(FIRST_CONTACT_FLOORS))
def test_blind_corpora_keep_what_the_reader_has_learned(results, corpus):
    overall = summary_table(results[corpus])[-1]
    assert overall["share"] >= FIRST_CONTACT_FLOORS[corpus], [r.id for r in results[corpus] if not r.understood]


@pytest.mark.parametrize("corpus", sorted(SILENT_WRONG_CEILINGS))
def test_blind_corpora_run_no_more_specs_that_differ_from_what_was_meant(results, corpus):
    silent = [r.id for r in results[corpus] if r.silent_wrong]
    assert len(silent) <= SILENT_WRONG_CEILINGS[corpus], silent


@pytest.mark.parametrize("corpus", sorted(FLOORS) + ["holdout9"])
def test_a_wrong_target_is_never_trained_silently(results, corpus):
    silent = [r.id for r in results[corpus] if r.silent_wrong_target]
    assert not silent, silent


@pytest.mark.parametrize("corpus", sorted(FLOORS))
def test_requests_that_are_not_learning_tasks_are_refused_and_unclear_targets_asked(results, corpus):
    by_class = {row["phrasing"]: row for row in summary_table(results[corpus])}
    assert by_class.get("refuse", {"share": 1.0})["share"] == 1.0
    assert all(r.outcome != "ok" for r in results[corpus] if r.phrasing == "ask" or r.expected == "ask")
