"""Moved to automl_agent.trainkit.clustering (issue 31). This name stays so that models pickled or saved with skops before
the move, which name automl_agent.clustering, still load: importing it gives the module itself."""

import sys

from automl_agent.trainkit import clustering as moved

sys.modules[__name__] = moved
