"""create invoices and ledger tables

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None


def upgrade() -> None:
    op.create_table(
        "invoices",
        sa.Column("number", sa.Text, primary_key=True),
        sa.Column("customer_id", sa.Text, nullable=False),
        sa.Column("country", sa.String(2), nullable=False),
        sa.Column("total_cents", sa.Integer, nullable=False),
    )
    op.create_table(
        "ledger_entries",
        sa.Column("id", sa.BigInteger, primary_key=True),
        sa.Column("customer_id", sa.Text, nullable=False),
        sa.Column("amount_cents", sa.Integer, nullable=False),
        sa.Column("currency", sa.String(3), nullable=False),
        sa.Column("reference", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("ledger_entries")
    op.drop_table("invoices")
