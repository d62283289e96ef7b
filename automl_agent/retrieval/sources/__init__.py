"""The retrieval sources, by the names `--retrieval` takes."""

from .arxiv_source import ArxivSource
from .base import Source
from .bundled import BundledSource
from .hf_source import HuggingFaceSource
from .kaggle_source import KaggleSource
from .openml_source import OpenMLSource
from .web_source import WebSource

REMOTE: dict[str, type[Source]] = {"arxiv": ArxivSource, "kaggle": KaggleSource, "hf": HuggingFaceSource,
                                   "web": WebSource, "openml": OpenMLSource}

__all__ = ["REMOTE", "BundledSource", "Source"]
