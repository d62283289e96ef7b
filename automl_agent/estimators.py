"""Moved to automl_agent.trainkit.estimators (issue 31). This name stays so that models pickled or saved with skops before
the move, which name automl_agent.estimators, still load: importing it gives the module itself."""

import sys

from automl_agent.trainkit import estimators as moved

sys.modules[__name__] = moved
