"""A new player comes with its name's keys, whoever writes it.

The keys (service/players/names.py) are what keeps one player from passing for another:
unique, so a lookalike of a taken name cannot be written. A NULL key is left only to the
younger of lookalikes older than the rule (migrations/keys.py), which migrations write; a
writer that inserts a player without keys (a version of the service from before them,
still serving beside a newer one during a deploy) would let a lookalike in. The database
now refuses such an insert.

Revision ID: 0026
Revises: 0025
Create Date: 2026-12-06
"""

from __future__ import annotations

from alembic import op

revision = "0026"
down_revision = "0025"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("""CREATE FUNCTION players_keys_given() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.name_key IS NULL OR NEW.shape_key IS NULL OR NEW.glyph_key IS NULL THEN
        RAISE EXCEPTION 'a new player needs its name''s keys (name_key, shape_key, glyph_key)'
            USING ERRCODE = 'not_null_violation';
    END IF;
    RETURN NEW;
END $$""")
    op.execute("""CREATE TRIGGER players_keys_given BEFORE INSERT ON players
    FOR EACH ROW EXECUTE FUNCTION players_keys_given()""")


def downgrade() -> None:
    op.execute("DROP TRIGGER players_keys_given ON players")
    op.execute("DROP FUNCTION players_keys_given")
