import numpy as np
import pandas as pd
import pytest

from automl_agent.data.io import read_table
from automl_agent.errors import UserFacingError
from automl_agent.trainkit.runtime import FrameEncoder
from automl_agent.scoring import comprehensive_score, normalised_performance, success_score


def test_frame_encoder_imputes_scales_and_ignores_unseen_levels():
    train = pd.DataFrame({"n": [1.0, 2.0, np.nan, 4.0], "c": ["a", "b", "a", None]})
    enc = FrameEncoder(numeric=["n"], categorical=["c"], scale=True).fit(train)
    out = enc.transform(pd.DataFrame({"n": [np.nan], "c": ["zzz"]}))
    assert out.shape == (1, 3)
    assert out[0, 1:].tolist() == [0.0, 0.0]  # unseen level -> all zeros
    assert list(enc.get_feature_names_out()) == ["n", "c=a", "c=b"]
    plain = FrameEncoder(numeric=["n"], categorical=["c"]).fit(train).transform(train)
    assert plain[2, 0] == 2.0 and plain[0].tolist() == [1.0, 1.0, 0.0]


def test_success_score_scales_follow_the_paper():
    assert success_score(runnable=False, deployed=True, n_constraints=0, n_satisfied=0) == 0.0
    assert success_score(runnable=True, deployed=False, n_constraints=0, n_satisfied=0) == 0.5
    assert success_score(runnable=True, deployed=True, n_constraints=0, n_satisfied=0) == 1.0
    assert success_score(runnable=True, deployed=False, n_constraints=2, n_satisfied=2) == 0.25
    assert success_score(runnable=True, deployed=True, n_constraints=2, n_satisfied=0) == 0.5
    assert success_score(runnable=True, deployed=True, n_constraints=2, n_satisfied=1) == 0.75
    assert success_score(runnable=True, deployed=True, n_constraints=2, n_satisfied=2) == 1.0


def test_nps_and_cs():
    assert normalised_performance("rmsle", 0.25) == pytest.approx(0.8)
    assert normalised_performance("accuracy", 0.9) == 0.9
    assert comprehensive_score(1.0, 0.8) == pytest.approx(0.9)


@pytest.mark.parametrize("content, suffix, words", [
    (None, ".csv", "not found"),
    ("", ".csv", "empty"),
    ("a,b\n", ".csv", "no data rows"),
    ("a,b\n1,2\n", ".csv", "too few"),
    ("whatever", ".xlsx", "does not hold one"),
    ("whatever", ".docx", "Unsupported"),
])
def test_bad_data_files_give_clear_errors(tmp_path, content, suffix, words):
    path = tmp_path / f"data{suffix}"
    if content is not None:
        path.write_text(content)
    with pytest.raises(UserFacingError) as info:
        read_table(path)
    assert words in str(info.value) and info.value.hint
