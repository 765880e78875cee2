"""The schema as SQLAlchemy Core tables, as the migrations leave it (they are written by
hand; tests/service/database/test_schema.py holds this module to them).

The event log (`game_events`) is the truth. `games` is a projection of it, written in the
same transaction as the events, for queries only.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    PrimaryKeyConstraint,
    Table,
    Text,
    Uuid,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB

metadata = MetaData()

players = Table(
    "players",
    metadata,
    Column("id", Uuid, primary_key=True),
    Column("name", Text, nullable=False),
    # no longer read or written (migration 0005): tokens are in device_tokens
    Column("token_hash", LargeBinary, nullable=True, unique=True),
    Column("created_at", DateTime(timezone=True), nullable=False, server_default=text("now()")),
    # what the name looks like (migration 0008, service/players/names.py), unique: no
    # player can pass for another; NULL for the younger of lookalikes older than the rule
    # (made so by migrations: a new row without its keys is refused, migration 0026)
    Column("name_key", Text, nullable=True),
    Index("players_name_key", "name_key", unique=True),
    # what the name looks like as written, case folded after (migration 0017), unique too
    Column("shape_key", Text, nullable=True),
    Index("players_shape_key", "shape_key", unique=True),
    # what its characters look like as typed, case folded after (migration 0022), unique
    Column("glyph_key", Text, nullable=True),
    Index("players_glyph_key", "glyph_key", unique=True),
)

# A player's tokens, one a device; only their hashes. A signed-out token keeps its row,
# with revoked_at set, and is refused from then on.
device_tokens = Table(
    "device_tokens",
    metadata,
    Column("id", Uuid, primary_key=True),
    Column("player_id", Uuid, ForeignKey("players.id"), nullable=False),
    Column("token_hash", LargeBinary, nullable=False, unique=True),
    Column("device", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False, server_default=text("now()")),
    Column("last_used_at", DateTime(timezone=True), nullable=True),
    Column("revoked_at", DateTime(timezone=True), nullable=True),
    Index("device_tokens_player", "player_id", "created_at"),
)

# Codes that link a new device to a player: their keyed hashes (HMAC-SHA256, migration
# 0008), valid until expires_at, once, while the token that made them (token_id) is in use.
link_codes = Table(
    "link_codes",
    metadata,
    Column("code_hash", LargeBinary, primary_key=True),
    Column("player_id", Uuid, ForeignKey("players.id"), nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    Column("used_at", DateTime(timezone=True), nullable=True),
    Column("token_id", Uuid, ForeignKey("device_tokens.id"), nullable=False),
    Index("link_codes_expires", "expires_at"),
    Index("link_codes_token", "token_id"),
)

# the Idempotency-Keys of requests that made a device token (migration 0024): a retry gets
# the first answer, its token derived again (service/players/issued.py), never stored
token_keys = Table(
    "token_keys",
    metadata,
    Column("key_hash", LargeBinary, primary_key=True),
    Column("request_hash", Text, nullable=False),
    Column("token_id", Uuid, ForeignKey("device_tokens.id"), nullable=False),
    Column("response", JSONB, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False, server_default=text("now()")),
    Index("token_keys_created", "created_at"),
)

# link-code tries per client address: their times in the last minute, oldest first
link_tries = Table(
    "link_tries",
    metadata,
    Column("address", Text, primary_key=True),
    Column("tries", ARRAY(DateTime(timezone=True)), nullable=False),
)

games = Table(
    "games",
    metadata,
    Column("id", Uuid, primary_key=True),
    Column("player_id", Uuid, ForeignKey("players.id"), nullable=False),
    Column("variant", Text, nullable=False),
    Column("deal", BigInteger, nullable=False),
    Column("autoplay", Boolean, nullable=False),
    Column("status", Text, nullable=False),
    Column("version", Integer, nullable=False),
    Column("moves", Integer, nullable=False),
    Column("undos", Integer, nullable=False),
    Column("foundation_cards", Integer, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("hints", Integer, nullable=False, server_default=text("0")),
    # a hint gave something away (migration 0010): the engine's GameRecord.assisted
    Column("assisted", Boolean, nullable=False, server_default=text("false")),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    Column("finished_at", DateTime(timezone=True), nullable=True),
    Column("elapsed_ms", BigInteger, nullable=True),
    # the race the game is played in (migration 0006), none for a game of its own
    Column("race_id", Uuid, ForeignKey("races.id"), nullable=True),
    # a win played at a hand's pace, as its boards judged it (record_win, migration 0033);
    # null for a game not won
    Column("verified", Boolean, nullable=True),
    CheckConstraint(
        "status IN ('playing', 'won', 'blocked', 'abandoned')", name="games_status_check"
    ),
    Index("games_player_created", "player_id", "created_at"),
    Index("games_race", "race_id", "player_id"),
    # a player's games by when they ended (migration 0013): their recent results
    Index("games_player_finished", "player_id", "finished_at",
          postgresql_where=text("finished_at IS NOT NULL")),
    # a player's won games by time (migration 0013): their median
    Index("games_player_won_times", "player_id", "variant", "elapsed_ms",
          postgresql_where=text("status = 'won'")),
)

game_events = Table(
    "game_events",
    metadata,
    # no foreign key to games: the log is the truth, games a projection rebuilt from it
    Column("game_id", Uuid, nullable=False),
    Column("seq", Integer, nullable=False),
    Column("type", Text, nullable=False),
    Column("data", JSONB, nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("game_id", "seq", name="game_events_pkey"),
    CheckConstraint("seq >= 1", name="game_events_seq_check"),
)

idempotency_keys = Table(
    "idempotency_keys",
    metadata,
    Column("player_id", Uuid, nullable=False),
    Column("key", Text, nullable=False),
    Column("request_hash", Text, nullable=False),
    Column("status", Integer, nullable=False),
    Column("response", JSONB, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("player_id", "key", name="idempotency_keys_pkey"),
    Index("idempotency_keys_created", "created_at"),
)

# Each player's best won game of each deal on each board, written by record_win in the
# transaction of the winning move (migrations/sql/0004_boards.sql says which boards).
leaderboard_entries = Table(
    "leaderboard_entries",
    metadata,
    Column("variant", Text, nullable=False),
    Column("deal", BigInteger, nullable=False),
    Column("player_id", Uuid, ForeignKey("players.id"), nullable=False),
    Column("game_id", Uuid, ForeignKey("games.id"), nullable=False),
    Column("elapsed_ms", BigInteger, nullable=False),
    Column("moves", Integer, nullable=False),
    Column("undos", Integer, nullable=False),
    Column("finished_at", DateTime(timezone=True), nullable=False),
    Column("board", Text, nullable=False),
    Column("assisted", Boolean, nullable=False),
    Column("verified", Boolean, nullable=False),
    # the player's name, copied by a trigger on insert (migration 0014): pages join nothing
    Column("player_name", Text, nullable=False),
    PrimaryKeyConstraint(
        "variant", "deal", "board", "player_id", name="leaderboard_entries_pkey"
    ),
    CheckConstraint(
        "board IN ('default', 'no_undo', 'assisted', 'assisted_no_undo')",
        name="leaderboard_entries_board_check",
    ),
    # the boards' order, with the rest of an entry: a page is an index-only scan (0014)
    Index(
        "leaderboard_entries_board",
        "variant", "deal", "board", "elapsed_ms", "moves", "finished_at", "player_id",
        postgresql_include=["game_id", "undos", "assisted", "verified", "player_name"],
    ),
    Index("leaderboard_entries_player", "player_id", "board", "variant", "deal"),
)

# A player's figures per game and winning times by the second (migration 0013), kept by
# a trigger on games: service/players/stats.py
player_stats = Table(
    "player_stats",
    metadata,
    Column("player_id", Uuid, ForeignKey("players.id"), nullable=False),
    Column("variant", Text, nullable=False),
    Column("played", Integer, nullable=False),
    Column("won", Integer, nullable=False),
    Column("won_assisted", Integer, nullable=False),
    Column("streak", Integer, nullable=False),
    Column("best_streak", Integer, nullable=False),
    Column("best_ms", BigInteger, nullable=True),
    PrimaryKeyConstraint("player_id", "variant", name="player_stats_pkey"),
)
player_time_bins = Table(
    "player_time_bins",
    metadata,
    Column("player_id", Uuid, nullable=False),
    Column("variant", Text, nullable=False),
    Column("bin", BigInteger, nullable=False),
    Column("wins", Integer, nullable=False),
    PrimaryKeyConstraint("player_id", "variant", "bin", name="player_time_bins_pkey"),
)

# The players a player follows (migration 0012): service/players/friends.py
friends = Table(
    "friends",
    metadata,
    Column("player_id", Uuid, ForeignKey("players.id"), nullable=False),
    Column("friend_id", Uuid, ForeignKey("players.id"), nullable=False),
    Column(
        "created_at", DateTime(timezone=True), nullable=False,
        server_default=text("clock_timestamp()"),
    ),
    PrimaryKeyConstraint("player_id", "friend_id", name="friends_pkey"),
)

# A board's entries by bin of time (migration 0011): `entries` of the board's entries have
# elapsed_ms / 10000 = `bin`, kept by a trigger on leaderboard_entries; ranks read them
# (service/boards/board.py)
board_bins = Table(
    "board_bins",
    metadata,
    Column("variant", Text, nullable=False),
    Column("deal", BigInteger, nullable=False),
    Column("board", Text, nullable=False),
    Column("bin", BigInteger, nullable=False),
    Column("entries", Integer, nullable=False),
    PrimaryKeyConstraint("variant", "deal", "board", "bin", name="board_bins_pkey"),
)

# Races (migration 0006): several players, one deal, one clock. `deal` stays unshown until
# the race starts (NULL until then for a random deal); `version` is the seq of the last
# event of the race's stream (race_events), taken by an UPDATE of this row.
races = Table(
    "races",
    metadata,
    Column("id", Uuid, primary_key=True),
    Column("creator_id", Uuid, ForeignKey("players.id"), nullable=False),
    Column("variant", Text, nullable=False),
    Column("deal", BigInteger, nullable=True),
    Column("autoplay", Boolean, nullable=False),
    Column("status", Text, nullable=False),
    Column("max_players", Integer, nullable=False),
    Column("version", Integer, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("starts_at", DateTime(timezone=True), nullable=False),
    Column("ends_at", DateTime(timezone=True), nullable=False),
    Column("started_at", DateTime(timezone=True), nullable=True),
    Column("ended_at", DateTime(timezone=True), nullable=True),
    CheckConstraint("status IN ('open', 'running', 'over')", name="races_status_check"),
    Index("races_due", "status", "starts_at", "ends_at"),
)

race_players = Table(
    "race_players",
    metadata,
    Column("race_id", Uuid, ForeignKey("races.id"), nullable=False),
    Column("player_id", Uuid, ForeignKey("players.id"), nullable=False),
    Column("joined_at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("race_id", "player_id", name="race_players_pkey"),
)

# A race's own log, as game_events is a game's.
race_events = Table(
    "race_events",
    metadata,
    Column("race_id", Uuid, nullable=False),
    Column("seq", Integer, nullable=False),
    Column("type", Text, nullable=False),
    Column("data", JSONB, nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("race_id", "seq", name="race_events_pkey"),
    CheckConstraint("seq >= 1", name="race_events_seq_check"),
)
