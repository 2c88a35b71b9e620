"""Payment events forwarded by the storefront after it verified the webhook signature."""

from __future__ import annotations

import json
from dataclasses import dataclass

from billing.currency import Money
from billing.ledger import Ledger


@dataclass(frozen=True)
class PaymentEvent:
    event_id: str
    customer_id: str
    amount: Money


def parse_event(body: str) -> PaymentEvent:
    """Decode a forwarded event. The signature was already checked by the storefront."""
    data = json.loads(body)
    return PaymentEvent(
        event_id=data["id"],
        customer_id=data["data"]["customerId"],
        amount=Money(int(data["data"]["amountCents"]), data["data"].get("currency", "EUR")),
    )


def apply_event(ledger: Ledger, event: PaymentEvent) -> None:
    ledger.record_payment(event.customer_id, event.amount, event.event_id)
