"""docs/operations.md's tables hold what the code holds: its settings are the service's
(service/base/settings.py), and its table of the database's functions names the file of
migrations/sql/ that holds each one's current body (the last that defines it). A new
setting or a new body of a function fails here until the page says so (a newcomer found
four functions listed in files that no longer held their bodies)."""

from __future__ import annotations

import re
from pathlib import Path

from service.base.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
OPERATIONS = ROOT / "docs" / "operations.md"
SQL = ROOT / "migrations" / "sql"
DEFINED = re.compile(r"CREATE (?:OR REPLACE )?FUNCTION\s+([a-z_]+)", re.IGNORECASE)


def first_cells() -> list[tuple[str, str]]:
    """The first and second cells of every row of the page's tables."""
    rows = []
    for line in OPERATIONS.read_text().splitlines():
        cells = line.split("|")
        if line.startswith("| `") and len(cells) > 3:
            rows.append((cells[1], cells[2]))
    return rows


def test_the_settings_table_lists_every_setting_and_no_other() -> None:
    listed = {name for first, _ in first_cells()
              for name in re.findall(r"`([A-Z][A-Z0-9_]*)`", first)}  # fmt: skip
    settings = {field.upper() for field in Settings.model_fields}
    assert settings - listed == set(), "settings the page does not list"
    assert listed - settings == set(), "names the page lists that are no setting"


def current_bodies() -> dict[str, str]:
    """Each function of migrations/sql/: the last file (by version) that defines it."""
    bodies = {}
    for path in sorted(SQL.glob("*.sql")):
        for name in DEFINED.findall(path.read_text()):
            bodies[name] = path.name
    return bodies


def test_the_table_of_functions_names_the_file_of_each_ones_current_body() -> None:
    listed = {}
    for first, second in first_cells():
        file = re.fullmatch(r"\s*`(\d{4}_[a-z_]+\.sql)`\s*", second)
        if file is not None:
            for name in re.findall(r"`([a-z_]+)`", first):
                listed[name] = file.group(1)
    bodies = current_bodies()
    assert len(bodies) > 10, bodies  # (the pattern still finds the functions)
    assert listed == bodies
