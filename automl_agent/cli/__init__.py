"""The command line: the argparse app (app.py), its command groups and the views of runs it prints."""

from .app import main

__all__ = ["main"]
