"""LLM tokens per run, by stage, for one tabular task with P plans, and what they would cost at GPT-4o's prices.

The counts are real tokens from a real model (default: the tiny gemma3-270m through llama.cpp, offline); prompt
tokens depend on the prompts and the data, not much on the model, so they estimate a GPT-4o run's bill.
Usage: python benchmarks/llm_tokens.py [--llm gguf:gemma3-270m] [--plans 3] [--budget 20] [--out benchmarks/results]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from automl_agent.agents.brains.pricing import PRICES_PER_MTOK, REFERENCE_MODEL  # noqa: E402

PAPER_COST_USD = 0.30  # the paper's reported average cost per run with GPT-4o
INSTRUCTION = "Build a model to predict customer churn. F1 should be at least 0.55 and one prediction must take under 10 ms."
STAGES = {  # agent step -> the flow stage it belongs to
    "manager.verify_request": "INIT request verification", "prompt.parse_instruction": "INIT parsing",
    "manager.make_plans": "PLAN", "data.decompose": "EXECUTE data agent", "data.analyse": "EXECUTE data agent",
    "model.decompose": "EXECUTE model agent", "model.propose": "EXECUTE model agent",
    "manager.verify_execution": "EXECUTE verification", "operation.write_script": "IMPLEMENT code",
    "manager.verify_implementation": "IMPLEMENT verification",
}


def full_script_tokens(record: dict, workdir: Path) -> int | None:
    """Tokens of the delivered script written out whole as the LLM reads it (JSON-escaped), at the code step's own
    measured tokens-per-character of its prompt."""
    from automl_agent.agents.brains.llm import schema_text
    from automl_agent.agents.contracts import GeneratedScript
    from automl_agent.agents.operation_agent import prompt_view

    code = record["llm"]["by_step"].get("operation.write_script")
    prompts = sorted(workdir.glob("mlartifacts/*/artifacts/agents/*operation.write_script.prompt.md"))
    script = Path(record.get("script_path") or "")
    if not code or not prompts or not script.is_file():
        return None
    first_prompt_tokens = (code["prompt_tokens"] - code["repair_prompt_tokens"]) / code["calls"]
    per_char = first_prompt_tokens / (len(prompts[0].read_text()) + len(schema_text(GeneratedScript)))
    return round(per_char * len(json.dumps({"source": prompt_view(script.read_text())})))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--llm", default="gguf:gemma3-270m")
    parser.add_argument("--plans", type=int, default=3)
    parser.add_argument("--budget", type=float, default=20)
    parser.add_argument("--code-attempts", type=int, default=2)
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results"))
    parser.add_argument("--keep", metavar="DIR", help="run in this workspace and keep it (prompts and answers are in "
                                                     "its mlartifacts/*/artifacts/agents)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        tmp = args.keep or scratch
        proc = subprocess.run([sys.executable, "-m", "automl_agent.cli.app", "--workdir", tmp, "run", INSTRUCTION, "--data",
                               str(ROOT / "automl_agent" / "datasets" / "churn.csv"), "--llm", args.llm,
                               "--plans", str(args.plans), "--budget", str(args.budget), "--prefect", "ephemeral",
                               "--code-attempts", str(args.code_attempts), "--json", "--quiet"],
                              capture_output=True, text=True)
        if not proc.stdout.strip().startswith("{"):
            print(proc.stderr[-3000:], file=sys.stderr)
            return 1
        record = json.loads(proc.stdout)
        script_tokens = full_script_tokens(record, Path(tmp))
    price_in, price_out = PRICES_PER_MTOK[REFERENCE_MODEL]
    rows: dict[str, dict[str, float]] = {}
    keys = ("calls", "prompt_tokens", "completion_tokens", "repair_prompt_tokens", "repair_completion_tokens")
    for step, usage in record["llm"]["by_step"].items():
        row = rows.setdefault(STAGES.get(step, step), dict.fromkeys(keys, 0))
        for key in keys:
            row[key] += usage.get(key, 0)
    llm = record["llm"]
    lines = [f"LLM tokens per run: {args.llm}, P={args.plans}, churn (status {record['status']}, "
             f"{llm['calls']} calls, {len(llm['offline_fallbacks'])} steps answered by the offline rules)",
             "", "| stage | calls | prompt tokens | completion tokens | of which repair rounds (prompt / completion) "
             "| at GPT-4o prices (USD) | first tries only (USD) |", "|---|---|---|---|---|---|---|"]
    for stage, row in rows.items():
        cost = (row["prompt_tokens"] * price_in + row["completion_tokens"] * price_out) / 1e6
        first = ((row["prompt_tokens"] - row["repair_prompt_tokens"]) * price_in
                 + (row["completion_tokens"] - row["repair_completion_tokens"]) * price_out) / 1e6
        lines.append(f"| {stage} | {row['calls']} | {row['prompt_tokens']} | {row['completion_tokens']} | "
                     f"{row['repair_prompt_tokens']} / {row['repair_completion_tokens']} | {cost:.4f} | {first:.4f} |")
    total, first_total = llm["cost_at_reference_usd"], llm["first_try_cost_at_reference_usd"]
    lines.append(f"| **total** | {llm['calls']} | {llm['prompt_tokens']} | {llm['completion_tokens']} | "
                 f"{llm['repair_prompt_tokens']} / {llm['repair_completion_tokens']} | **{total:.4f}** | **{first_total:.4f}** |")
    lines += ["", f"Paper (GPT-4o): about ${PAPER_COST_USD:.2f} per run. This run at GPT-4o prices: ${total:.4f} "
                  f"= {total / PAPER_COST_USD:.0%} of it; without the repair rounds the tiny model needed (what a model "
                  f"that answers in valid JSON at once pays): ${first_total:.4f} = {first_total / PAPER_COST_USD:.0%} "
                  f"(target: at most 60 %)."]
    if script_tokens:
        code = record["llm"]["by_step"]["operation.write_script"]
        first_completion = code["completion_tokens"] - code["repair_completion_tokens"]
        projected = first_total + (code["calls"] * script_tokens - first_completion) * price_out / 1e6
        lines += ["", f"The tiny model's code answers are short. A model that writes the whole script back emits about "
                      f"{script_tokens} completion tokens per code attempt; with {code['calls']} such attempt(s) and "
                      f"every other step valid at the first try, this run would cost ${projected:.4f} = "
                      f"{projected / PAPER_COST_USD:.0%} of the paper's (an upper bound: the edits format pays only "
                      f"for the changed lines)."]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "llm_tokens.json").write_text(json.dumps({"llm": record["llm"], "status": record["status"],
                                                     "timings": record["timings"]}, indent=2))
    (out / "llm_tokens.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
