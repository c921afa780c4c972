// The official TypeScript MCP SDK client of a session revision against
// examples/signup_server: @modelcontextprotocol/sdk@1.32.2 (protocol
// 2025-11-25), and @1.22.0 (protocol 2025-06-18, which has no multi-select:
// the server refuses the team form before asking it).
//
// Run by scripts/interop, which copies it next to its node_modules:
//   node legacy_client.mjs http://127.0.0.1:PORT/mcp [REVISION]
// (REVISION: the protocol the client should negotiate; 2025-11-25 if not
// given).
//
// This client knows no input_required: it initializes a session and answers
// the server's elicitation/create requests while its tools/call waits; the
// server's `mrtr_guard::rmcp::Legacy` runs the same multi-round tools over it.
// Each check prints "PASS <name>: ..." or "FAIL <name>: ..."; the exit status
// is non-zero if any check failed.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";

const URL_ = process.argv[2] ?? "http://127.0.0.1:8080/mcp";
const REVISION = process.argv[3] ?? "2025-11-25";
// Revisions before 2025-11-25 have no multi-select.
const MULTI_SELECT = REVISION >= "2025-11-25";
let passed = 0;
let failed = 0;
// What the SDK reported as going wrong with the server's messages or the
// session's close, over the whole run (e.g. an SSE event it cannot parse).
const sdkErrors = [];

async function call(tool, answer, run = { asked: [] }) {
  const capabilities = answer ? { elicitation: { form: {} } } : {};
  const client = new Client({ name: "legacy-ts-client", version: "1.0.0" }, { capabilities });
  if (answer) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const { message, requestedSchema } = request.params;
      run.asked.push(message);
      return answer(message, requestedSchema ?? {});
    });
  }
  const transport = new StreamableHTTPClientTransport(new URL(URL_), {
    requestInit: { headers: { Authorization: "Bearer ada" } },
  });
  // An AbortError is the client's own close aborting its GET stream, not
  // anything the server sent.
  client.onerror = (error) => {
    const message = `${error?.message ?? error}`;
    if (!message.includes("AbortError")) sdkErrors.push(`${tool}: ${message}`);
  };
  await client.connect(transport);
  try {
    run.version = transport.protocolVersion;
    run.session = transport.sessionId;
    return await client.callTool({ name: tool, arguments: {} });
  } finally {
    await transport.terminateSession().catch((error) => sdkErrors.push(`close: ${error?.message ?? error}`));
    await client.close();
  }
}

const textOf = (result) =>
  result.content.filter((block) => block.type === "text").map((block) => block.text).join(" ");

function expect(condition, message) {
  if (!condition) throw new Error(message);
}

async function check(name, body) {
  try {
    const detail = await body();
    passed += 1;
    console.log(`PASS ${name}: ${detail}`);
  } catch (error) {
    failed += 1;
    console.log(`FAIL ${name}: ${error?.stack ?? error}`);
  }
}

function signupAnswers(plan, firstInvalid = false) {
  let invalidSent = !firstInvalid;
  return (message, schema) => {
    const props = schema.properties ?? {};
    if ("email" in props) {
      if (!invalidSent) {
        invalidSent = true;
        return { action: "accept", content: { email: "not an email", plan } };
      }
      return { action: "accept", content: { email: "ada@example.com", plan } };
    }
    if ("teamSize" in props) {
      return { action: "accept", content: { teamSize: 12, roles: ["admin", "member"] } };
    }
    if (Object.keys(props).length === 0) return { action: "accept", content: {} };
    throw new Error(`unexpected form: ${message}`);
  };
}

await check("ShipOrder accepted", async () => {
  const run = { asked: [] };
  const result = await call("ShipOrder", () => ({ action: "accept", content: { trackingNumber: "1Z999AA1" } }), run);
  expect(run.version === REVISION, `negotiated ${run.version}`);
  expect(typeof run.session === "string" && run.session.length > 0, "no Mcp-Session-Id");
  expect(!result.isError, `error result: ${JSON.stringify(result)}`);
  expect(textOf(result) === "Shipped as 1Z999AA1.", `got ${textOf(result)}`);
  expect(run.asked.length === 1, `asked ${run.asked.length} times`);
  return `${textOf(result)} (session on ${run.version})`;
});

await check("ShipOrder declined", async () => {
  const result = await call("ShipOrder", () => ({ action: "decline" }));
  expect(!result.isError && textOf(result) === "Shipping cancelled.", `got ${JSON.stringify(result)}`);
  return textOf(result);
});

const paths = [["pro", "Account created for ada@example.com: Pro plan.", 2]];
if (MULTI_SELECT) {
  paths.push(["team", "Account created for ada@example.com: Team plan, 12 seats, roles: admin, member.", 3]);
} else {
  await check("signup team path refused before the form it cannot show", async () => {
    const run = { asked: [] };
    try {
      const result = await call("signup", signupAnswers("team"), run);
      throw new Error(`completed: ${JSON.stringify(result)}`);
    } catch (error) {
      if (!(error instanceof McpError)) throw error;
      expect(error.code === -32603, `code ${error.code}`);
      expect(error.data?.reason === "form_needs_newer_revision", `data ${JSON.stringify(error.data)}`);
      expect(error.data?.field === "roles", `data ${JSON.stringify(error.data)}`);
      expect(run.asked.length === 1, `${run.asked.length} forms asked: the team form was shown`);
      return `${error.code} ${error.message}`;
    }
  });
}
for (const [plan, expected, forms] of paths) {
  await check(`signup ${plan} path`, async () => {
    const run = { asked: [] };
    const result = await call("signup", signupAnswers(plan), run);
    expect(!result.isError, `error result: ${JSON.stringify(result)}`);
    expect(textOf(result) === expected, `got ${textOf(result)}`);
    expect(run.asked.length === forms, `${run.asked.length} forms asked`);
    return `${textOf(result)} (${run.asked.length} forms)`;
  });
}

await check("signup declined", async () => {
  const result = await call("signup", () => ({ action: "decline" }));
  expect(!result.isError && textOf(result).includes("cancelled"), `got ${JSON.stringify(result)}`);
  return textOf(result);
});

await check("signup invalid answer re-asked", async () => {
  const run = { asked: [] };
  const result = await call("signup", signupAnswers("pro", true), run);
  expect(!result.isError, `error result: ${JSON.stringify(result)}`);
  expect(textOf(result) === "Account created for ada@example.com: Pro plan.", `got ${textOf(result)}`);
  expect(run.asked.length === 3, `${run.asked.length} forms asked`);
  const [first, again] = run.asked;
  expect(again !== first && again.startsWith(first) && again.includes("Please correct"), `re-ask ${again}`);
  expect(!again.includes("not an email"), `re-ask echoes the answer: ${again}`);
  return `re-asked: ${JSON.stringify(again)}`;
});

await check("answers that keep failing end with a tool error", async () => {
  const run = { asked: [] };
  const result = await call("ShipOrder", () => ({ action: "accept", content: { trackingNumber: "" } }), run);
  expect(result.isError === true, `not an error result: ${JSON.stringify(result)}`);
  expect(textOf(result).includes("kept failing validation"), `got ${textOf(result)}`);
  expect(run.asked.length === 3, `asked ${run.asked.length} times`);
  return `${run.asked.length} asks, then isError`;
});

await check("client without elicitation gets -32021", async () => {
  try {
    const result = await call("signup", null);
    throw new Error(`completed without the capability: ${JSON.stringify(result)}`);
  } catch (error) {
    if (!(error instanceof McpError)) throw error;
    expect(error.code === -32021, `code ${error.code}`);
    const required = JSON.stringify(error.data?.requiredCapabilities);
    expect(required === JSON.stringify({ elicitation: { form: {} } }), `data ${JSON.stringify(error.data)}`);
    return `${error.code} ${error.message}`;
  }
});

await check("no SDK error about the server's events or the session's close", async () => {
  expect(sdkErrors.length === 0, sdkErrors.join("; "));
  return "none";
});

console.log(`typescript legacy client (${REVISION}): ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
