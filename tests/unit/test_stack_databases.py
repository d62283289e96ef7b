"""Which database each stack server gets from `stack up --db ... --mlflow-db ...` (no server is started here: the
started-PostgreSQL path runs in tests/integration/test_team_platform.py)."""

from __future__ import annotations

import pytest

from automl_agent.errors import UserFacingError
from automl_agent.platform import stack


def test_sqlite_is_the_default_for_both_servers():
    assert stack._databases("sqlite", None) == (None, None, None)


def test_a_teams_url_serves_prefect_with_its_async_driver_and_leaves_mlflow_on_sqlite():
    component, prefect, mlflow = stack._databases("postgresql://u:p@db.example:5432/prefect", None)
    assert component is None and mlflow is None
    assert prefect == "postgresql+asyncpg://u:p@db.example:5432/prefect"


def test_mlflow_db_gets_the_synchronous_driver():
    _, prefect, mlflow = stack._databases("sqlite", "postgresql://u:p@db.example:5432/mlflow")
    assert prefect is None and mlflow == "postgresql+psycopg2://u:p@db.example:5432/mlflow"


@pytest.mark.parametrize("db, mlflow_db, option", [("mysql://u:p@h/db", None, "--db"),
                                                    ("sqlite", "sqlite:///x.db", "--mlflow-db"),
                                                    ("sqlite", "postgresql+asyncpg://u:p@h/m", "--mlflow-db")])
def test_anything_else_is_refused_with_the_choices(db, mlflow_db, option):
    with pytest.raises(UserFacingError) as refused:
        stack._databases(db, mlflow_db)
    assert option in str(refused.value) and "postgresql://USER:PASSWORD@HOST:PORT/DB" in refused.value.hint
