import json

from billing.events import parse_event


def test_parse_event_reads_amount():
    body = json.dumps({"id": "evt_1", "data": {"customerId": "cus_7", "amountCents": 2599}})
    event = parse_event(body)
    assert event.amount.cents == 2599
