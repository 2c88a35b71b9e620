import pytest

from billing.currency import Money
from billing.tax import compute_tax


def test_reduced_rate_france():
    assert compute_tax(Money(1000, "EUR"), "FR", reduced=True) == Money(55, "EUR")


def test_unknown_country_is_an_error():
    with pytest.raises(ValueError, match="no VAT rate"):
        compute_tax(Money(1000, "EUR"), "XX")
