"""VAT by country of delivery."""

from __future__ import annotations

from dataclasses import dataclass

from billing.currency import Money


@dataclass(frozen=True)
class TaxRate:
    country: str
    standard: float
    reduced: float


RATES = {
    "DE": TaxRate("DE", 0.19, 0.07),
    "FR": TaxRate("FR", 0.20, 0.055),
    "NL": TaxRate("NL", 0.21, 0.09),
    "AT": TaxRate("AT", 0.20, 0.10),
}


def compute_tax(net: Money, country: str, *, reduced: bool = False) -> Money:
    """VAT due on a net amount; unknown countries are a configuration error."""
    try:
        rate = RATES[country]
    except KeyError:
        raise ValueError(f"no VAT rate configured for {country!r}") from None
    return net.times(rate.reduced if reduced else rate.standard)
