"""Scheduled retraining's parameters and intervals, checked when the schedule is made rather than at 03:00."""

from __future__ import annotations

from datetime import timedelta

import pytest

from automl_agent.deployments.schedules import _schedule, parse_every, run_parameters
from automl_agent.errors import UserFacingError


@pytest.mark.parametrize("text, seconds", [("90s", 90), ("15m", 900), ("6h", 21600), ("1d", 86400), ("2 weeks", 1209600),
                                           ("3600", 3600), ("1.5h", 5400), ("1 minute", 60)])
def test_intervals_are_read_in_the_units_people_write(text, seconds):
    assert parse_every(text) == timedelta(seconds=seconds)


@pytest.mark.parametrize("text", ["soon", "30s", "-1d", "1 fortnight"])
def test_an_interval_that_is_not_one_or_finer_than_the_scheduler_is_refused(text):
    with pytest.raises(UserFacingError):
        parse_every(text)


def test_when_is_said_once_and_checked():
    with pytest.raises(UserFacingError, match="once"):
        _schedule(None, None, "UTC")
    with pytest.raises(UserFacingError, match="once"):
        _schedule("1d", "0 3 * * 1", "UTC")
    with pytest.raises(UserFacingError, match="not valid"):
        _schedule(None, "every monday", "UTC")
    with pytest.raises(UserFacingError, match="not valid"):
        _schedule(None, "0 3 * * 1", "Mars/Olympus")
    assert _schedule(None, "0 3 * * 1", "Europe/Paris").cron == "0 3 * * 1"


def test_a_scheduled_run_carries_only_what_was_given_and_a_path_the_worker_can_read(tmp_path):
    assert run_parameters("Predict churn", str(tmp_path / "c.csv"), model_name="churn", budget=None, target="") == {
        "instruction": "Predict churn", "data": str(tmp_path / "c.csv"), "model_name": "churn"}
    assert run_parameters("Predict churn", "s3://bucket/churn.csv")["data"] == "s3://bucket/churn.csv"
    with pytest.raises(UserFacingError, match="relative path"):
        run_parameters("Predict churn", "data/churn.csv")
    with pytest.raises(UserFacingError, match="needs --data"):
        run_parameters("Predict churn", " ")
    with pytest.raises(UserFacingError, match="empty"):
        run_parameters("  ", "/data/churn.csv")


@pytest.mark.parametrize("extra, said", [
    (["--when-drifted"], "--model-name is needed"),
    (["--model-name", "churn", "--drift-share", "0.2"], "only mean something with --when-drifted"),
    (["--model-name", "churn", "--when-drifted", "--log-dir", "logs"], "relative path"),
])
def test_a_drift_schedule_is_checked_before_the_server_is_asked(monkeypatch, capsys, tmp_path, extra, said):
    from automl_agent import cli

    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:9/api")  # never reached: the checks come first
    code = cli.main(["--workdir", str(tmp_path), "schedule", "add", "Predict churn", "--data", "/data/churn.csv",
                     "--every", "1d", *extra])
    assert code == 2 and said in capsys.readouterr().err


def test_a_drift_watch_carries_the_model_and_what_the_check_needs():
    assert run_parameters("Predict churn", "/data/churn.csv", model="churn", log_dir="/srv/logs", drift_share=None,
                          min_rows=50, since_hours=None) == {
        "instruction": "Predict churn", "data": "/data/churn.csv", "model": "churn", "log_dir": "/srv/logs",
        "min_rows": 50}
