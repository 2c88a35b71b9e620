"""Refunds: never more than was paid, always recorded in the ledger."""

from __future__ import annotations

from billing.currency import Money
from billing.ledger import Ledger


class RefundError(Exception):
    """A refund that would exceed the customer's paid balance."""


def issue_refund(ledger: Ledger, customer_id: str, amount: Money, reference: str) -> None:
    paid = ledger.balance(customer_id, amount.currency)
    if amount.cents > paid.cents:
        raise RefundError(
            f"refund of {amount.cents} exceeds paid balance {paid.cents} for {customer_id}"
        )
    ledger.record_refund(customer_id, amount, reference)
