"""The target decision in the light of what the instruction says not to use: a column said not to be used is not
what the instruction asks to predict."""

from __future__ import annotations

import re
from collections.abc import Callable

from ..contracts import DataProfile
from .features import decide_features, negated_inputs
from .target import TargetDecision


def without_excluded(decision: TargetDecision, instruction: str, profile: DataProfile,
                     decide: Callable[[DataProfile], TargetDecision] | None = None) -> TargetDecision:
    """'Predict the arrival delay ...; do not use dep_time, dep_delay, arr_time': a tie between arr_delay and
    dep_delay is decided by the exclusion; a single column chosen that the instruction says not to use is asked
    about, with the others as candidates. When every tied column is left out, `decide` (the target decision on a
    table) decides again among the columns the instruction keeps."""
    if decision.how == "flag" or (decision.ask and len(decision.candidates) < 2):
        return decision
    said_not = {name for name, _ in negated_inputs(instruction, profile, None).columns}
    if not decision.ask:
        # (nor when every column would be left out: 'no timestamp column, value column load' of a one-column series
        # describes the table, it leaves nothing out)
        kept = [c for c in profile.target_candidates if c not in said_not]
        if decision.column not in said_not or declared_target(instruction, decision.column) or not kept:
            return decision
        # 'Fatality classifier ... injSeverity stays out': the words fit a column the instruction leaves out
        others = kept[:3]
        return TargetDecision(column=None, confidence="low", how="excluded", ask=True, candidates=others,
                              scores=decision.scores,
                              reason=f"the column the words fit best, {decision.column!r}, is one the instruction says "
                                     "not to use")
    # between tied candidates, every column the reader leaves out counts ('y81ldist and y81nrinc, these leak the
    # answer, so they must be removed'); a single choice is only questioned by the negation net, since a pronoun read
    # with no target yet may point at the target itself ('the logged spend column ..., so it has to be kept out')
    said_not |= set(decide_features(instruction, profile, None).excluded)
    left = [c for c in decision.candidates if c not in said_not]
    dropped = ", ".join(repr(c) for c in decision.candidates if c in said_not)
    if said_not and not left and decide is not None and decision.how == "tie":
        # 'whether the favoured team won, inputs: everything except ..., the score difference and the spread-covered
        # flag': the words that tie name what is left out; what is asked for is among the columns kept
        kept = profile.model_copy(update={
            "columns": [c for c in profile.columns if c.name not in said_not],
            "target_candidates": [c for c in profile.target_candidates if c not in said_not]})
        again = decide(kept)
        if again.ask or again.confidence != "high":
            # what is left fits only weakly: the question stands, among the columns the instruction keeps
            among = list(dict.fromkeys([*([again.column] if again.column else []), *again.candidates]))[:3]
            if not among:
                return decision
            return TargetDecision(column=None, confidence="low", how=decision.how, ask=True, candidates=among,
                                  scores=again.scores,
                                  reason=f"the words fit {dropped}, which the instruction leaves out; among the columns "
                                         f"it keeps, {again.reason}")
        return again.model_copy(update={"reason": f"{again.reason} (the instruction leaves out {dropped})"})
    if not said_not or len(left) == len(decision.candidates) or not left:
        return decision
    if len(left) == 1 and decision.how == "tie":
        return TargetDecision(column=left[0], confidence="medium", how="tie", scores=decision.scores,
                              reason=f"the words fit {' and '.join(decision.candidates)} equally, and the "
                                     f"instruction says not to use {dropped}")
    return decision.model_copy(update={"candidates": left})


def declared_target(instruction: str, column: str | None) -> bool:
    """'- Target: vhappy' or 'label = churn': a column declared the target under a key is what to predict, whatever a
    later pronoun seems to leave out ('EXCEPT happy - vhappy is literally happy == ..., so it leaks': it is happy)."""
    return column is not None and re.search(
        rf"(?:^|[\n;:.-]\s*)(?:target|tgt|label|lbl|outcome|y|response|dependent variable)\s*(?:column|variable)?\s*[:=]\s*"
        rf"[`'\"]?{re.escape(column)}(?![\w])", instruction, re.IGNORECASE) is not None
