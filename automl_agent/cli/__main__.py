"""`python -m automl_agent.cli`."""

from .app import main

raise SystemExit(main())
