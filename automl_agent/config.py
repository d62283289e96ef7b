"""Every AUTOML_AGENT_* environment variable in one typed model: its type, its default and what it does.

Code reads a setting through `current_settings()`, which reads the environment at each call (tests and `automl-agent
serve` change it after import): a model built earlier is reused only while every AUTOML_AGENT_* value is the same. A
value that is not of its type (a word
where a number goes) is a `SettingsError`: the CLI prints what to set instead, never a traceback. Defaults, and what
an empty value means, are what each variable meant before it was declared here; the description says so where it
matters. `automl-agent config` lists the current values, and docs/howto/settings.md holds the table made by
`settings_table()` (`python -m automl_agent.config docs/howto/settings.md` rewrites it)."""

from __future__ import annotations

import functools
import os
import re
import sys
import typing
from pathlib import Path
from typing import Annotated, Any, Optional
from urllib.parse import urlsplit, urlunsplit

from pydantic import AliasGenerator, BeforeValidator, Field, PrivateAttr, SecretStr, ValidationError
from pydantic_core import PydanticUseDefault
from pydantic_settings import BaseSettings, SettingsConfigDict

from .errors import UserFacingError

ENV_PREFIX = "AUTOML_AGENT_"
SECRET_WORD = re.compile(r"(?:^|_)(?:KEY|TOKEN|SECRET|PASSWORD)(?:_|$)")  # MAX_TOKENS is a number, not a secret
MASK = "****"
DOC_START, DOC_END = "<!-- settings-table:start -->", "<!-- settings-table:end -->"


def _empty_is_default(value: Any) -> Any:
    """`os.environ.get(NAME) or DEFAULT` as it was read before: an empty value means the default."""
    if isinstance(value, str) and value == "":
        raise PydanticUseDefault()
    return value


def _blank_is_default(value: Any) -> Any:
    """`os.environ.get(NAME, "").strip()`, then the default when nothing is left."""
    if isinstance(value, str):
        if not value.strip():
            raise PydanticUseDefault()
        return value.strip()
    return value


def _any_text_is_on(value: Any) -> Any:
    """`if os.environ.get(NAME)`: any non-empty value switches it on (even 0)."""
    return bool(value) if isinstance(value, str) else value


def _only_1_is_on(value: Any) -> Any:
    """`os.environ.get(NAME, "0") == "1"`: 1 switches it on, any other value leaves it off."""
    return value == "1" if isinstance(value, str) else value


EmptyIsDefault = BeforeValidator(_empty_is_default)
BlankIsDefault = BeforeValidator(_blank_is_default)


class Settings(BaseSettings):
    """The AUTOML_AGENT_* variables. Names match exactly (upper case); fields are the names without the prefix."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX, case_sensitive=True, extra="ignore", populate_by_name=True, frozen=True,
        # os.environ.get("AUTOML_AGENT_HOME") matched that exact name: so do the fields (home <- AUTOML_AGENT_HOME)
        alias_generator=AliasGenerator(validation_alias=lambda field: ENV_PREFIX + field.upper()))

    # workspace, servers and runs
    workdir: Optional[str] = Field(
        default=None, description="Workspace folder (runs, MLflow store, bentos); --workdir wins. Unset: .automl in "
                                  "the current directory for CLI commands, workspace/ in the home folder "
                                  "(AUTOML_AGENT_HOME) for runs a deployment starts")
    home: Optional[str] = Field(
        default=None, description="Your own automl-agent folder (the Prefect server, the local stack). Unset or empty: "
                                  "~/.automl-agent")
    prefect: Optional[str] = Field(
        default=None, description="Prefect API of `run` and `bench` when --prefect is not given: workspace, ephemeral "
                                  "or an API URL. Unset or empty: PREFECT_API_URL, else workspace")
    task_runner: Optional[str] = Field(
        default=None, description="How a run executes its plans: threads (default: in the flow's process), dask (a "
                                  "local Dask cluster) or dask:tcp://HOST:PORT (a running one)")
    training_pool: Optional[str] = Field(
        default=None, description="Default of `run --training-pool`: the Prefect work pool that trains the generated "
                                  "script. Unset or empty: a local subprocess")
    question_timeout_s: int = Field(
        default=3600, description="Seconds a paused run waits for the answer to its question (target, inputs) before "
                                  "it fails")
    question_poll_s: int = Field(default=5, description="Seconds between two checks for that answer")

    # brains
    llm: Optional[str] = Field(
        default=None, description="Default brain (--llm): offline, openai:MODEL, azure:DEPLOYMENT or gguf:PATH. Unset: "
                                  "offline for `run` and `bench`, openai:gpt-4o-mini for `llm check`")
    prices: Optional[str] = Field(
        default=None, description='Extra LLM prices, JSON {"model": [input, output]} in USD per million tokens, over '
                                  "the built-in table; malformed JSON is ignored")
    prompt_alias: str = Field(
        default="production", description="Alias of the prompt versions in the MLflow prompt registry that runs use")
    gguf_ctx: int = Field(default=16384, description="Context length, in tokens, of a local gguf: brain (llama.cpp)")
    gguf_max_tokens: int = Field(default=512, description="Tokens a local gguf: brain may write per answer")
    gguf_code_max_tokens: int = Field(default=1024, description="Tokens a local gguf: brain may write per training "
                                                                "script")
    gguf_threads: Annotated[Optional[int], BlankIsDefault] = Field(
        default=None, description="CPU threads a local gguf: brain computes on. Unset or blank: half the cores, at least "
                                  "one, as training shares them (llama.cpp's threads wait for each other, so one that is "
                                  "kept off its core slows them all); one per core on a machine that does nothing else")

    # data and knowledge
    max_download_mb: Annotated[float, EmptyIsDefault] = Field(
        default=2048.0, description="Size cap, in MB, of a data file fetched from a URL. Empty: the default")
    memory_mb: Annotated[Optional[float], BlankIsDefault] = Field(
        default=None, examples=[4096], description="Memory, in MB, this process may fill when reading data (a worker's "
                                                   "share). Unset or blank: the free memory the system reports")
    retrieval: Optional[str] = Field(
        default=None, description="Default of --retrieval: auto, none, or a list of arxiv,kaggle,hf,web,openml. Unset "
                                  "or empty: auto")
    arxiv_url: str = Field(default="", description="arXiv API endpoint (a mirror, a test server). Unset or blank: "
                                                   "arXiv's own")
    kaggle_url: str = Field(default="", description="Kaggle API endpoint when KAGGLE_API_ENDPOINT is not set. Unset or "
                                                    "blank: Kaggle's own")
    openml_url: str = Field(default="", description="OpenML API endpoint (also of openml:// data). Unset or blank: "
                                                    "OpenML's own")
    searxng_url: str = Field(default="", description="SearXNG server for web search (JSON output on); when set, it is "
                                                     "used before Tavily and Brave")
    tavily_url: str = Field(default="", description="Tavily search endpoint (used with TAVILY_API_KEY). Unset or "
                                                    "blank: Tavily's own")
    brave_url: str = Field(default="", description="Brave search endpoint (used with BRAVE_API_KEY). Unset or blank: "
                                                   "Brave's own")

    # training
    cluster_training_rows: Annotated[int, EmptyIsDefault] = Field(
        default=1_000_000, ge=0, description="Rows from which a tabular classification or regression trains on the "
                                             "Dask cluster of AUTOML_AGENT_TASK_RUNNER (dask: a local one; "
                                             "dask:tcp://HOST:PORT: a running one) instead of in the sandbox. 0: every "
                                             "such table, when a Dask runner is set. Without one, every table trains "
                                             "in the sandbox")
    device: str = Field(default="auto", description="Device that trains: auto (CUDA when torch sees a GPU, else the "
                                                    "CPU), cpu, or cuda (fail when there is none); any case")
    sandbox: str = Field(default="auto", description="guard: run scripts without bubblewrap (a subprocess with limits "
                                                     "and the audit-hook guard); auto (or any other value): bubblewrap "
                                                     "where it works")
    autogluon_python: Optional[str] = Field(
        default=None, description="Python with autogluon.tabular, for `bench --baseline autogluon`. Unset or empty: "
                                  ".venv-autogluon/bin/python (`make autogluon`)")

    # serving
    api_key: SecretStr = Field(default=SecretStr(""), description="Key a served model requires ('Authorization: "
                                                                  "Bearer KEY' or 'X-API-Key: KEY'). Unset or empty: "
                                                                  "no key")
    max_request_mb: float = Field(default=32.0, description="Largest request body, in MB, a served model reads (413 "
                                                            "past it)")
    serve_workers: Annotated[Optional[int], EmptyIsDefault] = Field(
        default=None, examples=[2], description="Server processes of a served model (`serve --workers` sets it). Unset "
                                                "or empty: the number of cores, at most 4")
    access_log: Annotated[bool, BeforeValidator(_only_1_is_on)] = Field(
        default=False, description="1: a served model logs each request (BentoML's access log); any other value: off")
    monitor_dir: Optional[str] = Field(
        default=None, description="Folder of served models' traffic logs, which `monitor` reads. Unset or empty: the "
                                  "workspace's monitoring/ (`serve` sets it so); ./monitoring for a bento served "
                                  "otherwise")
    monitor_sample: Annotated[float, EmptyIsDefault] = Field(
        default=1.0, description="Share of the records a served model answers that its traffic log keeps, 0 to 1 (0: "
                                 "no log). Empty: the default")
    monitor_max_mb: Annotated[float, EmptyIsDefault] = Field(
        default=20.0, description="Size cap, in MB, of each server process's traffic log (its 3 rotated files "
                                  "together). Empty: the default")

    # terminal
    plain_progress: Annotated[bool, BeforeValidator(_any_text_is_on)] = Field(
        default=False, description="Any non-empty value (even 0): progress as plain lines, no live display (as when CI "
                                   "is set)")

    _agent_llms: dict[str, str] = PrivateAttr(default_factory=dict)

    @classmethod
    def settings_customise_sources(cls, settings_cls, init_settings, env_settings, dotenv_settings,
                                   file_secret_settings):
        return init_settings, env_settings  # the environment only: no .env file, no secrets folder

    def agent_llms(self) -> dict[str, str]:
        """AUTOML_AGENT_LLM_<AGENT> variables that are set and not empty: {'MANAGER': 'openai:gpt-4o', ...}; which
        agents exist is the brain factory's business (agents.brains.factory.AGENTS, looked up in upper case)."""
        return dict(self._agent_llms)

    def model_post_init(self, context: Any) -> None:
        super().model_post_init(context)
        self._agent_llms = pattern_values(AGENT_LLM_PATTERN)


# variables whose name ends in a part the user chooses
AGENT_LLM_PATTERN = ENV_PREFIX + "LLM_<AGENT>"
PATTERNS: dict[str, str] = {
    AGENT_LLM_PATTERN: "Brain of one agent (like --llm-agent AGENT=SPEC, which wins): AGENT is MANAGER, PROMPT, DATA, "
                       "MODEL or OPERATION; empty: the --llm brain",
}


def pattern_values(pattern: str, environ: Optional[typing.Mapping[str, str]] = None) -> dict[str, str]:
    """{suffix: value} of the variables a pattern names that are set and not empty (the suffix as written)."""
    variables = os.environ if environ is None else environ
    prefix = pattern.split("<", 1)[0]
    return {name[len(prefix):]: value for name, value in sorted(variables.items())
            if name.startswith(prefix) and len(name) > len(prefix) and value}


def env_name(field: str) -> str:
    return ENV_PREFIX + field.upper()


def is_secret(name: str) -> bool:
    field = name.removeprefix(ENV_PREFIX).lower()
    info = Settings.model_fields.get(field)
    return bool(SECRET_WORD.search(name.removeprefix(ENV_PREFIX))) or (
        info is not None and info.annotation is SecretStr)


class SettingsError(UserFacingError):
    """One or more AUTOML_AGENT_* variables hold a value of the wrong type."""

    def __init__(self, problems: list[tuple[str, str, str]]):
        self.names = [name for name, _, _ in problems]
        shown = "; ".join(f"{name}={raw!r} is not {wanted}" for name, raw, wanted in problems)
        fixes = "; ".join(f"set {name} to {wanted}{_example(name)}, or unset it" for name, _, wanted in problems)
        super().__init__(f"Invalid setting: {shown}.", f"{fixes[0].upper()}{fixes[1:]} (`automl-agent config` lists "
                                                        "every setting; docs/howto/settings.md describes them).")


WANTED = {"int_parsing": "a whole number", "int_from_float": "a whole number", "int_type": "a whole number",
          "float_parsing": "a number", "float_type": "a number", "finite_number": "a finite number",
          "bool_parsing": "true or false"}


def _example(name: str) -> str:
    info = Settings.model_fields[name.removeprefix(ENV_PREFIX).lower()]
    if info.default not in (None, "") and not isinstance(info.default, SecretStr):
        return f" (default {_plain(info.default)})"
    return f" (e.g. {info.examples[0]})" if info.examples else ""


def _problems(error: ValidationError) -> list[tuple[str, str, str]]:
    problems = []
    for item in error.errors():
        name = str(item["loc"][0]) if item["loc"] else "?"
        wanted = WANTED.get(item["type"], item["msg"][0].lower() + item["msg"][1:])
        raw = os.environ.get(name, item.get("input", ""))
        problems.append((name, MASK if is_secret(name) else raw, wanted))
    return problems


def current_settings() -> Settings:
    """The settings as the environment holds them now; SettingsError (a UserFacingError) when a value is invalid.
    Built anew whenever an AUTOML_AGENT_* variable changed since the last call (the model is frozen, so callers
    share it safely; building one takes milliseconds, and the progress display asks on each line)."""
    return _settings_for(tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith(ENV_PREFIX))))


@functools.lru_cache(maxsize=8)
def _settings_for(environment: tuple[tuple[str, str], ...]) -> Settings:
    """`environment` is only the cache key: Settings() reads os.environ, which holds those values now."""
    try:
        return Settings()
    except ValidationError as error:
        raise SettingsError(_problems(error)) from None


# ---- listing (automl-agent config) and documenting (docs/howto/settings.md)

def _plain(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _mask_url_password(text: str) -> str:
    """A URL's password (postgresql://user:PASSWORD@host) is a secret too."""
    if "://" not in text:
        return text
    try:
        parts = urlsplit(text)
        if not parts.password:
            return text
        host = parts.netloc.rsplit("@", 1)[1]
        return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:{MASK}@{host}"))
    except ValueError:
        return text


def _shown(name: str, value: Any) -> Any:
    """A value as `config` shows it: secrets masked (set or not is all it says), JSON-friendly."""
    if isinstance(value, SecretStr):
        value = value.get_secret_value()
    if is_secret(name) and value not in (None, ""):
        return MASK
    return _mask_url_password(value) if isinstance(value, str) else value


def settings_rows() -> list[dict[str, Any]]:
    """Every setting with its current value, where that came from (environment or default), its description, and
    the problem when its value is invalid (that setting then shows the raw value; the others are still listed)."""
    environ = os.environ
    invalid: dict[str, str] = {}
    try:
        settings = Settings()
    except ValidationError as error:
        invalid = {name: wanted for name, _, wanted in _problems(error)}
        settings = _settings_without([name.removeprefix(ENV_PREFIX).lower() for name in invalid])
    rows = []
    for field, info in Settings.model_fields.items():
        name = env_name(field)
        row = {"name": name, "value": _shown(name, getattr(settings, field)),
               "source": "environment" if name in environ else "default",
               "default": _shown(name, info.default), "type": _type_name(info.annotation),
               "description": info.description, "secret": is_secret(name)}
        if name in invalid:
            row["value"] = _shown(name, environ.get(name, ""))
            row["error"] = f"not {invalid[name]}; commands refuse to start until it is fixed or unset"
        rows.append(row)
    for pattern, description in PATTERNS.items():
        values = pattern_values(pattern, environ)
        prefix = pattern.split("<", 1)[0]
        for suffix, value in values.items():
            name = prefix + suffix
            rows.append({"name": name, "value": _shown(name, value), "source": "environment", "default": None,
                         "type": "text", "description": description, "secret": is_secret(name), "pattern": pattern})
        if not values:
            rows.append({"name": pattern, "value": None, "source": "default", "default": None, "type": "text",
                         "description": description, "secret": False, "pattern": pattern})
    return rows


def _settings_without(fields: list[str]) -> Settings:
    """The settings with the named (invalid) fields at their defaults: init values win over the environment."""
    return Settings(**{field: Settings.model_fields[field].get_default(call_default_factory=True) for field in fields})


TYPE_NAMES = {SecretStr: "secret", bool: "flag", int: "integer", float: "number", str: "text"}


def _type_name(annotation: Any) -> str:
    """Optional[int] -> 'integer': unset is said by the default, not the type."""
    inner = [a for a in typing.get_args(annotation) if a is not type(None)] or [annotation]
    return TYPE_NAMES.get(inner[0], str(inner[0]))


def render_rows(rows: list[dict[str, Any]]) -> str:
    """The text listing: one line with the name, the value and its source, then the description, indented."""
    width = max(len(row["name"]) for row in rows)
    lines = []
    for row in rows:
        value = "(unset)" if row["value"] is None else "(empty)" if row["value"] == "" else _plain(row["value"])
        lines.append(f"{row['name']:<{width}}  {value}  [{row['source']}]")
        if row.get("error"):
            lines.append(f"{'':<{width}}  INVALID: {row['error']}")
        lines.append(f"    {row['description']}")
    return "\n".join(lines)


def settings_table() -> str:
    """The Markdown table of docs/howto/settings.md, made from the model (a unit test keeps the two equal)."""
    lines = ["| Variable | Type | Default | What it does |", "| --- | --- | --- | --- |"]
    for field, info in Settings.model_fields.items():
        default = info.default.get_secret_value() if isinstance(info.default, SecretStr) else info.default
        shown = "unset" if default is None else "empty" if default == "" else f"`{_plain(default)}`"
        lines.append(f"| `{env_name(field)}` | {_type_name(info.annotation)} | {shown} | "
                     f"{(info.description or '').replace('|', '&#124;')} |")
    for pattern, description in PATTERNS.items():
        lines.append(f"| `{pattern}` | text | unset | {description.replace('|', '&#124;')} |")
    return "\n".join(lines)


def update_doc(path: Path) -> bool:
    """Rewrite the table between the markers of `path`; True when it changed."""
    text = path.read_text()
    head, _, rest = text.partition(DOC_START)
    _, _, tail = rest.partition(DOC_END)
    updated = f"{head}{DOC_START}\n{settings_table()}\n{DOC_END}{tail}"
    if updated != text:
        path.write_text(updated)
    return updated != text


def doc_table(path: Path) -> str:
    """The table as the document holds it now."""
    return path.read_text().partition(DOC_START)[2].partition(DOC_END)[0].strip("\n")


if __name__ == "__main__":
    for target in sys.argv[1:] or ["docs/howto/settings.md"]:
        print(f"{target}: {'updated' if update_doc(Path(target)) else 'already current'}")


def user_home() -> Path:
    """The user's own automl-agent folder (not a workspace's): the one Prefect server of this user, the local stack.
    `AUTOML_AGENT_HOME` moves it (tests point it at a temporary folder); the default is ~/.automl-agent, beside
    Prefect's own ~/.prefect."""
    root = Path(current_settings().home or Path.home() / ".automl-agent").expanduser().resolve()
    root.mkdir(parents=True, exist_ok=True)
    return root
