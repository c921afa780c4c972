"""The official Python MCP SDK client of the previous revision (mcp==1.30.0,
protocol 2025-11-25) against examples/signup_server.

Run by scripts/interop: python legacy_client.py http://127.0.0.1:PORT/mcp

This client knows no input_required: it initializes a session and answers the
server's elicitation/create requests while its tools/call waits. The demo's
tools are the same multi-round tools the 2026-07-28 clients use; the server's
`mrtr_guard::rmcp::Legacy` runs their rounds over the session.

Each check prints one line, "PASS <name>" or "FAIL <name>: <why>"; the exit
status is non-zero if any check failed.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any, Callable

from mcp import ClientSession, types
from mcp.client.streamable_http import streamablehttp_client
from mcp.shared.exceptions import McpError

from checks import check, expect, no_sdk_complaints, summary

URL = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8080/mcp"

Answerer = Callable[[str, dict[str, Any]], types.ElicitResult]


class Run:
    """One session: what it negotiated, the forms it was asked, the result."""

    def __init__(self) -> None:
        self.version = ""
        self.asked: list[str] = []


async def call(tool: str, answer: Answerer | None, run: Run | None = None) -> types.CallToolResult:
    run = run if run is not None else Run()

    async def on_elicit(context: Any, params: Any) -> types.ElicitResult:
        dumped = params.model_dump(by_alias=True, exclude_none=True)
        run.asked.append(dumped.get("message", ""))
        assert answer is not None
        return answer(dumped.get("message", ""), dumped.get("requestedSchema", {}))

    headers = {"Authorization": "Bearer ada"}
    outcome: types.CallToolResult | McpError
    async with streamablehttp_client(URL, headers=headers) as (read, write, _session_id):
        callback = on_elicit if answer is not None else None
        async with ClientSession(read, write, elicitation_callback=callback) as session:
            init = await session.initialize()
            run.version = str(init.protocolVersion)
            try:
                outcome = await session.call_tool(tool, {})
            except McpError as error:  # raised here, not from inside the SDK's task group
                outcome = error
    if isinstance(outcome, McpError):
        raise outcome
    return outcome


def text_of(result: types.CallToolResult) -> str:
    return " ".join(block.text for block in result.content if getattr(block, "type", "") == "text")


def signup_answers(plan: str, first_invalid: bool = False) -> Answerer:
    state = {"invalid_sent": not first_invalid}

    def answer(message: str, schema: dict[str, Any]) -> types.ElicitResult:
        props = schema.get("properties", {})
        if "email" in props:
            if not state["invalid_sent"]:
                state["invalid_sent"] = True
                return types.ElicitResult(action="accept", content={"email": "not an email", "plan": plan})
            return types.ElicitResult(action="accept", content={"email": "ada@example.com", "plan": plan})
        if "teamSize" in props:
            return types.ElicitResult(action="accept", content={"teamSize": 12, "roles": ["admin", "member"]})
        if not props:  # the zero-field confirmation
            return types.ElicitResult(action="accept", content={})
        raise AssertionError(f"unexpected form: {message}")

    return answer


async def ship_accepted() -> str:
    run = Run()
    answer = lambda _m, _s: types.ElicitResult(action="accept", content={"trackingNumber": "1Z999AA1"})
    result = await call("ShipOrder", answer, run)
    expect(run.version == "2025-11-25", f"negotiated {run.version!r}")
    expect(not result.isError, f"error result: {result}")
    expect(text_of(result) == "Shipped as 1Z999AA1.", f"got {text_of(result)!r}")
    expect(len(run.asked) == 1, f"asked {len(run.asked)} times")
    return f"{text_of(result)} (session on {run.version})"


async def ship_declined() -> str:
    result = await call("ShipOrder", lambda _m, _s: types.ElicitResult(action="decline"))
    expect(not result.isError and text_of(result) == "Shipping cancelled.", f"got {result}")
    return text_of(result)


async def signup(plan: str, expected: str, forms: int) -> str:
    run = Run()
    result = await call("signup", signup_answers(plan), run)
    expect(not result.isError, f"error result: {result}")
    expect(text_of(result) == expected, f"got {text_of(result)!r}")
    expect(len(run.asked) == forms, f"{len(run.asked)} forms asked: {run.asked}")
    return f"{text_of(result)} ({len(run.asked)} forms)"


async def signup_declined() -> str:
    result = await call("signup", lambda _m, _s: types.ElicitResult(action="decline"))
    expect(not result.isError, f"error result: {result}")
    expect("cancelled" in text_of(result), f"got {text_of(result)!r}")
    return text_of(result)


async def signup_invalid_reasked() -> str:
    run = Run()
    result = await call("signup", signup_answers("pro", first_invalid=True), run)
    expect(not result.isError, f"error result: {result}")
    expect(text_of(result) == "Account created for ada@example.com: Pro plan.", f"got {text_of(result)!r}")
    expect(len(run.asked) == 3, f"{len(run.asked)} forms asked: {run.asked}")
    first, again = run.asked[0], run.asked[1]
    expect(again != first and again.startswith(first), f"re-ask {again!r}")
    expect("Please correct" in again and "not an email" not in again, f"re-ask {again!r}")
    return f"re-asked: {again!r}"


async def answers_that_keep_failing() -> str:
    run = Run()
    answer = lambda _m, _s: types.ElicitResult(action="accept", content={"trackingNumber": ""})
    result = await call("ShipOrder", answer, run)
    expect(bool(result.isError), f"not an error result: {result}")
    expect("kept failing validation" in text_of(result), f"got {text_of(result)!r}")
    expect(len(run.asked) == 3, f"asked {len(run.asked)} times: {run.asked}")
    return f"{len(run.asked)} asks, then isError"


async def no_elicitation_capability() -> str:
    try:
        result = await call("signup", None)
    except McpError as error:
        expect(error.error.code == -32021, f"code {error.error.code}")
        required = (error.error.data or {}).get("requiredCapabilities")
        expect(required == {"elicitation": {"form": {}}}, f"data {error.error.data!r}")
        return f"{error.error.code} {error.error.message}"
    raise AssertionError(f"completed without the capability: {result}")


async def main() -> int:
    await check("ShipOrder accepted", ship_accepted)
    await check("ShipOrder declined", ship_declined)
    await check("signup pro path", lambda: signup("pro", "Account created for ada@example.com: Pro plan.", 2))
    await check("signup team path", lambda: signup(
        "team", "Account created for ada@example.com: Team plan, 12 seats, roles: admin, member.", 3))
    await check("signup declined", signup_declined)
    await check("signup invalid answer re-asked", signup_invalid_reasked)
    await check("answers that keep failing end with a tool error", answers_that_keep_failing)
    await check("client without elicitation gets -32021", no_elicitation_capability)
    await check("no SDK warning about the server's events or the session's close", no_sdk_complaints)
    return summary("python legacy client")


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
