"""CI gate: a policy file and a results file give a verdict with a reason per rule."""

from codegold.gate.policy import Baseline, Policy, Rule, load_policy
from codegold.gate.verdict import decide, run_gate
from codegold.model.verdict import Check, Verdict

__all__ = ["Baseline", "Check", "Policy", "Rule", "Verdict", "decide", "load_policy", "run_gate"]
