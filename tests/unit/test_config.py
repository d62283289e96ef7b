"""Settings in one place: every AUTOML_AGENT_* variable the package mentions is declared in automl_agent.config, with
the default and the empty-value meaning its call site had; `automl-agent config` lists them (secrets masked), an
invalid value is a clear error, and docs/howto/settings.md holds the model's own table."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from automl_agent import config
from automl_agent.config import PATTERNS, SettingsError, Settings, current_settings, env_name
from automl_agent.errors import UserFacingError

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "automl_agent"
DOC = ROOT / "docs" / "howto" / "settings.md"
NAME = re.compile(r"\bAUTOML_AGENT_[A-Z0-9_]+")
SOURCE_SUFFIXES = {".py", ".j2", ".md", ".txt", ".yaml", ".toml"}
# Files still being written on the monitoring work (their os.environ reads move onto the model with it): allowed
# until then; remove each from here once it reads through current_settings().
DIRECT_READS_ALLOWED = ()
DIRECT_READ = re.compile(r"""os\.(?:environ\.get|getenv)\(\s*f?["']AUTOML_AGENT_|os\.environ\[\s*f?["']AUTOML_AGENT_"""
                         r"""[^\]]*\](?!\s*=[^=])""")

DEFAULTS = {
    "workdir": None, "home": None, "prefect": None, "task_runner": None, "training_pool": None,
    "question_timeout_s": 3600, "question_poll_s": 5, "llm": None, "prices": None, "prompt_alias": "production",
    "gguf_ctx": 16384, "gguf_max_tokens": 512, "gguf_code_max_tokens": 1024, "gguf_threads": None,
    "max_download_mb": 2048.0,
    "memory_mb": None, "retrieval": None, "arxiv_url": "", "kaggle_url": "", "openml_url": "", "searxng_url": "",
    "tavily_url": "", "brave_url": "", "cluster_training_rows": 1_000_000, "device": "auto", "sandbox": "auto", "autogluon_python": None, "api_key": "",
    "max_request_mb": 32.0, "serve_workers": None, "access_log": False, "monitor_dir": None, "monitor_sample": 1.0,
    "monitor_max_mb": 20.0, "plain_progress": False,
}


@pytest.fixture
def clean_env(monkeypatch):
    """No AUTOML_AGENT_* variable set (conftest sets AUTOML_AGENT_RETRIEVAL; a developer's shell may set more)."""
    import os

    for name in [n for n in os.environ if n.startswith(config.ENV_PREFIX)]:
        monkeypatch.delenv(name)
    return monkeypatch


def _package_files():
    for path in sorted(PACKAGE.rglob("*")):
        if path.suffix in SOURCE_SUFFIXES and "__pycache__" not in path.parts and path.is_file():
            yield path, path.read_text(errors="replace")


def _declared(name: str) -> bool:
    if name in {env_name(field) for field in Settings.model_fields}:
        return True
    return any(name.startswith(pattern.split("<", 1)[0]) for pattern in PATTERNS)


# ---- the model declares what the package reads


def test_every_automl_agent_name_in_the_package_is_declared_in_the_model():
    undeclared = {}
    for path, text in _package_files():
        for name in set(NAME.findall(text)):
            if not _declared(name):
                undeclared.setdefault(name, []).append(str(path.relative_to(ROOT)))
    assert not undeclared, (f"AUTOML_AGENT_* names the settings model does not declare: {undeclared}. Declare each "
                            "as a field of automl_agent.config.Settings (or a pattern in PATTERNS), then run "
                            "`python -m automl_agent.config docs/howto/settings.md`.")


def test_every_declared_setting_is_used_somewhere_in_the_package():
    sources = "\n".join(text for path, text in _package_files() if path.name != "config.py")
    unused = [env_name(field) for field in Settings.model_fields
              if not re.search(rf"\.{field}\b", sources) and env_name(field) not in sources]
    assert not unused, f"declared but read nowhere (remove them, or read them through current_settings()): {unused}"


def test_the_package_reads_automl_agent_variables_only_through_the_model():
    direct = []
    for path, text in _package_files():
        relative = str(path.relative_to(PACKAGE))
        if path.suffix != ".py" or relative == "config.py" or relative.startswith(DIRECT_READS_ALLOWED):
            continue
        direct += [f"{relative}:{text[:m.start()].count(chr(10)) + 1}" for m in DIRECT_READ.finditer(text)]
    assert not direct, f"read os.environ directly instead of current_settings(): {direct}"


def test_direct_read_pattern_sees_reads_and_ignores_writes():
    assert DIRECT_READ.search('x = os.environ.get("AUTOML_AGENT_X", "1")')
    assert DIRECT_READ.search("os.environ[f'AUTOML_AGENT_LLM_{a}']")
    assert not DIRECT_READ.search('os.environ["AUTOML_AGENT_SERVE_WORKERS"] = str(n)')


# ---- defaults and what an empty value means


def test_defaults_are_the_ones_the_call_sites_used(clean_env):
    settings = current_settings()
    values = {field: getattr(settings, field) for field in Settings.model_fields}
    values["api_key"] = settings.api_key.get_secret_value()
    assert values == DEFAULTS
    assert settings.agent_llms() == {}


def test_each_call_is_read_from_the_environment_as_it_is_now(clean_env):
    assert current_settings().gguf_ctx == 16384
    clean_env.setenv("AUTOML_AGENT_GGUF_CTX", "4096")
    assert current_settings().gguf_ctx == 4096
    clean_env.delenv("AUTOML_AGENT_GGUF_CTX")
    assert current_settings().gguf_ctx == 16384


def test_names_match_exactly_as_os_environ_get_did(clean_env):
    clean_env.setenv("automl_agent_device", "cpu")
    assert current_settings().device == "auto"


@pytest.mark.parametrize("name, raw, field, expected", [
    ("AUTOML_AGENT_MAX_DOWNLOAD_MB", "", "max_download_mb", 2048.0),  # `get(X) or 2048`
    ("AUTOML_AGENT_MAX_DOWNLOAD_MB", "0", "max_download_mb", 0.0),
    ("AUTOML_AGENT_MEMORY_MB", "   ", "memory_mb", None),  # `.strip()`, then the system's free memory
    ("AUTOML_AGENT_MEMORY_MB", " 12.5 ", "memory_mb", 12.5),
    ("AUTOML_AGENT_SERVE_WORKERS", "", "serve_workers", None),  # `int(get(X) or cores)`
    ("AUTOML_AGENT_SERVE_WORKERS", "3", "serve_workers", 3),
    ("AUTOML_AGENT_MONITOR_SAMPLE", "", "monitor_sample", 1.0),
    ("AUTOML_AGENT_MONITOR_SAMPLE", "0", "monitor_sample", 0.0),
    ("AUTOML_AGENT_PLAIN_PROGRESS", "0", "plain_progress", True),  # `if get(X)`: any text
    ("AUTOML_AGENT_PLAIN_PROGRESS", "", "plain_progress", False),
    ("AUTOML_AGENT_ACCESS_LOG", "1", "access_log", True),  # `get(X, "0") == "1"`
    ("AUTOML_AGENT_ACCESS_LOG", "true", "access_log", False),
    ("AUTOML_AGENT_WORKDIR", "", "workdir", ""),  # the CLI used "" as given; flows fall back on it
    ("AUTOML_AGENT_PROMPT_ALIAS", "", "prompt_alias", ""),
    ("AUTOML_AGENT_DEVICE", "CPU", "device", "CPU"),  # lower-cased where it is used
])
def test_empty_and_odd_values_mean_what_they_meant(clean_env, name, raw, field, expected):
    clean_env.setenv(name, raw)
    assert getattr(current_settings(), field) == expected


def test_call_sites_keep_their_fallbacks(clean_env, tmp_path):
    from automl_agent.data.inputs import max_download_mb
    from automl_agent.data.io import available_memory_mb
    from automl_agent.trainkit.devices import training_device
    from automl_agent.config import user_home
    from automl_agent.prompt_registry import prompt_alias
    from automl_agent.settings import RunOptions

    clean_env.setenv("HOME", str(tmp_path))
    clean_env.setenv("AUTOML_AGENT_HOME", "")
    assert user_home() == (tmp_path / ".automl-agent").resolve()
    clean_env.setenv("AUTOML_AGENT_HOME", str(tmp_path / "h"))
    assert user_home() == (tmp_path / "h").resolve()
    clean_env.setenv("AUTOML_AGENT_MAX_DOWNLOAD_MB", "")
    assert max_download_mb() == 2048
    clean_env.setenv("AUTOML_AGENT_MEMORY_MB", " 300 ")
    assert available_memory_mb() == 300.0
    clean_env.setenv("AUTOML_AGENT_DEVICE", "CPU")
    assert training_device() == "cpu"
    assert prompt_alias() == "production"
    clean_env.setenv("AUTOML_AGENT_RETRIEVAL", "")
    assert RunOptions(instruction="predict y").retrieval == "auto"
    clean_env.setenv("AUTOML_AGENT_RETRIEVAL", "arxiv")
    assert RunOptions(instruction="predict y").retrieval == "arxiv"


def test_retrieval_endpoints_keep_their_order_and_cleaning(clean_env):
    from automl_agent.retrieval.sources.arxiv_source import DEFAULT_URL as ARXIV, ArxivSource
    from automl_agent.retrieval.sources.kaggle_source import kaggle_endpoint
    from automl_agent.retrieval.sources.web_source import BRAVE_URL, _provider

    assert ArxivSource().endpoint == ARXIV
    clean_env.setenv("AUTOML_AGENT_ARXIV_URL", "  http://mirror.local/api/  ")
    assert ArxivSource().endpoint == "http://mirror.local/api"
    clean_env.setenv("AUTOML_AGENT_KAGGLE_URL", "http://second/")
    clean_env.setenv("KAGGLE_API_ENDPOINT", " ")
    assert kaggle_endpoint() == "http://second"
    clean_env.setenv("KAGGLE_API_ENDPOINT", "http://first")
    assert kaggle_endpoint() == "http://first"  # Kaggle's own variable wins, as before
    clean_env.delenv("TAVILY_API_KEY", raising=False)
    clean_env.setenv("BRAVE_API_KEY", "k")
    assert _provider() == ("brave", BRAVE_URL)
    clean_env.setenv("AUTOML_AGENT_SEARXNG_URL", " http://searx/ ")
    assert _provider() == ("searxng", "http://searx")


def test_task_runner_and_prefect_mode(clean_env):
    from automl_agent.cli.app import _prefect_mode
    from automl_agent.flows.task_runners import make_task_runner

    assert type(make_task_runner()).__name__ == "ThreadPoolTaskRunner"
    clean_env.setenv("AUTOML_AGENT_TASK_RUNNER", "")
    with pytest.raises(UserFacingError, match="Unknown AUTOML_AGENT_TASK_RUNNER ''"):  # set but empty, as before
        make_task_runner()
    clean_env.setenv("AUTOML_AGENT_TASK_RUNNER", "processes")
    with pytest.raises(UserFacingError, match="processes"):
        make_task_runner()
    clean_env.delenv("PREFECT_API_URL", raising=False)
    clean_env.setenv("AUTOML_AGENT_PREFECT", "")
    assert _prefect_mode(None) == "workspace"
    clean_env.setenv("AUTOML_AGENT_PREFECT", "ephemeral")
    assert _prefect_mode(None) == "ephemeral" and _prefect_mode("http://x/api") == "http://x/api"


def test_per_agent_brains_follow_the_pattern(clean_env):
    clean_env.setenv("AUTOML_AGENT_LLM_MANAGER", "openai:gpt-4o-mini")
    clean_env.setenv("AUTOML_AGENT_LLM_DATA", "")  # empty: not a route
    clean_env.setenv("AUTOML_AGENT_LLM", "offline")
    settings = current_settings()
    assert settings.agent_llms() == {"MANAGER": "openai:gpt-4o-mini"} and settings.llm == "offline"


def test_cli_defaults_come_from_the_settings_after_parsing(clean_env, tmp_path, capsys):
    from automl_agent.cli.app import main

    clean_env.setenv("AUTOML_AGENT_WORKDIR", str(tmp_path / "ws"))
    assert main(["runs"]) == 0
    assert f"no runs in {(tmp_path / 'ws').resolve()}" in capsys.readouterr().out
    assert main(["--workdir", str(tmp_path / "other"), "runs"]) == 0  # the option wins
    assert "other" in capsys.readouterr().out


# ---- invalid values


def test_an_invalid_value_names_the_variable_and_what_to_set(clean_env):
    clean_env.setenv("AUTOML_AGENT_GGUF_CTX", "big")
    clean_env.setenv("AUTOML_AGENT_MAX_REQUEST_MB", "lots")
    with pytest.raises(SettingsError) as caught:
        current_settings()
    error = caught.value
    assert isinstance(error, UserFacingError)
    assert "AUTOML_AGENT_GGUF_CTX='big' is not a whole number" in error.problem
    assert "AUTOML_AGENT_MAX_REQUEST_MB='lots' is not a number" in error.problem
    assert "Set AUTOML_AGENT_GGUF_CTX to a whole number (default 16384), or unset it" in error.hint
    assert "automl-agent config" in error.hint


def test_an_invalid_secret_is_not_repeated_in_the_error():
    from pydantic import BaseModel, Field, ValidationError

    class TypedKey(BaseModel):  # the API key takes any text; a secret of another type could be invalid
        key: int = Field(validation_alias="AUTOML_AGENT_API_KEY")

    with pytest.raises(ValidationError) as caught:
        TypedKey.model_validate({"AUTOML_AGENT_API_KEY": "hunter2"})
    error = SettingsError(config._problems(caught.value))
    assert "hunter2" not in str(error) and f"AUTOML_AGENT_API_KEY='{config.MASK}'" in str(error)


def test_the_cli_says_an_invalid_value_without_a_traceback(clean_env, tmp_path, capsys):
    from automl_agent.cli.app import EXIT_REJECTED, main

    clean_env.setenv("AUTOML_AGENT_QUESTION_POLL_S", "often")
    assert main(["--workdir", str(tmp_path), "runs"]) == EXIT_REJECTED
    err = capsys.readouterr().err
    assert err.startswith("error: Invalid setting: AUTOML_AGENT_QUESTION_POLL_S='often' is not a whole number")
    assert "-> Set AUTOML_AGENT_QUESTION_POLL_S" in err and "Traceback" not in err


# ---- masking


def test_secret_names():
    assert config.is_secret("AUTOML_AGENT_API_KEY")
    for name in ("AUTOML_AGENT_HUB_TOKEN", "AUTOML_AGENT_DB_PASSWORD", "AUTOML_AGENT_CLIENT_SECRET"):
        assert config.is_secret(name)
    for name in ("AUTOML_AGENT_GGUF_MAX_TOKENS", "AUTOML_AGENT_GGUF_CODE_MAX_TOKENS", "AUTOML_AGENT_LLM_MANAGER"):
        assert not config.is_secret(name)


def test_listing_masks_secrets_and_url_passwords(clean_env):
    clean_env.setenv("AUTOML_AGENT_API_KEY", "hunter2")
    clean_env.setenv("AUTOML_AGENT_PREFECT", "http://admin:pa55@prefect.team:4200/api")
    rows = {row["name"]: row for row in config.settings_rows()}
    assert rows["AUTOML_AGENT_API_KEY"]["value"] == config.MASK and rows["AUTOML_AGENT_API_KEY"]["secret"]
    assert rows["AUTOML_AGENT_PREFECT"]["value"] == f"http://admin:{config.MASK}@prefect.team:4200/api"
    assert "hunter2" not in json.dumps(rows) and "pa55" not in json.dumps(rows)
    clean_env.setenv("AUTOML_AGENT_API_KEY", "")
    assert {row["name"]: row for row in config.settings_rows()}["AUTOML_AGENT_API_KEY"]["value"] == ""


# ---- automl-agent config


def test_config_lists_every_setting_with_value_source_and_description(clean_env, capsys):
    from automl_agent.cli.app import main

    clean_env.setenv("AUTOML_AGENT_DEVICE", "cpu")
    clean_env.setenv("AUTOML_AGENT_API_KEY", "hunter2")
    assert main(["config"]) == 0
    out = capsys.readouterr().out
    for field, info in Settings.model_fields.items():
        assert env_name(field) in out and info.description in out
    assert re.search(r"^AUTOML_AGENT_DEVICE +cpu +\[environment\]$", out, re.M)
    assert re.search(r"^AUTOML_AGENT_GGUF_CTX +16384 +\[default\]$", out, re.M)
    assert re.search(r"^AUTOML_AGENT_API_KEY +\*\*\*\* +\[environment\]$", out, re.M)
    assert "AUTOML_AGENT_LLM_<AGENT>" in out and "hunter2" not in out


def test_config_json(clean_env, capsys):
    from automl_agent.cli.app import main

    clean_env.setenv("AUTOML_AGENT_MAX_REQUEST_MB", "8")
    clean_env.setenv("AUTOML_AGENT_LLM_OPERATION", "gguf:gemma3-270m")
    assert main(["config", "--json"]) == 0
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)}
    assert set(rows) == {env_name(f) for f in Settings.model_fields} | {"AUTOML_AGENT_LLM_OPERATION"}
    assert rows["AUTOML_AGENT_MAX_REQUEST_MB"] == {
        "name": "AUTOML_AGENT_MAX_REQUEST_MB", "value": 8.0, "source": "environment", "default": 32.0,
        "type": "number", "description": Settings.model_fields["max_request_mb"].description, "secret": False}
    assert rows["AUTOML_AGENT_LLM_OPERATION"]["value"] == "gguf:gemma3-270m"
    assert rows["AUTOML_AGENT_LLM_OPERATION"]["pattern"] == "AUTOML_AGENT_LLM_<AGENT>"
    assert rows["AUTOML_AGENT_WORKDIR"]["value"] is None and rows["AUTOML_AGENT_WORKDIR"]["source"] == "default"


def test_config_still_lists_when_a_value_is_invalid_and_exits_2(clean_env, capsys):
    from automl_agent.cli.app import EXIT_REJECTED, main

    clean_env.setenv("AUTOML_AGENT_GGUF_MAX_TOKENS", "many")
    clean_env.setenv("AUTOML_AGENT_DEVICE", "cpu")
    assert main(["config", "--json"]) == EXIT_REJECTED
    captured = capsys.readouterr()
    rows = {row["name"]: row for row in json.loads(captured.out)}
    assert rows["AUTOML_AGENT_GGUF_MAX_TOKENS"]["value"] == "many" and "whole number" in rows[
        "AUTOML_AGENT_GGUF_MAX_TOKENS"]["error"]
    assert rows["AUTOML_AGENT_DEVICE"]["value"] == "cpu"  # the others are still shown
    assert "error: Invalid setting: AUTOML_AGENT_GGUF_MAX_TOKENS='many'" in captured.err
    assert main(["config"]) == EXIT_REJECTED
    assert "INVALID: not a whole number" in capsys.readouterr().out


# ---- the documented table


def test_the_settings_doc_table_is_the_models():
    assert config.doc_table(DOC) == config.settings_table(), (
        "docs/howto/settings.md is out of date: run `python -m automl_agent.config docs/howto/settings.md`")


def test_the_table_has_a_row_per_setting_and_pattern():
    table = config.settings_table()
    for field in Settings.model_fields:
        assert f"| `{env_name(field)}` |" in table
    for pattern in PATTERNS:
        assert f"| `{pattern}` |" in table


def test_the_readme_links_the_settings_doc():
    assert "docs/howto/settings.md" in (ROOT / "README.md").read_text()


def test_the_flows_read_the_task_runner_setting_when_a_run_starts_not_at_import(clean_env):
    from prefect.task_runners import ThreadPoolTaskRunner

    from automl_agent.flows.automl import automl_flow
    from automl_agent.flows.deployed import run
    from automl_agent.flows.task_runners import ConfiguredTaskRunner

    assert isinstance(run.task_runner, ConfiguredTaskRunner) and isinstance(automl_flow.task_runner, ConfiguredTaskRunner)
    runner = run.task_runner.duplicate()
    assert runner.inner is None  # nothing built yet
    clean_env.setenv("AUTOML_AGENT_TASK_RUNNER", "processes")  # set after the import: read at the start
    with pytest.raises(UserFacingError, match="processes"):
        runner.__enter__()
    clean_env.setenv("AUTOML_AGENT_TASK_RUNNER", "threads")
    with runner.duplicate() as started:
        assert isinstance(started.inner, ThreadPoolTaskRunner) and started._started
    assert started.inner is None and not started._started
