"""Text classification: the profile sees free text, the rules and the cross-checks route it to the text task,
and the encoder's saved state stays small and exact."""

import pickle

import pandas as pd
import pytest

from automl_agent.agents.brains.offline import infer_task
from automl_agent.agents.contracts import TaskType
from automl_agent.data.profile import profile_table
from automl_agent.trainkit.runtime import TextEncoder
from tests.spoiled_spec import cross_checked


@pytest.fixture(scope="module")
def sms():
    from tests.conftest import DATASETS
    return pd.read_csv(DATASETS / "sms_spam.csv").head(600)


def test_free_text_is_profiled_and_routes_to_text_classification(sms):
    profile = profile_table(sms, "sms.csv")
    assert profile.column("message").kind == "text" and profile.column("label").kind == "categorical"
    assert infer_task("Detect spam messages", profile, "label") == TaskType.text_classification


def test_cross_check_moves_a_tabular_answer_to_the_text_task(sms):
    def spoil(problem):
        problem.downstream_task = TaskType.tabular_classification

    spec, notes = cross_checked(sms, "sms.csv", "Detect spam SMS messages with F1 at least 0.9", spoil)
    assert spec.problem.downstream_task == TaskType.text_classification and spec.problem.metric == "f1"
    assert any("does not fit the data" in n for n in notes)


def test_tfidf_encoder_saves_compact_state_and_transforms_identically(sms):
    import skops.io

    encoder = TextEncoder(text=["message"], char_ngrams=True).fit(sms)
    restored = skops.io.loads(skops.io.dumps(encoder), trusted=["automl_agent.trainkit.runtime.TextEncoder"])
    assert abs(restored.transform(sms.head(20)) - encoder.transform(sms.head(20))).sum() == 0
    assert abs(pickle.loads(pickle.dumps(encoder)).transform(sms.head(5)) - encoder.transform(sms.head(5))).sum() == 0
    assert len(skops.io.dumps(encoder)) < 5_000_000
