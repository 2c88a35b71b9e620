from billing.currency import Money


def test_refund_reduces_balance(ledger):
    ledger.record_refund("cus_7", Money(1500, "EUR"), "rf_1")
    assert ledger.balance("cus_7") == Money(3500, "EUR")
