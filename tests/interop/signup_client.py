"""The official Python MCP SDK client (mcp==2.3.0) against examples/signup_server.

Run by scripts/interop: python signup_client.py http://127.0.0.1:PORT/mcp

Each check prints one line, "PASS <name>" or "FAIL <name>: <why>"; the exit
status is non-zero if any check failed. The happy paths go through the SDK's
own input-required loop (Client.call_tool with callbacks); the attacks use the
SDK's session with allow_input_required=True to hold the state in hand.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any, Callable

import mcp_types as types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

from checks import check, expect, no_sdk_complaints, summary

URL = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8080/mcp"

Answerer = Callable[[str, dict[str, Any]], types.ElicitResult]


def client(user: str, answer: Answerer | None = None, asked: list[str] | None = None) -> Client:
    """A client authenticated (demo-style) as `user`, answering forms with `answer`."""

    async def on_elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        dumped = params.model_dump(by_alias=True, exclude_none=True)
        if asked is not None:
            asked.append(params.message)
        assert answer is not None
        return answer(params.message, dumped.get("requestedSchema", {}))

    http = create_mcp_http_client(headers={"Authorization": f"Bearer {user}"})
    transport = streamable_http_client(URL, http_client=http)
    callback = on_elicit if answer is not None else None
    return Client(transport, mode="2026-07-28", elicitation_callback=callback)


def text_of(result: types.CallToolResult) -> str:
    return " ".join(block.text for block in result.content if getattr(block, "type", "") == "text")


def signup_answers(plan: str) -> Answerer:
    def answer(message: str, schema: dict[str, Any]) -> types.ElicitResult:
        props = schema.get("properties", {})
        if "email" in props:
            return types.ElicitResult(action="accept", content={"email": "ada@example.com", "plan": plan})
        if "teamSize" in props:
            return types.ElicitResult(action="accept", content={"teamSize": 12, "roles": ["admin", "member"]})
        if not props:  # the zero-field confirmation
            return types.ElicitResult(action="accept", content={})
        raise AssertionError(f"unexpected form: {message}")

    return answer


async def ship_accepted() -> str:
    asked: list[str] = []
    answer = lambda _m, _s: types.ElicitResult(action="accept", content={"trackingNumber": "1Z999AA1"})
    async with client("ada", answer, asked) as c:
        result = await c.call_tool("ShipOrder", {})
    expect(not result.is_error, f"error result: {result}")
    expect(text_of(result) == "Shipped as 1Z999AA1.", f"got {text_of(result)!r}")
    expect(len(asked) == 1, f"asked {len(asked)} times")
    return text_of(result)


async def ship_declined() -> str:
    answer = lambda _m, _s: types.ElicitResult(action="decline")
    async with client("ada", answer) as c:
        result = await c.call_tool("ShipOrder", {})
    expect(not result.is_error and text_of(result) == "Shipping cancelled.", f"got {result}")
    return text_of(result)


async def signup(plan: str, expected: str, rounds: int) -> str:
    asked: list[str] = []
    async with client("ada", signup_answers(plan), asked) as c:
        result = await c.call_tool("signup", {})
    expect(not result.is_error, f"error result: {result}")
    expect(text_of(result) == expected, f"got {text_of(result)!r}")
    expect(len(asked) == rounds, f"{len(asked)} forms asked: {asked}")
    return f"{text_of(result)} ({len(asked)} forms)"


async def signup_declined() -> str:
    answer = lambda _m, _s: types.ElicitResult(action="decline")
    async with client("ada", answer) as c:
        result = await c.call_tool("signup", {})
    expect(not result.is_error, f"error result: {result}")
    expect("cancelled" in text_of(result), f"got {text_of(result)!r}")
    return text_of(result)


def manual(user: str) -> Client:
    """A client that declares form elicitation but drives rounds by hand."""
    return client(user, lambda _m, _s: types.ElicitResult(action="cancel"))


async def first_round(c: Client, tool: str) -> types.InputRequiredResult:
    first = await c.session.call_tool(tool, {}, allow_input_required=True)
    expect(isinstance(first, types.InputRequiredResult), f"round 1 is {type(first).__name__}")
    expect(bool(first.request_state), "round 1 has no requestState")
    return first


def expect_state_error(error: MCPError) -> str:
    expect(error.code == -32602, f"code {error.code}")
    expect(error.message == "Invalid or expired requestState", f"message {error.message!r}")
    expect(error.data == {"reason": "invalid_request_state"}, f"data {error.data!r}")
    return f"{error.code} {error.message}"


SHIP_ANSWER = {"ship": types.ElicitResult(action="accept", content={"trackingNumber": "1Z"})}


async def tampered_state() -> str:
    async with manual("ada") as c:
        first = await first_round(c, "ShipOrder")
        try:
            result = await c.session.call_tool(
                "ShipOrder", {}, input_responses=SHIP_ANSWER,
                request_state=first.request_state + "-TAMPERED", allow_input_required=True)
        except MCPError as error:
            return expect_state_error(error)
    raise AssertionError(f"tampered state accepted: {result}")


async def state_under_another_user() -> str:
    async with manual("ada") as ada:
        first = await first_round(ada, "ShipOrder")
    async with manual("mallory") as mallory:
        try:
            result = await mallory.session.call_tool(
                "ShipOrder", {}, input_responses=SHIP_ANSWER,
                request_state=first.request_state, allow_input_required=True)
        except MCPError as error:
            return expect_state_error(error)
    raise AssertionError(f"ada's state accepted for mallory: {result}")


async def answer_violating_schema() -> str:
    async with manual("ada") as c:
        first = await first_round(c, "signup")
        bad = {"account": types.ElicitResult(
            action="accept", content={"email": "not an email", "plan": "enterprise"})}
        second = await c.session.call_tool(
            "signup", {}, input_responses=bad, request_state=first.request_state,
            allow_input_required=True)
        expect(isinstance(second, types.InputRequiredResult), f"got {type(second).__name__}: {second}")
        keys = sorted((second.input_requests or {}).keys())
        expect(keys == ["account"], f"re-asked {keys}")
        expect(second.request_state != first.request_state, "state not renewed")
        # The re-ask works: a valid answer now moves the flow on.
        good = {"account": types.ElicitResult(
            action="accept", content={"email": "ada@example.com", "plan": "pro"})}
        third = await c.session.call_tool(
            "signup", {}, input_responses=good, request_state=second.request_state,
            allow_input_required=True)
        expect(isinstance(third, types.InputRequiredResult), f"got {type(third).__name__}")
        expect(sorted((third.input_requests or {}).keys()) == ["confirm"], "confirm not asked next")
    return "invalid answer re-asked the account form (no result, no error); valid answer moved on"


async def answers_that_keep_failing() -> str:
    """Every answer invalid: each re-ask says why, and the third invalid
    answer ends the SDK's own loop with a tool error."""
    asked: list[str] = []
    answer = lambda _m, _s: types.ElicitResult(action="accept", content={"trackingNumber": ""})
    async with client("ada", answer, asked) as c:
        result = await c.call_tool("ShipOrder", {})
    expect(result.is_error, f"not an error result: {result}")
    expect("kept failing validation" in text_of(result), f"got {text_of(result)!r}")
    expect(len(asked) == 3, f"asked {len(asked)} times: {asked}")
    first, again = asked[0], asked[1]
    expect(again != first and again.startswith(first), f"re-ask {again!r}")
    expect("Tracking Number" in again, f"re-ask names no field: {again!r}")
    return f"{len(asked)} asks, then isError: {text_of(result)!r}"


async def main() -> int:
    await check("ShipOrder accepted", ship_accepted)
    await check("ShipOrder declined", ship_declined)
    await check("signup pro path", lambda: signup("pro", "Account created for ada@example.com: Pro plan.", 2))
    await check("signup team path", lambda: signup(
        "team", "Account created for ada@example.com: Team plan, 12 seats, roles: admin, member.", 3))
    await check("signup declined", signup_declined)
    await check("tampered requestState refused", tampered_state)
    await check("requestState replayed under another user refused", state_under_another_user)
    await check("answer violating the schema re-asked", answer_violating_schema)
    await check("answers that keep failing end with a tool error", answers_that_keep_failing)
    await check("no SDK warning about the server's events or the session's close", no_sdk_complaints)
    return summary("python client")


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
