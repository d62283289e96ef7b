"""Serving a registered model: the bento (its service template, request payloads, batching, middleware, the
portable copy of the code and pinned requirements), the Gradio demo, the registry's aliases and the champion gate
that decides which version serves, and the load generator that exercises a served model."""
