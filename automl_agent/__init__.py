"""automl-agent: the AutoML-Agent method as MLOps software."""
__version__ = "0.1.0"
