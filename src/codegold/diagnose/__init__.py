"""Diagnose failing cases: the first broken boundary, its owner, and an evidence bundle.

Reads :mod:`codegold.model`, the index (``codegold.index``) and the scorer's matching rule
(``codegold.evaluate.match``). Output format: see :mod:`codegold.diagnose.records`.
"""

from codegold.diagnose.causes import CAUSES, Cause
from codegold.diagnose.engine import (
    Diagnosed,
    bundle_name,
    diagnose_run,
    load_diagnoses,
    write_diagnosis_dir,
)
from codegold.diagnose.owners import Owners, load_owners
from codegold.diagnose.records import Diagnosis, DiagnosisSet, EvidenceBundle
from codegold.diagnose.sources import IndexView, RepoView

__all__ = [
    "CAUSES",
    "Cause",
    "Diagnosed",
    "Diagnosis",
    "DiagnosisSet",
    "EvidenceBundle",
    "IndexView",
    "Owners",
    "RepoView",
    "bundle_name",
    "diagnose_run",
    "load_diagnoses",
    "load_owners",
    "write_diagnosis_dir",
]
