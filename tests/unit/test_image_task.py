"""Image classification: a labels table of image paths is an image task; the classifier learns from files and
predicts from the base64 images a served request carries; its saved state holds numpy arrays only."""

import pandas as pd
import pytest

from automl_agent.agents.brains.offline import infer_task
from automl_agent.agents.contracts import TaskType
from automl_agent.data.library_datasets import image_folder
from automl_agent.data.profile import profile_table
from automl_agent.trainkit.runtime import ImageClassifier, image_to_base64, one_cycle_lr


@pytest.fixture(scope="module")
def digits(tmp_path_factory):
    labels = image_folder("digits", tmp_path_factory.mktemp("images"))
    return labels, pd.read_csv(labels).head(600)


def test_image_paths_make_an_image_task(digits):
    _, frame = digits
    profile = profile_table(frame, "labels.csv")
    assert profile.column("image").kind == "image" and "image" not in profile.target_candidates
    assert infer_task("Recognise the digit in each image", profile, "label") == TaskType.image_classification


@pytest.mark.parametrize("kind, floor", [("pixels_logistic", 0.75), ("cnn", 0.5)])  # chance is 0.1
def test_classifier_learns_from_files_and_predicts_from_base64(digits, kind, floor):
    import skops.io

    labels, frame = digits
    y = frame["label"].astype(str)
    model = ImageClassifier(kind=kind, size=16, base_dir=str(labels.parent), epochs=15, width=16, lr=0.02)
    model.fit(frame[["image"]][:500], y[:500])
    assert (model.predict(frame[["image"]][500:]) == y[500:]).mean() >= floor
    encoded = pd.DataFrame({"image": [image_to_base64(str(labels.parent / p)) for p in frame["image"][500:510]]})
    model.base_dir = None
    saved = skops.io.dumps(model)
    assert skops.io.get_untrusted_types(data=saved) == ["automl_agent.trainkit.runtime.ImageClassifier"]
    restored = skops.io.loads(saved, trusted=["automl_agent.trainkit.runtime.ImageClassifier"])
    assert list(restored.predict(encoded)) == list(model.predict(encoded))


def test_the_learning_rate_warms_up_then_anneals_to_almost_nothing():
    assert one_cycle_lr(0.0, 0.01) == pytest.approx(0.01 / 25)
    assert one_cycle_lr(0.3, 0.01) == pytest.approx(0.01)
    assert one_cycle_lr(1.0, 0.01) == pytest.approx(0.01 / 25e4)
    values = [one_cycle_lr(p / 100, 0.01) for p in range(101)]
    assert values.index(max(values)) == 30 and all(a >= b for a, b in zip(values[30:], values[31:]))


def test_a_short_time_limit_compresses_the_schedule_instead_of_running_every_epoch(digits):
    labels, frame = digits
    y = frame["label"].astype(str)
    full = ImageClassifier(kind="cnn", size=8, base_dir=str(labels.parent), epochs=3, width=8).fit(frame[["image"]], y)
    assert full.steps_trained_ == 3 * 10  # 600 images in batches of 64
    cut = ImageClassifier(kind="cnn", size=8, base_dir=str(labels.parent), epochs=500, width=8, time_limit_s=0.5)
    assert cut.fit(frame[["image"]], y).steps_trained_ < 500 * 10
