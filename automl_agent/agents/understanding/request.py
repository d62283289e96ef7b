"""Is this a request to learn something from the data? Judged on what it asks and on what the data holds, not on a
keyword list alone: "spot the fraudulent transfers" with a transfers table is one; "translate these messages" is not."""

from __future__ import annotations

from . import rx as re  # the re functions over a larger compile cache
from typing import Sequence

from .target import NAMED, TargetDecision

# things people ask of a file that are not learning a model from it, and attempts to steer the agent
NOT_LEARNING = re.compile(
    r"\b(?:poem|poetry|joke|story|essay|song|translate|translation|convert"
    r"|book (?:me )?(?:a|an) (?:flight|hotel|table|room|ticket)|what(?:'s| is) the weather|capital of"
    r"|(?:names?|addresses|phone numbers|e-?mails?|contact details|home addresses) (?:and \w+ )?of|list (?:all|every) "
    r"|show me (?:all|every|the) (?:rows|records)|how many rows|bar chart|pie chart|line chart|histogram|scatter ?plot"
    r"|plot (?:the|a|me|it|them)|visuali[sz]e|summari[sz]e|summary of|pivot table"
    # an artefact that is not a model: 'write me a SQL query', 'build a dashboard', 'an Excel formula'
    r"|sql|(?:write|give|show|make|build|create|draft|need)\s+(?:me\s+|us\s+)?(?:a|an|the|some)\s+(?:[\w-]+\s+){0,2}?"
    r"(?:query|queries|dashboard|spreadsheet|formula|macro|regex|regular expression|pivot)"
    r"|system prompt|your (?:instructions|prompt|rules)|ignore (?:all |any )?(?:the )?(?:previous|prior|above|earlier)"
    r"|disregard|password|api key|secret|exfiltrat|print (?:your|the) (?:prompt|instructions)|rm -rf)\b")
# the writer's own piece of work, told as the reason for asking ('I'm drafting an essay about school tracking and would
# like to know whether ...', 'for my thesis'): it is not asked of the agent
_OWN_WORK = re.compile(r"\b(?:my|our|i'm|i am|we're|we are|i was|we were)\s+(?:[a-z]+ing\s+)?(?:(?:a|an|the)\s+)?"
                       r"(?:[\w-]+\s+){0,2}?(?:poem|poetry|story|essay|song|book|paper|thesis|article|report)s?\b")
# editing the table: an errand on its own, a cleaning step beside a prediction ('predict delays; drop the rows where
# the carrier is missing')
ROW_EDITS = re.compile(r"\b(?:delete|remove (?:the |all |every )?rows?|drop (?:the |all |every )?rows?)\b")
# errands, told as commands ('send the table to Bob', 'please email me the file'), not predictions about sending
ERRANDS = re.compile(r"(?:^|[.;!?,]\s*|\b(?:please|and|then|also|just|can you|could you)\s+)"
                     r"(?:send|e-?mail|upload|export|forward|post)\b(?![^.;!?]*\bback\b)")
LEARNING = re.compile(
    r"\b(?:predict|forecast|classif|regress|cluster|segment|group|model|train|detect|estimate|recogni|categori|label"
    r"|score|anomal|rank|identify|which|whether|spot|flag|catch|filter|tell apart|tell (?:if|whether|which)|distinguish"
    r"|sort|triage|guess|figure out|find|pick out|separate|automl|machine learning|ml|ai|propensity|risk|likely"
    r"|probability|chance|expect|project|anticipate|next|future|tomorrow|ahead|will|fit|learn|gbm|xgb|lgbm|boost"
    r"|neural|network|random forest|regressor|rout(?:e|es|ing)|assign|prioriti[sz]e)\w*")


# attempts to steer the agent itself, each with what it asks for
STEERING = {
    "set aside its rules": re.compile(r"\b(?:ignore|disregard|forget|override|bypass)\b[^.;!?]{0,40}\b(?:instructions?"
                                      r"|rules?|prompts?|guardrails?|restrictions?)\b|\bjailbreak|\bdeveloper mode\b"),
    "reveal its instructions or secrets": re.compile(
        r"\bsystem prompt\b|\b(?:print|show|reveal|tell|give|leak|dump|display|output|share|repeat)\b[^\n]{0,30}"
        r"\byour (?:instructions|prompt|rules)\b|\b(?:print|show|reveal|tell|give|send|leak|dump|read|display|output"
        r"|share|post|upload|e-?mail|copy|include|cat)\b[^\n]{0,40}(?:api[ _-]?keys?\b|\bpasswords?\b|\bsecrets?\b"
        r"|\b(?:access |auth |api )tokens?\b|\bcredentials?\b|\bid_rsa\b|\.ssh\b|\bprivate keys?\b"
        r"|kaggle\.json|\.env\b|\benvironment variables?\b)"),
    "send data elsewhere": re.compile(r"\bexfiltrat\w*|\b(?:send|post|upload|forward|e-?mail)\b[^\n]{0,80}?"
                                      r"(?:https?://|\bto (?:my|our|this|an?) (?:server|url|endpoint|address|bucket))"),
    "run commands": re.compile(r"\brm -rf\b|\b(?:curl|wget|chmod|sudo|bash|powershell)\b"
                               r"|`\s*(?:rm|curl|wget|sudo|bash|sh|cat|chmod|python|ls|nc)\b[^`]*`"
                               r"|\brun (?:the |this |a |any )?(?:command|shell|script)s?\b"),
}


# a question about the rows already there ('which suburb has the highest crime rate?', 'what is the average mpg of the
# 4-cylinder cars?'): a lookup or a summary, answered by a query, not by a model
LOOKUP = re.compile(r"(?:^|[.!?;]\s*)(?:which|what|who|where|when|how many|how much)\b[^.!?;]*\b(?:highest|lowest|most|"
                    r"least|largest|smallest|biggest|maximum|minimum|max|min|average|mean|total|sum|median|top|"
                    r"best|worst)\b"
                    # 'How many of the homes listed here are condos?': a count of rows
                    r"|(?:^|[.!?;]\s*)how many (?:of )?(?:the |these |those )?(?:(?!does\b|do\b|did\b|will\b|would\b|can\b)[\w-]+ ){1,4}"
                    r"(?:are|were|is)\b"
                    # 'list them from the best earner down to the worst': the rows there, ranked
                    r"|\b(?:list|sort|order|rank)\s+(?:them|these|those|it|all|the\s+\w+)\b[^.;!?]*\b(?:from|by)\s+(?:the\s+)?"
                    r"(?:best|highest|most|largest|biggest|top|worst|lowest|least|smallest)\b"
                    # 'the average closing price for each month': an aggregate of the rows there
                    r"|\b(?:give|show|list|tell|return|returns|compute|calculate|get)\s+(?:me\s+|us\s+)?(?:the\s+)?"
                    r"(?:average|mean|total|sum|median|count|number)\b[^.;!?]*\b(?:for|per|by|in)\s+(?:each|every)\s+\w+"
                    # 'add up the home runs by team': a group-by sum
                    r"|\b(?:add|sum|total|tot|count)(?:s|ed|ing|ting|led|ling)?\s+up\b[^.;!?]*\b(?:by|per|for each|for every|"
                    r"across|within)\s+\w+|\b(?:tally|tallies|group(?:ed)? by)\b")
PREDICTIVE = re.compile(r"\b(?:predict|forecast|estimat|model|classif|cluster|regress|will|would|next|future|tomorrow|expect|"
                        r"likely|could we|can we|can you|can i|train|learn|guess)\w*")
SMALLTALK = re.compile(r"^\W*(?:hi|hello|hey|hiya|yo|good (?:morning|afternoon|evening)|thanks|thank you)\b"
                       r"|\bhow are you\b|\bwho are you\b|\bwhat can you do\b|\bwhat(?:'s| is) up\b")


def steering(text: str) -> list[str]:
    """What an instruction asks of the agent beyond learning from the data: its rules set aside, its secrets, data
    sent elsewhere, commands run. Empty for an honest request."""
    text = text.lower()
    return [what for what, pattern in STEERING.items() if pattern.search(text)]


def _names_masked(text: str, names: Sequence[str]) -> str:
    """The text with the data's own names (its columns, the table's name) read as names: 'the password column', 'the
    email table' and 'format + re_subj' speak of the data, they ask for no password and send no email. A name used as
    a verb with its object ('email me the file') stays."""
    for name in sorted({n.lower() for n in names if len(n) >= 3}, key=len, reverse=True):
        for spelt in {name, name.replace("_", " ")}:
            text = re.sub(rf"(?<![\w.]){re.escape(spelt)}(?![\w])(?!\s+(?:me|us|it|them|him|her|to)\b)", "column", text)
    return text


def asks_for_something_else(text: str, names: Sequence[str] = ()) -> bool:
    """A poem, an errand, a lookup, the agent's own instructions: anything but learning from the data. `names` are the
    data's own names (columns, the table's name), which ask for nothing."""
    text = text.lower()
    if steering(text):
        return True
    text = _OWN_WORK.sub(" ", _names_masked(text, names))
    if LOOKUP.search(text) and not PREDICTIVE.search(text):
        return True
    return bool(NOT_LEARNING.search(text) or ERRANDS.search(text)
                or (ROW_EDITS.search(text) and not LEARNING.search(ROW_EDITS.sub(" ", text))))


def judge_request(instruction: str, decision: TargetDecision | None, flag: str | None = None,
                  names: Sequence[str] = ()) -> tuple[bool, str]:
    """(relevant, feedback): relevant when nothing asks for something other than learning and either the words ask
    for a prediction, the sentence is a question about the data, a column of the data is named, or --target is set.
    `names`: the data's columns and the table's name."""
    text = instruction.lower().strip()
    if not text:
        return False, "The instruction is empty. Say what to predict from the data, e.g. 'Predict churn; F1 at least 0.6'."
    steered = steering(text)
    if steered:
        return False, (f"The instruction asks the agent to {' and to '.join(steered)}. automl-agent does none of "
                       "that: it trains a model on the data it is given, and nothing else.")
    if asks_for_something_else(text, names):
        return False, ("This does not read as a machine-learning request: it asks for something other than "
                       "learning a model from the data. automl-agent trains models: say what to predict, classify, cluster or forecast, e.g. 'Predict churn from this table'.")
    # (a column named but said not to be used, 'excluded', is a question about the target, not a request for nothing)
    named = decision is not None and decision.how in NAMED | {"tie", "answer", "excluded"}
    named = named or (decision is not None and decision.how in {"only", "graph", "filename"} and _speaks_of_data(text))
    question = text.endswith("?") or re.match(r"(?:will|how|what|which|who|is|are|does|do|can|could|when)\b", text)
    if SMALLTALK.search(text) and not (flag or named or LEARNING.search(text)):
        return False, ("This reads as small talk, not a machine-learning request. Say what to predict, classify, "
                       "cluster or forecast from the data, e.g. 'Predict churn from this table'.")
    if flag or named or question or LEARNING.search(text):
        return True, ""
    return False, ("This does not read as a machine-learning request: it names nothing in the data and asks for no "
                   "prediction. Say what to predict, classify, cluster or forecast, e.g. 'Predict churn from this "
                   "table; F1 at least 0.6', or pass --target COLUMN.")


def _speaks_of_data(text: str) -> bool:
    """A few words about things tables hold ('review sentiment', 'paper topics'), not noise ('asdf qwerty')."""
    from .target import concept_groups
    from .words import tokens

    stems = {t.stem for t in tokens(text)}
    return any(stems & group for group in concept_groups()) or bool(re.search(
        r"\b(?:review|paper|message|text|image|photo|node|graph|customer|user|price|sales?|label|class|categor)\w*", text))


def data_names(profile) -> list[str]:
    """The names a table gives itself: its columns, and its file's name ('email' for email.csv)."""
    from pathlib import Path

    names = list(profile.names)
    if getattr(profile, "path", None):
        stem = Path(profile.path).stem
        names += [stem, *stem.split("__")]  # 'openintro__email': a package's table fetched by name
    return names
