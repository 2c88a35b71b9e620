"""What ``codegold diagnose -o DIR`` writes: the records live in
:mod:`codegold.model.diagnoses` (a file format reports read too); re-exported here."""

from codegold.model.diagnoses import (
    DIAGNOSIS_FORMAT,
    Diagnosis,
    DiagnosisSet,
    EvidenceBundle,
    Excerpt,
    InventoryView,
    dump_json,
)

__all__ = ["DIAGNOSIS_FORMAT", "Diagnosis", "DiagnosisSet", "EvidenceBundle", "Excerpt",
           "InventoryView", "dump_json"]
