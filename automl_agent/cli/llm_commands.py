"""`automl-agent llm check --llm SPEC`: one small structured request to an LLM backend, and what it showed (the key,
the model, the response format the server takes, token accounting, parameters it refused)."""

from __future__ import annotations

import argparse

from .command_groups import action_group

EXIT_OK, EXIT_FAILED = 0, 1
DEFAULT_SPEC = "openai:gpt-4o-mini"


def add_parser(sub, common: list[argparse.ArgumentParser]) -> None:
    action = action_group(
        sub, "llm", common, help="try an LLM backend before a run spends a budget on it",
        description="`llm check` sends one small structured request, as a run's first step does, and reports what "
                    "works. OpenAI-compatible servers: OPENAI_BASE_URL and OPENAI_API_KEY; Azure: "
                    "AZURE_OPENAI_ENDPOINT, AZURE_OPENAI_API_KEY and OPENAI_API_VERSION.")
    check = action.add_parser("check", help="one structured request: auth, model, response format, token accounting")
    check.add_argument("--llm", default=None,
                       help="openai:MODEL, azure:DEPLOYMENT or gguf:PATH (default: $AUTOML_AGENT_LLM, else "
                            "openai:gpt-4o-mini)")
    check.add_argument("--reasoning-effort", choices=["minimal", "low", "medium", "high"], default=None)
    check.add_argument("--json", action="store_true", help="the report as JSON")


def _brain(spec: str, reasoning_effort: str | None):
    from ..agents.brains.factory import LLM_KINDS, remote_brain, validate_spec
    from ..errors import UserFacingError

    validate_spec(spec)
    kind, _, arg = spec.partition(":")
    if kind not in LLM_KINDS:
        raise UserFacingError(f"`llm check` tries an LLM backend; {spec!r} is not one",
                              "Give --llm openai:MODEL, azure:DEPLOYMENT or gguf:PATH.")
    if kind == "gguf":  # llama.cpp's own log goes to a file, not over the report
        import tempfile
        from pathlib import Path

        from ..agents.brains.factory import make_brain

        return make_brain(spec, log_dir=Path(tempfile.mkdtemp(prefix="automl-agent-llm-check-"))).primary
    return remote_brain(spec, reasoning_effort, preflight=False)


def render(report) -> str:
    def mark(ok: bool | None) -> str:
        return "not known" if ok is None else "yes" if ok else "NO"

    rows = [("backend", f"{report.backend} at {report.base_url}"),
            ("reachable", mark(report.reachable)), ("key accepted", mark(report.authorised)),
            ("model found", mark(report.model_found) + (f" (served as {report.served_model})" if report.served_model else "")),
            ("reasoning model", "yes" if report.reasoning_model else "no (by its name and the served model's)")]
    if report.ok:
        rows += [("response format", report.response_format),
                 ("valid answer", mark(report.answered)),
                 ("token accounting", (f"yes: {report.prompt_tokens} prompt, {report.completion_tokens} completion, "
                                       f"{report.reasoning_tokens} reasoning") if report.usage_reported else "NO (cost unknown)")]
    rows += [("refused, then adapted", note) for note in report.learned]
    rows.append(("seconds", f"{report.seconds:.2f}"))
    lines = [f"  {name + ':':<24}{value}" for name, value in rows]
    verdict = "OK: runs can use this brain" if report.ok else f"FAILED: {report.error}\n  -> {report.hint}"
    return "\n".join([*lines, verdict])


def cmd_llm(args: argparse.Namespace) -> int:
    from ..config import current_settings

    if args.llm is None:
        configured = current_settings().llm
        args.llm = DEFAULT_SPEC if configured is None else configured
    brain = _brain(args.llm, args.reasoning_effort)
    try:
        report = brain.check()
    finally:
        getattr(brain, "close", lambda: None)()
    print(report.model_dump_json(indent=2) if args.json else render(report))
    return EXIT_OK if report.ok else EXIT_FAILED
