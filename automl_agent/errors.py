"""Errors a user can act on: each carries what is wrong and what to do about it."""

from typing import ClassVar, Literal

# how a run that stops on the error ends: refused before it trained, or failed on the way
Ending = Literal["rejected", "failed"]


class UserFacingError(Exception):
    """A problem with the user's input or environment, reported without a traceback."""

    def __init__(self, problem: str, hint: str = "", status: Ending = "rejected"):
        super().__init__(problem)
        self.problem = problem
        self.hint = hint
        self.status = status

    def __str__(self) -> str:
        return f"{self.problem}\n  -> {self.hint}" if self.hint else self.problem


class Question(UserFacingError):
    """The run cannot be sure what was meant: it asks (the CLI exits 2; a deployment run pauses for the answer),
    never guesses. `kind` says what the answer is about; a reworded instruction answers any of them."""

    kind: ClassVar[Literal["target", "inputs", "instruction"]] = "instruction"
    candidates: list[str] = []


class InputsUnclear(Question):
    """The instruction limits the inputs in words that name no column, or several: ask, never drop the limit."""

    kind: ClassVar[Literal["target", "inputs", "instruction"]] = "inputs"


class StepUnclear(Question):
    """A forecast is asked of a table with no time column, and the instruction does not say how far apart its rows
    are: ask, never guess the cadence a horizon in months or days is counted in."""


class TargetUnclear(Question):
    """The instruction does not say which column to predict, and the data does not settle it: ask, never guess."""

    kind: ClassVar[Literal["target", "inputs", "instruction"]] = "target"

    def __init__(self, reason: str, candidates: list[str], columns: list[str]):
        self.candidates = candidates
        shown = ", ".join(repr(c) for c in candidates) if candidates else "none stands out"
        example = candidates[0] if candidates else (columns[0] if columns else "COLUMN")
        super().__init__(
            f"Which column should the model predict? {reason[0].upper() + reason[1:]}. Best candidates: {shown}.",
            f"Run again with --target {example} (or another column: {', '.join(columns[:12])}"
            f"{', ...' if len(columns) > 12 else ''}), or name the column in the instruction.",
            status="rejected")
