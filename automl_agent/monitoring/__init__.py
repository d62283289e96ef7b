"""Watching a served model: what it was asked and answered (a sampled, capped log kept by the service), compared
with what it was trained on (a reference sample shipped in the bento), by `automl-agent monitor`."""
