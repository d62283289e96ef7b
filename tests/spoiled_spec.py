"""The prompt agent's cross-check, shown on a spec the offline rules read right and a brain then spoiled."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from automl_agent.agents.brains.offline import OfflineRules
from automl_agent.agents.contracts import ProblemSpec, RequirementSpec
from automl_agent.agents.prompt_agent import cross_check
from automl_agent.data.profile import profile_table


def cross_checked(frame: pd.DataFrame, file_name: str, instruction: str,
                  spoil: Callable[[ProblemSpec], None]) -> tuple[RequirementSpec, list[str]]:
    """The spec and notes cross_check gives after `spoil` changed the problem the rules read from the instruction."""
    profile = profile_table(frame, file_name)
    wrong = OfflineRules.parse_instruction(instruction, profile, [], []).model_copy(deep=True)
    spoil(wrong.problem)
    return cross_check(wrong, instruction, profile, None)
