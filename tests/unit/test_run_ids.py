"""--run-id names a new run or resumes a stopped one; it never overwrites a finished run or mixes two tasks."""

import pytest

from automl_agent.cli.app import _check_run_id_is_free_or_resumable
from automl_agent.errors import UserFacingError
from automl_agent.settings import RunOptions
from automl_agent.workspace import RunRecord, Workspace


@pytest.mark.parametrize("status, instruction, refused", [
    ("succeeded", "Predict churn", "already names a finished run"),
    ("rejected", "Predict churn", "already names a finished run"),
    ("interrupted", "Predict the price of a diamond", "another instruction"),
    ("interrupted", "Predict churn", None),
    ("failed", "Predict churn", None),
    ("running", "Predict churn", None),  # killed outright: resumed from its finished stages
])
def test_a_run_id_resumes_only_a_stopped_run_of_the_same_task(tmp_path, status, instruction, refused):
    Workspace(tmp_path).save(RunRecord(run_id="churn-1", status=status, instruction="Predict churn"))
    options = RunOptions(instruction=instruction, workdir=str(tmp_path), run_id="churn-1")
    if refused is None:
        _check_run_id_is_free_or_resumable(options)
    else:
        with pytest.raises(UserFacingError, match=refused):
            _check_run_id_is_free_or_resumable(options)
    _check_run_id_is_free_or_resumable(options.model_copy(update={"run_id": "churn-2"}))  # a new id is free


def test_a_run_id_is_run_by_one_process_at_a_time(tmp_path):
    from automl_agent.cli.app import _hold_run_id

    options = RunOptions(instruction="Predict churn", workdir=str(tmp_path), run_id="nightly")
    held = _hold_run_id(options)
    try:
        with pytest.raises(UserFacingError, match="another automl-agent process"):
            _hold_run_id(options)
    finally:
        held.release()
    _hold_run_id(options).release()  # free again once the first has ended
