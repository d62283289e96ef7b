"""The Prefect deployments a team registers (`automl-agent deploy`): the run, nightly benchmark, drift watch and
training deployments and their schedules."""
