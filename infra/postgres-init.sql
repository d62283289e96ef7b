-- Prefect uses the database named by POSTGRES_DB; MLflow gets its own.
CREATE DATABASE mlflow;
