"""A token's first answer, given again to a retry of the request that made it.

`token_keys` holds one row per Idempotency-Key that came with a request making a device
token (a new player, another device, a device linked by a code): the key's HMAC under the
server's key in its scope, the request's hash, the token made and the answer without the
token. The token itself is not stored, only its hash (device_tokens): a retry with the
same key derives it again from the key and the server's key (service/players/tokens.py). Rows are purged with
the other idempotency keys.

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "token_keys",
        sa.Column("key_hash", sa.LargeBinary(), primary_key=True),
        sa.Column("request_hash", sa.Text(), nullable=False),
        sa.Column(
            "token_id", sa.Uuid(), sa.ForeignKey("device_tokens.id"), nullable=False
        ),
        sa.Column("response", postgresql.JSONB(), nullable=False),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), nullable=False,
            server_default=sa.text("now()"),
        ),
    )
    op.create_index("token_keys_created", "token_keys", ["created_at"])


def downgrade() -> None:
    op.drop_index("token_keys_created", table_name="token_keys")
    op.drop_table("token_keys")
