"""The gate workflow: the one verdict of a policy on a scored run, as ``codegold gate``,
``codegold report --gate-policy`` and the demo reach it."""

from __future__ import annotations

from dataclasses import dataclass

from codegold.gate import Verdict, load_policy, run_gate
from codegold.model import RunResult, load_results


@dataclass(frozen=True)
class GateRequest:
    results: str | RunResult  # a results.json path, or a run scored in this process
    policy: str  # the policy file
    baseline: str | None = None  # overrides the policy's own baseline
    max_new_failures: int | None = None


def decide(request: GateRequest) -> Verdict:
    """The policy's verdict on the results (a baseline's new failures included)."""
    policy = load_policy(request.policy)
    result = (load_results(request.results) if isinstance(request.results, str)
              else request.results)
    return run_gate(result, policy, baseline_path=request.baseline,
                    max_new_failures=request.max_new_failures, policy_path=request.policy)
