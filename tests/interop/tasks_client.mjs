// The official Tasks extension client (npm @modelcontextprotocol/ext-tasks
// 0.2.2, SEP-2663) on the official TypeScript client
// (@modelcontextprotocol/client 2.4.0, protocol 2026-07-28) against
// examples/signup_server's task tool, export_orders.
//
// Run by scripts/interop, which copies it next to its node_modules:
//   node tasks_client.mjs http://127.0.0.1:PORT/mcp
//
// The SDK Client connects in the 2026-07-28 era (server/discover); the
// package's task session calls the tool, answers the range form as an
// ordinary input_required round (request retry), recognises the task the
// answer creates, polls tasks/get, answers the refunds form parked inside the
// task with tasks/update, and cancels with tasks/cancel. Each check prints
// "PASS <name>: ..." or "FAIL <name>: ..."; the exit status is non-zero if
// any check failed.

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createTaskSessionFromClient, resultFromTaskOutcome } from "@modelcontextprotocol/ext-tasks/client";

const URL_ = process.argv[2] ?? "http://127.0.0.1:8080/mcp";
const REVISION = "2026-07-28";
const CLIENT_INFO = { name: "tasks-ts-client", version: "1.0.0" };
const CAPABILITIES = { elicitation: {} };
const AUTH = { Authorization: "Bearer ada" };
const RANGE = { from: "2026-01-01", to: "2026-01-31" };
let passed = 0;
let failed = 0;
// What the package reported as going wrong in the background, over the run.
const packageErrors = [];

// The package's V2 requester needs the host's own request path
// (`rawDispatch`): the SDK Client's result codec rejects `resultType: "task"`
// ("Unsupported result type 'task' for tools/call"), so tools/call and
// tasks/* cannot go through Client.request. This coordinator is the SDK's own
// Streamable HTTP transport, unconnected to any Client: it owns the request
// ids and matches the responses, and derives MCP-Protocol-Version, Mcp-Method
// and Mcp-Name (the taskId on tasks/*) from each message's body. The package
// builds every message it sends (the _meta framing, the extension's
// declaration, requestState and inputResponses on retries, tasks/update).
class RawCoordinator {
  constructor(url) {
    this.nextId = 1;
    this.pending = new Map();
    this.sent = [];
    this.transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: AUTH } });
    this.transport.onmessage = (message) => {
      const waiter = this.pending.get(message.id);
      if (waiter === undefined) return;
      this.pending.delete(message.id);
      this.sent.push({ request: waiter.message, response: message });
      if (message.error !== undefined) waiter.resolve({ kind: "error", error: message.error });
      else waiter.resolve({ kind: "result", result: message.result });
    };
    this.transport.onerror = (error) => packageErrors.push(`transport: ${error?.message ?? error}`);
    this.dispatch = this.dispatch.bind(this);
  }

  start() {
    return this.transport.start();
  }

  dispatch(request, options = {}) {
    const id = `tasks-${this.nextId++}`;
    const message = { jsonrpc: "2.0", id, ...request };
    return new Promise((resolve, reject) => {
      this.pending.set(id, { message, resolve });
      const sendOptions = {
        ...(options.signal === undefined ? {} : { requestSignal: options.signal }),
        ...(options.context?.headers === undefined ? {} : { headers: options.context.headers }),
      };
      this.transport.send(message, sendOptions).catch((error) => {
        this.pending.delete(id);
        reject(error);
      });
    });
  }

  // The exchanges of `method` so far, for failure messages.
  exchanges(method) {
    return this.sent.filter(({ request }) => request.method === method);
  }

  close() {
    return this.transport.close();
  }
}

// One task session, answering forms with `answer(ask)`; `ask` is
// { scope, delivery, key, message, schema } as the package delivered it.
async function open(answer) {
  const client = new Client(CLIENT_INFO, {
    capabilities: CAPABILITIES,
    versionNegotiation: { mode: { pin: REVISION } },
  });
  const transport = new StreamableHTTPClientTransport(new URL(URL_), { requestInit: { headers: AUTH } });
  await client.connect(transport);
  const raw = new RawCoordinator(URL_);
  await raw.start();
  const asked = [];
  const session = createTaskSessionFromClient(client, {
    endpointId: `mrtr-guard-demo ${URL_}`,
    rawDispatch: raw.dispatch,
    v2RequestFraming: {
      protocolVersion: client.getNegotiatedProtocolVersion(),
      clientInfo: CLIENT_INFO,
      clientCapabilities: CAPABILITIES,
    },
    onInputRequest: async (request, context) => {
      if (request.kind !== "elicitation") throw new Error(`unexpected ${request.kind} request`);
      const ask = {
        scope: context.scope,
        delivery: context.delivery,
        key: context.inputId,
        taskId: context.taskId,
        message: request.params.message,
        schema: request.params.requestedSchema ?? {},
        signal: context.signal,
      };
      asked.push(ask);
      return answer(ask);
    },
    onError: (error) => packageErrors.push(`${error?.stack ?? error}`),
  });
  return {
    client,
    session,
    raw,
    asked,
    async close() {
      await session.close();
      await raw.close();
      await client.close();
    },
  };
}

const fields = (ask) => Object.keys(ask.schema.properties ?? {});
const isRange = (ask) => fields(ask).includes("from") && fields(ask).includes("to");
const isRefunds = (ask) => fields(ask).includes("includeRefunds");

// Answers the range form, then each refunds form with the next of `refunds`.
function exportAnswers(...refunds) {
  return (ask) => {
    if (isRange(ask)) return { action: "accept", content: RANGE };
    if (isRefunds(ask) && refunds.length > 0) return refunds.shift();
    throw new Error(`unexpected form: ${ask.message}`);
  };
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

// Runs export_orders (CSV) to its end with `answer`: the outcome, the task
// statuses observed, the forms asked and the wire exchanges.
async function runExport(answer) {
  const run = await open(answer);
  try {
    expect(run.client.getProtocolEra() === "modern", `era ${run.client.getProtocolEra()}`);
    expect(run.session.capabilities.execution === true, `task capabilities ${JSON.stringify(run.session.capabilities)}`);
    const execution = await run.session.callTool("export_orders", { format: "csv" }, { task: { preference: "require" } });
    expect(execution.kind === "task", `not a task: ${execution.kind}`);
    const statuses = [];
    const { outcome } = await execution.settle({
      onEvent: (event) => {
        if (event.type === "task" && statuses.at(-1) !== event.task.status) statuses.push(event.task.status);
      },
    });
    return { ...run, taskId: execution.handle.taskId, outcome, statuses };
  } finally {
    await run.close();
  }
}

function expectRangeRound(run) {
  const [range] = run.asked;
  expect(range !== undefined && isRange(range), `first form: ${JSON.stringify(run.asked[0]?.message)}`);
  expect(range.scope === "request" && range.delivery === "request-retry", `range delivered as ${range.scope}/${range.delivery}`);
  const [first, retry] = run.raw.exchanges("tools/call");
  expect(first?.response.result?.resultType === "input_required", `round 1: ${JSON.stringify(first?.response)}`);
  expect(typeof retry?.request.params.requestState === "string", `retry without requestState: ${JSON.stringify(retry?.request)}`);
  expect(retry.response.result?.resultType === "task", `retry answered: ${JSON.stringify(retry.response)}`);
}

function expectCompleted(run, expected) {
  expect(run.outcome.status === "completed", `outcome ${run.outcome.status}: ${run.outcome.error?.message ?? ""}`);
  const result = resultFromTaskOutcome(run.outcome);
  expect(!result.isError, `error result: ${JSON.stringify(result)}`);
  expect(textOf(result) === expected, `got ${JSON.stringify(textOf(result))}`);
}

const refundsAsks = (run) => run.asked.filter(isRefunds);

await check("export completed", async () => {
  const run = await runExport(exportAnswers({ action: "accept", content: { includeRefunds: true } }));
  expectCompleted(run, "Exported the orders from 2026-01-01 to 2026-01-31 as CSV, refunds included.");
  expectRangeRound(run);
  const refunds = refundsAsks(run);
  expect(refunds.length === 1, `${refunds.length} refunds forms`);
  const [ask] = refunds;
  expect(ask.scope === "task" && ask.delivery === "task-update", `refunds delivered as ${ask.scope}/${ask.delivery}`);
  expect(ask.taskId === run.taskId && ask.key.startsWith("refunds"), `refunds asked under ${ask.key} of ${ask.taskId}`);
  const updates = run.raw.exchanges("tasks/update");
  expect(updates.length === 1 && updates[0].response.result?.resultType === "complete", `tasks/update: ${JSON.stringify(updates)}`);
  expect(run.statuses.includes("input_required") && run.statuses.at(-1) === "completed", `statuses ${run.statuses}`);
  return `${textOf(resultFromTaskOutcome(run.outcome))} (task ${run.statuses.join(" -> ")}, key ${ask.key})`;
});

await check("invalid in-task answer re-asked under a new key", async () => {
  const run = await runExport(
    exportAnswers(
      { action: "accept", content: { includeRefunds: "yes" } },
      { action: "accept", content: { includeRefunds: false } },
    ),
  );
  expectCompleted(run, "Exported the orders from 2026-01-01 to 2026-01-31 as CSV.");
  const refunds = refundsAsks(run);
  expect(refunds.length === 2, `${refunds.length} refunds forms`);
  const [first, again] = refunds;
  expect(again.key !== first.key && again.key.startsWith("refunds"), `re-asked under ${again.key} after ${first.key}`);
  expect(again.message !== first.message && again.message.startsWith(first.message), `re-ask ${JSON.stringify(again.message)}`);
  expect(again.message.includes("Please correct") && /include refunds/i.test(again.message), `re-ask ${JSON.stringify(again.message)}`);
  expect(run.raw.exchanges("tasks/update").length === 2, `${run.raw.exchanges("tasks/update").length} tasks/update`);
  return `${first.key} -> ${again.key}: ${JSON.stringify(again.message)}`;
});

await check("in-task decline", async () => {
  const run = await runExport(exportAnswers({ action: "decline" }));
  expectCompleted(run, "Export cancelled.");
  expect(refundsAsks(run).length === 1, `${refundsAsks(run).length} refunds forms`);
  return `${textOf(resultFromTaskOutcome(run.outcome))} (task ${run.statuses.join(" -> ")})`;
});

// tasks/cancel through the package, on the task in `when` ("working": right
// after it is created; "input_required": while its refunds form is open);
// then tasks/get, through the package's detached controller, must say
// cancelled.
async function cancelAt(when) {
  let cancelling;
  let run;
  run = await open((ask) => {
    if (isRange(ask)) return { action: "accept", content: RANGE };
    // Leave the form open, cancel instead; the package aborts the handler's
    // signal once the server acknowledged the cancel.
    cancelling = run.session.cancelTask(ask.taskId);
    return new Promise((_, reject) => ask.signal.addEventListener("abort", () => reject(ask.signal.reason)));
  });
  try {
    const execution = await run.session.callTool("export_orders", { format: "csv" }, { task: { preference: "require" } });
    expect(execution.kind === "task", `not a task: ${execution.kind}`);
    const { taskId } = execution.handle;
    if (when === "working") {
      cancelling = run.session.cancelTask(taskId);
    }
    const { outcome } = await execution.settle();
    await cancelling;
    expect(outcome.status === "cancelled", `outcome ${outcome.status}`);
    const cancels = run.raw.exchanges("tasks/cancel");
    expect(cancels.length === 1 && cancels[0].response.result?.resultType === "complete", `tasks/cancel: ${JSON.stringify(cancels)}`);
    const task = await run.session.task(taskId).snapshot();
    expect(task.status === "cancelled", `tasks/get after the cancel: ${JSON.stringify(task.raw)}`);
    const refunds = refundsAsks(run).length;
    expect(refunds === (when === "working" ? 0 : 1), `${refunds} refunds forms`);
    return `task ${when} -> ${task.status}`;
  } finally {
    await run.close();
  }
}

await check("tasks/cancel while working", () => cancelAt("working"));
await check("tasks/cancel while input_required", () => cancelAt("input_required"));

await check("no package error in the background", async () => {
  expect(packageErrors.length === 0, packageErrors.join("; "));
  return "none";
});

console.log(`ext-tasks client: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
