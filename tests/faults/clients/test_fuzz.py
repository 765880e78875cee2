"""schemathesis against openapi.yaml and the live service: no 5xx, no answer outside the
description.

The service runs as a real process on this test's database. Every operation it serves is
fuzzed with valid requests (as the description allows them) and with invalid ones (that
it must refuse with a 4xx), and the description's links (create a player → start a game →
its legal moves → play the first of them → undo, redo, …) drive stateful sequences. Every
answer is checked: not a server error; its status, content type, headers and body as the
description says.

Bounded for CI and the same cases every run (derandomized). FUZZ_EXAMPLES (per operation
and kind, default 20), FUZZ_SCENARIOS (stateful sequences, default 40) and FUZZ_RANDOM=1
(new cases each run) explore further; past the defaults give pytest a longer
`--timeout` than pyproject.toml's 300 s.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from service.app import create_app
from service.base.settings import Settings

from ..driver import VARIANTS, new_game
from ..helpers import ROOT, ServiceProcess

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "20"))
SCENARIOS = int(os.environ.get("FUZZ_SCENARIOS", "40"))
DERANDOMIZE = os.environ.get("FUZZ_RANDOM", "") != "1"


def served_paths() -> set[str]:
    """The service's routes, as path templates with their parameters unnamed."""
    app = create_app(Settings(database_url="postgresql://unused/unused"))
    return {_unnamed(r.canonical) for r in app.router.resources()}


def _unnamed(template: str) -> str:
    return re.sub(r"\{[^}]*\}", "{}", template)


@dataclass
class Fuzzing:
    base: str
    token: str
    player: str  # the token's player
    games: list[str]  # games of that player, one per variant
    calls: Counter[tuple[str, int]] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    operations: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    scenarios: int = 0
    links: int = 0
    restarts: int = 0  # stateful runs begun again (see fuzz)
    sequence_steps: int = 0  # requests made by the stateful sequences


def fuzz(run: Fuzzing) -> None:
    """The schemathesis run (synchronous: it calls with requests)."""
    import hypothesis
    import hypothesis.strategies as st
    import schemathesis
    import schemathesis.specs.openapi.checks as openapi_checks
    from hypothesis import HealthCheck, Phase
    from schemathesis.checks import not_a_server_error
    from schemathesis.generation import GenerationMode

    checks = [
        not_a_server_error,
        openapi_checks.status_code_conformance,
        openapi_checks.content_type_conformance,
        openapi_checks.response_headers_conformance,
        openapi_checks.response_schema_conformance,
        openapi_checks.negative_data_rejection,
    ]
    schema = schemathesis.openapi.from_path(ROOT / "openapi.yaml")
    schema.config.update(base_url=run.base)
    bearer = f"Bearer {run.token}"
    tokens = {bearer}  # ours, and those of the players made along the way
    owners: dict[str, str] = {}  # game id -> its player's Authorization
    served = served_paths()
    settings = hypothesis.settings(
        max_examples=EXAMPLES, deadline=None, database=None, derandomize=DERANDOMIZE,
        suppress_health_check=list(HealthCheck), phases=[Phase.explicit, Phase.generate],
        print_blob=False,
    )

    def call(case: Any, authenticate: bool) -> None:
        if authenticate and (case.headers or {}).get("Authorization") not in tokens:
            case.headers = {**(case.headers or {}), "Authorization": bearer}
        response = case.call()
        run.calls[(case.operation.label, response.status_code)] += 1
        if case.operation.label == "POST /v1/players" and response.status_code == 201:
            tokens.add("Bearer " + response.json()["token"])
        case.validate_response(response, checks=checks)

    def fuzz_operation(operation: Any, mode: GenerationMode, authenticate: bool,
                       ids: list[str] | None = None) -> None:
        strategy = operation.as_strategy(generation_mode=mode)
        if ids:  # the operation on games (players) that exist, with all else fuzzed
            strategy = st.sampled_from(ids).flatmap(
                lambda i: operation.as_strategy(generation_mode=mode, path_parameters={"id": i})
            )

        @settings
        @hypothesis.given(case=strategy)
        def test(case: Any) -> None:
            call(case, authenticate)

        test()

    for result in schema.get_all_operations():
        operation = result.ok()
        if _unnamed(operation.path) not in served:
            run.skipped.append(operation.label)  # described, not served yet
            continue
        run.operations.append(operation.label)
        # the web page, the meta routes and the list of games take no input to refuse:
        # valid requests only
        modes = [GenerationMode.POSITIVE]
        if operation.path.startswith("/v1/") and operation.path != "/v1/variants":
            modes.append(GenerationMode.NEGATIVE)
        for mode in modes:
            # valid requests carry our token; invalid ones what the fuzzer made (none, a
            # bad one, ...)
            try:
                fuzz_operation(operation, mode, authenticate=mode == GenerationMode.POSITIVE)
            except BaseException as exc:
                run.failures.append(f"{operation.label} ({mode.value}): {exc}")
        ids = (run.games if operation.path.startswith("/v1/games/{id}")
               else [run.player] if operation.path.startswith("/v1/players/{id}") else [])
        if ids:
            try:
                fuzz_operation(operation, GenerationMode.POSITIVE, True, ids)
            except BaseException as exc:
                run.failures.append(f"{operation.label} (on existing ids): {exc}")

    machine = schema.as_state_machine()
    run.links = schema.statistic.transitions.selected

    class Sequences(machine):  # type: ignore[misc, valid-type]
        def before_call(self, case: Any) -> None:
            if _unnamed(case.operation.path) not in served:
                hypothesis.reject()

        def call(self, case: Any, **kwargs: Any) -> Any:
            headers = dict(case.headers or {})
            # a game's writes carry its player's token: the sequences are to get somewhere
            owner = owners.get(str((case.path_parameters or {}).get("id")))
            if owner is not None:
                headers["Authorization"] = owner
            elif headers.get("Authorization") not in tokens:
                headers["Authorization"] = bearer
            case.headers = headers
            response = case.call(**kwargs)
            run.calls[(case.operation.label, response.status_code)] += 1
            run.sequence_steps += 1
            if response.status_code == 201 and case.operation.label == "POST /v1/players":
                tokens.add("Bearer " + response.json()["token"])
            if response.status_code == 201 and case.operation.label == "POST /v1/games":
                owners[response.json()["id"]] = headers["Authorization"]
            return response

        def validate_response(self, response: Any, case: Any, *args: Any, **kw: Any) -> None:
            try:
                case.validate_response(response, checks=checks)
            except BaseException as exc:
                # the first report of a failure (replaying a sequence against a service
                # whose state moved on may not reproduce it exactly)
                run.failures.append(f"stateful {case.operation.label}: {exc}")
                raise

        def setup(self) -> None:
            run.scenarios += 1

    for _ in range(3):
        reported = len(run.failures)
        try:
            Sequences.run(settings=hypothesis.settings(
                settings, max_examples=max(1, SCENARIOS - run.scenarios), stateful_step_count=12,
            ))
        except hypothesis.errors.FlakyStrategyDefinition:
            if len(run.failures) > reported:
                break  # a failure, reported by validate_response
            # Hypothesis drew a sequence again and the service, whose state moved on,
            # answered it otherwise, so other links were open: not a finding; go on
            run.restarts += 1
            continue
        except BaseException as exc:
            if len(run.failures) == reported:
                run.failures.append(f"stateful: {exc}")
        break


@pytest.mark.slow
async def test_schemathesis_finds_no_server_error_and_no_answer_outside_the_spec(
    db_url: str, tmp_path: Path
) -> None:
    service = ServiceProcess(db_url, tmp_path / "service.log")
    service.start()
    try:
        await service.ready()
        async with aiohttp.ClientSession() as session:
            async with session.post(f"{service.base}/v1/players", json={"name": "fuzzer"}) as r:
                player = await r.json()
            games = [(await new_game(session, service.base, player["token"], variant, 7))["id"]
                     for variant in VARIANTS]
        run = Fuzzing(service.base, player["token"], player["id"], games)
        await asyncio.to_thread(fuzz, run)
    finally:
        service.stop()
    errors = re.findall(r"unhandled error in .*\n(?:  .*\n|Traceback.*\n)*\S.*", service.output())
    assert not run.failures and not errors, "\n\n".join(run.failures + sorted(set(errors)))

    statuses = Counter[int]()
    for (_, status), n in run.calls.items():
        statuses[status] += n
    assert run.operations and run.scenarios and run.links
    played = sum(n for (label, status), n in run.calls.items()
                 if label.endswith("/moves") and status == 201)
    print(
        f"\nfuzz: schemathesis, {len(run.operations)} operations served ({len(run.skipped)}"
        f" described, not served: {', '.join(run.skipped) or 'none'}); {statuses.total()}"
        f" requests: {dict(sorted(statuses.items()))}, of them {run.sequence_steps} in"
        f" {run.scenarios} stateful sequences over {run.links} links ({played} moves played);"
        f" no 5xx, every answer as described"
    )
