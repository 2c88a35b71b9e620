"""Invoices: lines, totals with tax, and numbering."""

from __future__ import annotations

from dataclasses import dataclass, field

from billing.currency import Money
from billing.tax import compute_tax


@dataclass(frozen=True)
class InvoiceLine:
    sku: str
    quantity: int
    unit_price: Money

    def net(self) -> Money:
        return self.unit_price.times(self.quantity)


@dataclass
class Invoice:
    customer_id: str
    lines: list[InvoiceLine] = field(default_factory=list)
    country: str = "DE"
    number: str | None = None

    def net_total(self) -> Money:
        total = Money(0, self.lines[0].unit_price.currency)
        for line in self.lines:
            total = total + line.net()
        return total

    def total(self) -> Money:
        """Gross total: net plus VAT for the delivery country."""
        net = self.net_total()
        return net + compute_tax(net, self.country)


def next_invoice_number(year: int, last_sequence: int) -> str:
    return f"INV-{year}-{last_sequence + 1:06d}"
