"""Errors a user can act on: each carries what is wrong and what to do about it."""


class UserFacingError(Exception):
    """A problem with the user's input or environment, reported without a traceback."""

    def __init__(self, problem: str, hint: str = "", status: str = "rejected"):
        super().__init__(problem)
        self.problem = problem
        self.hint = hint
        self.status = status

    def __str__(self) -> str:
        return f"{self.problem}\n  -> {self.hint}" if self.hint else self.problem
