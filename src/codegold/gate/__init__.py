"""CI gate: a policy file and a results file give a verdict with a reason per rule."""

from codegold.gate.policy import Policy, Rule, load_policy
from codegold.gate.verdict import Check, Verdict, decide

__all__ = ["Check", "Policy", "Rule", "Verdict", "decide", "load_policy"]
