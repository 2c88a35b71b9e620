import pytest

from billing.currency import Money
from billing.ledger import Ledger


@pytest.fixture
def ledger() -> Ledger:
    book = Ledger()
    book.record_payment("cus_7", Money(5000, "EUR"), "ch_1")
    return book
