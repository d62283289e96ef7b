"""The training kit: everything a generated training script may import (encoders, estimators, the search, the
evaluation and the devices), and nothing that touches MLflow, Prefect, the agents or the network. This folder is the
sandbox's trust boundary; tests/unit/test_trust_boundary.py walks its imports."""
