"""A deployment run that must ask pauses for the answer instead of failing.

The CLI asks by exiting 2 with the question. A run started from the Prefect UI, the API or a schedule has nobody at a
terminal, so it pauses with a typed form (a Prefect `RunInput`): the question and the candidate columns are its
description, the fields are the answer. Resumed from the UI ("Resume" shows the form) or the API
(`POST /flow_runs/{id}/resume` with `run_input`), the run starts over with the answer, which counts as `--target` or
as a reworded instruction.
"""

from __future__ import annotations

from typing import Optional

from prefect.flow_runs import pause_flow_run
from prefect.input import RunInput
from pydantic import Field

from ..config import current_settings
from ..settings import RunOptions
from ..workspace import RunRecord, new_run_id

MAX_QUESTIONS = 3  # after that many answers that still leave a question, the run fails with the last one


class Answer(RunInput):
    """What the person resuming the run says."""

    target: Optional[str] = Field(default=None, description="The column to predict (one of the candidates, or any "
                                                            "column of the table).")
    instruction: Optional[str] = Field(default=None, description="The instruction, reworded if the question was "
                                                                 "about it (e.g. name the input columns exactly).")


def _form_text(record: RunRecord) -> str:
    question = record.question
    assert question is not None
    lines = [f"**automl-agent needs an answer to go on.** {question.question}"]
    if question.candidates:
        lines.append("Candidates: " + ", ".join(f"`{c}`" for c in question.candidates) + ".")
    if question.hint and question.kind != "target":  # a target question's hint speaks of --target, for the CLI
        lines.append(question.hint)
    lines.append("Fill in `target` (the column to predict) or a reworded `instruction`, then resume.")
    return "\n\n".join(lines)


def answered(record: RunRecord, options: RunOptions, key: str) -> RunOptions:
    """Pause the current flow run with the record's question; the options to run again with, once resumed. A run
    nobody answers within AUTOML_AGENT_QUESTION_TIMEOUT_S (default an hour) fails as paused runs do."""
    question = record.question
    assert question is not None
    form = Answer.with_initial_data(
        description=_form_text(record), instruction=options.instruction,
        target=question.candidates[0] if question.kind == "target" and question.candidates else None)
    settings = current_settings()
    answer = pause_flow_run(wait_for_input=form, key=key, timeout=settings.question_timeout_s,
                            poll_interval=settings.question_poll_s)
    update: dict = {"run_id": new_run_id()}
    if answer.instruction and answer.instruction.strip() != options.instruction:
        update["instruction"] = answer.instruction.strip()
    if answer.target and (question.kind == "target" or "instruction" not in update):
        update["target"] = answer.target.strip()
    return options.model_copy(update=update)
