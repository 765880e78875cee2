"""A race on a deal whose games are over as dealt ends at its start.

race_start (migrations/sql/0029_races.sql) writes such games' finished_at (starts_at) and
elapsed_ms (0), as a game over at its creation has them, gives each player PlayerFinished
and ends the race at once. Games of races started before keep their logs; their rows get
the finished_at and elapsed_ms their logs say (a race's game over with its row's
finished_at NULL was over from its start: a later write would have set it), and such a
race still running (every game over, none in play) ends now: a PlayerFinished for each
player who has none, then RaceEnded. One that ended at its ends_at keeps its log as
written (no PlayerFinished, `elapsed_ms` null in RaceEnded's ranking), which `verify`
reports (docs/operations.md, "Upgrades").

Revision ID: 0029
Revises: 0028
Create Date: 2026-12-06
"""

from __future__ import annotations

from alembic import op

from service.database.migrate import run_sql, sql_statements

revision = "0029"
down_revision = "0028"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql("0029_races.sql")
    op.execute(
        "UPDATE games SET finished_at = created_at, elapsed_ms = 0"
        " WHERE race_id IS NOT NULL AND status <> 'playing' AND finished_at IS NULL"
    )
    op.execute(END_RACES_OVER)


# races still running whose every game is over (only those started on a deal over as
# dealt): each player without a PlayerFinished gets one, then RaceEnded (race_end_if_done)
END_RACES_OVER = """
DO $$
DECLARE
    v_race uuid;
    g record;
BEGIN
    FOR v_race IN
        SELECT r.id FROM races r WHERE r.status = 'running'
            AND EXISTS (SELECT 1 FROM games WHERE race_id = r.id)
            AND NOT EXISTS (SELECT 1 FROM games WHERE race_id = r.id AND status = 'playing')
        ORDER BY r.id
    LOOP
        PERFORM 1 FROM races WHERE id = v_race FOR UPDATE;
        FOR g IN
            SELECT p.player_id, m.status, m.elapsed_ms FROM race_players p
            JOIN games m ON m.race_id = p.race_id AND m.player_id = p.player_id
            WHERE p.race_id = v_race AND NOT EXISTS (
                SELECT 1 FROM race_events e WHERE e.race_id = v_race
                    AND e.type = 'PlayerFinished' AND e.data->>'player' = p.player_id::text)
            ORDER BY p.joined_at, p.player_id
        LOOP
            PERFORM race_append(v_race, 'PlayerFinished', jsonb_build_object(
                'player', g.player_id, 'status', g.status, 'elapsed_ms', g.elapsed_ms),
                clock_timestamp());
        END LOOP;
        PERFORM race_end_if_done(v_race, clock_timestamp());
    END LOOP;
END $$
"""


def downgrade() -> None:
    (start,) = [s for s in sql_statements("0006_races.sql") if "FUNCTION race_start(" in s]
    op.execute(start.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1))
