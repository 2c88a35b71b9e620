from billing.currency import Money
from billing.invoice import Invoice, InvoiceLine, next_invoice_number


def test_total_adds_german_vat():
    invoice = Invoice("cus_7", [InvoiceLine("MUG-01", 2, Money(1000, "EUR"))], country="DE")
    assert invoice.total() == Money(2380, "EUR")


def test_invoice_numbers_are_zero_padded():
    assert next_invoice_number(2024, 41) == "INV-2024-000042"
