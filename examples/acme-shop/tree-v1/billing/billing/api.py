"""HTTP endpoints of the billing service."""

from __future__ import annotations

from billing.currency import Money
from billing.events import apply_event, parse_event
from billing.invoice import Invoice
from billing.ledger import Ledger
from billing.refunds import RefundError, issue_refund

LEDGER = Ledger()


def post_event(body: str) -> tuple[int, dict[str, str]]:
    apply_event(LEDGER, parse_event(body))
    return 202, {}


def post_refund(customer_id: str, cents: int, reference: str) -> tuple[int, dict[str, str]]:
    try:
        issue_refund(LEDGER, customer_id, Money(cents, "EUR"), reference)
    except RefundError as err:
        return 409, {"error": str(err)}
    return 201, {}


def get_invoice_total(invoice: Invoice) -> dict[str, int]:
    return {"total_cents": invoice.total().cents}
