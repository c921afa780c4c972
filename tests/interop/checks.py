"""What the Python interop clients share: one line per check, and the tally.

Each check prints "PASS <name>: <detail>" or "FAIL <name>: <why>" (what
scripts/interop counts); `summary` prints the tally and gives the exit status.
`no_sdk_complaints` is the last check of each client: the SDK logged nothing
at WARNING or above over the run (a session close it took for a failure, an
event it could not parse).
"""

from __future__ import annotations

import logging
import traceback
from typing import Awaitable, Callable

results: list[tuple[str, bool, str]] = []


class _Complaints(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.seen: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.seen.append(f"{record.name}: {record.getMessage()}")


_COMPLAINTS = _Complaints()
logging.getLogger("mcp").addHandler(_COMPLAINTS)


async def no_sdk_complaints() -> str:
    expect(not _COMPLAINTS.seen, "; ".join(_COMPLAINTS.seen))
    return "none"


async def check(name: str, body: Callable[[], Awaitable[str]]) -> None:
    try:
        detail = await body()
        results.append((name, True, detail))
        print(f"PASS {name}: {detail}")
    except Exception as error:  # noqa: BLE001 - every failure is reported
        why = f"{type(error).__name__}: {error}"
        results.append((name, False, why))
        print(f"FAIL {name}: {why}")
        traceback.print_exc()


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


def summary(label: str) -> int:
    failed = [name for name, ok, _ in results if not ok]
    print(f"{label}: {len(results) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0
