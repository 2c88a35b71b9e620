"""Append-only ledger of payments and refunds per customer."""

from __future__ import annotations

from dataclasses import dataclass, field

from billing.currency import Money


@dataclass(frozen=True)
class Entry:
    customer_id: str
    amount: Money
    reference: str


@dataclass
class Ledger:
    entries: list[Entry] = field(default_factory=list)

    def record_payment(self, customer_id: str, amount: Money, reference: str) -> Entry:
        entry = Entry(customer_id, amount, reference)
        self.entries.append(entry)
        return entry

    def record_refund(self, customer_id: str, amount: Money, reference: str) -> Entry:
        return self.record_payment(customer_id, amount.times(-1), reference)

    def balance(self, customer_id: str, currency: str = "EUR") -> Money:
        total = Money(0, currency)
        for entry in self.entries:
            if entry.customer_id == customer_id:
                total = total + entry.amount
        return total
