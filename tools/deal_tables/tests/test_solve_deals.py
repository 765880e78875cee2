"""solve_deals.py's table writer (the service reads what it writes) and a short run of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.deals.table import DealTable
from tools.deal_tables.solve_deals import main, read_progress, write_table


def test_a_table_round_trips_through_the_services_reader(tmp_path: Path) -> None:
    verdicts = {d: "winnable" for d in range(1, 301)}
    verdicts.update({7: "unwinnable", 250: "unwinnable", 19: "unknown"})
    path = write_table("bakers_game", verdicts, "a test", tmp_path)
    text = path.read_text()
    assert "checked 1-300" in text and "unsolvable 7 250" in text and "unknown 19" in text
    assert "# solver: a test" in text and "# 297 solvable, 2 unsolvable, 1 unknown" in text
    loaded = DealTable.load("bakers_game", tmp_path)
    assert loaded.checked == 300 and loaded.solvable_count == 297
    assert loaded.unsolvable == {7, 250} and loaded.unknown == {19}
    with pytest.raises(ValueError):
        write_table("bakers_game", {1: "winnable", 3: "winnable"}, "a gap", tmp_path)


def test_long_lists_wrap(tmp_path: Path) -> None:
    verdicts = {d: ("unwinnable" if d % 3 == 0 else "winnable") for d in range(1, 1001)}
    path = write_table("freecell", verdicts, "wrapped", tmp_path)
    assert max(len(line) for line in path.read_text().splitlines()) <= 100
    assert DealTable.load("freecell", tmp_path).unsolvable == {d for d in verdicts if d % 3 == 0}


def test_a_run_writes_the_table_and_the_next_one_goes_on_from_its_progress(
    tmp_path: Path,
) -> None:
    progress = tmp_path / "progress.tsv"
    budget = ["--ours", "--states", "20000", "--seconds", "5", "--minutes", "1"]
    common = ["--table-dir", str(tmp_path), "--progress", str(progress), *budget]
    main(["freecell", "--last", "3", *common])
    assert DealTable.load("freecell", tmp_path).checked == 3
    main(["freecell", "--last", "5", *common])
    lines = progress.read_text().splitlines()
    assert [line.split("\t")[0] for line in lines] == ["1", "2", "3", "4", "5"]  # none twice
    done, how = read_progress(progress)
    table = DealTable.load("freecell", tmp_path)
    assert table.checked == 5 and table.solvable_count == 5 == len(done)
    assert set(how.values()) == {"ours"}
    assert "engine.solver for 5 deals" in (tmp_path / "freecell.txt").read_text()
