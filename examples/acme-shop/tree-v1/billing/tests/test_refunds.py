import pytest

from billing.currency import Money
from billing.refunds import RefundError, issue_refund


def test_refund_cannot_exceed_payment(ledger):
    with pytest.raises(RefundError, match="exceeds paid balance"):
        issue_refund(ledger, "cus_7", Money(9000, "EUR"), "rf_2")


def test_refund_is_recorded(ledger):
    issue_refund(ledger, "cus_7", Money(1000, "EUR"), "rf_3")
    assert ledger.entries[-1].amount == Money(-1000, "EUR")
