"""The platform a run stands on: the Prefect server and the team stack, the processes they start, the user's
home folder, the MLflow tracking and the PostgreSQL database."""
