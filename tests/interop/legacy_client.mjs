// The official TypeScript MCP SDK client of the previous revision
// (@modelcontextprotocol/sdk@1.32.2, protocol 2025-11-25) against
// examples/signup_server.
//
// Run by scripts/interop, which copies it next to its node_modules:
//   node legacy_client.mjs http://127.0.0.1:PORT/mcp
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
let passed = 0;
let failed = 0;

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
  await client.connect(transport);
  try {
    run.version = transport.protocolVersion;
    run.session = transport.sessionId;
    return await client.callTool({ name: tool, arguments: {} });
  } finally {
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
  expect(run.version === "2025-11-25", `negotiated ${run.version}`);
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

for (const [plan, expected, forms] of [
  ["pro", "Account created for ada@example.com: Pro plan.", 2],
  ["team", "Account created for ada@example.com: Team plan, 12 seats, roles: admin, member.", 3],
]) {
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

console.log(`typescript legacy client: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
