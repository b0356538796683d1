"""Fuzzing the API from its OpenAPI description (schemathesis): whatever a client sends, the
hub answers without a server error, signed in or not."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from hub_server import Hub, running_hub
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error


@pytest.fixture(scope="module")
def fuzzed_hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:
    with running_hub(Path(tmp_path_factory.mktemp("fuzz")), public_rate="100000/minute") as hub:
        yield hub


@pytest.fixture(scope="module")
def token(fuzzed_hub: Hub) -> str:
    return fuzzed_hub.token("fuzzer")


@pytest.mark.slow  # about 15 cases per operation, twice each: ~25 s
def test_no_request_makes_the_hub_fail(fuzzed_hub: Hub, token: str) -> None:
    """Each operation of /openapi.json gets cases generated from its description, sent
    with and without a token (schemathesis' strategies; its pytest loader is not used)."""
    schema = schemathesis.openapi.from_url(f"{fuzzed_hub.url}/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 10
    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(max_examples=15, derandomize=True, database=None, deadline=None,
                  suppress_health_check=list(HealthCheck))
        def fuzz(case) -> None:  # type: ignore[no-untyped-def]
            case.call_and_validate(headers={"Authorization": f"Bearer {token}"},
                                   checks=[not_a_server_error])
            case.call_and_validate(checks=[not_a_server_error])

        fuzz()
