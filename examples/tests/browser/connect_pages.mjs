// A real browser through the demo's connect pages: headless Chromium,
// driven with puppeteer-core (npm, pinned; scripts/connect-browser installs
// both and starts the servers). Against a running signup_server
// ($MRTR_GUARD_SERVER, its contacts provider a running oidc-provider):
//
//   1. bob's browser opens alice's weather link: the page says it was made
//      for another account;
//   2. alice's browser opens it, types her key on the secret page, is told
//      it is connected, and alice's retry completes weather_report;
//   3. alice's browser follows import_contacts' link through the provider's
//      login and consent pages and back to the connect route, and alice's
//      retry completes import_contacts.
//
// Each connect page is saved as a PNG into $MRTR_GUARD_SCREENSHOTS. Exits
// non-zero on the first check that fails.
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const server = process.env.MRTR_GUARD_SERVER;
const shots = process.env.MRTR_GUARD_SCREENSHOTS;
const modules = path.join(process.env.MRTR_GUARD_BROWSER_DIR, 'node_modules');
const { default: puppeteer } = await import(
  pathToFileURL(path.join(modules, 'puppeteer-core', 'lib', 'esm', 'puppeteer', 'puppeteer-core.js')).href
);

const KEY = 'wx-alice-0123456789abcdef';
const meta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { url: {} } },
};

function check(ok, what) {
  if (!ok) {
    console.error(`FAIL  ${what}`);
    process.exit(1);
  }
  console.log(`ok    ${what}`);
}

/// One tools/call by `user`: the JSON-RPC result.
async function call(user, tool, params) {
  const response = await fetch(`${server}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${user}`,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': tool,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, ...params, _meta: meta } }),
  });
  return (await response.json()).result;
}

/// Asks `tool` as alice: the link its connect ask sends, and a retry.
async function ask(tool, key, args) {
  const asked = await call('alice', tool, { arguments: args });
  check(asked.resultType === 'input_required', `${tool} asks through a connect link`);
  const url = asked.inputRequests[key].params.url;
  const retry = () =>
    call('alice', tool, { arguments: args, inputResponses: { [key]: { action: 'accept' } }, requestState: asked.requestState });
  return { url, retry };
}

/// A browser signed in at the demo as `user` (its `demo_user` cookie).
async function signedIn(browser, user) {
  const context = await browser.createBrowserContext();
  await context.setCookie({ name: 'demo_user', value: user, url: server });
  const page = await context.newPage();
  await page.setViewport({ width: 720, height: 480 });
  return page;
}

async function shot(page, name) {
  await page.screenshot({ path: path.join(shots, `${name}.png`) });
}

const text = (page) => page.evaluate(() => document.body.innerText);

const browser = await puppeteer.launch({
  executablePath: process.env.MRTR_GUARD_CHROMIUM,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu'],
});
try {
  // 1 and 2: the secret page.
  const weather = await ask('weather_report', 'weather-key', { city: 'Paris' });
  const bob = await signedIn(browser, 'bob');
  const refused = await bob.goto(weather.url);
  check(refused.status() === 403, "bob's browser is refused alice's link (403)");
  check((await text(bob)).includes('made for another account'), 'and told why');
  await shot(bob, 'connect-other-account');

  const alice = await signedIn(browser, 'alice');
  const form = await alice.goto(weather.url);
  check(form.status() === 200, "alice's browser gets the secret page");
  const headers = form.headers();
  check(headers['x-frame-options'] === 'DENY' && headers['content-security-policy'].includes("frame-ancestors 'none'"),
    'the page keeps out of frames');
  await shot(alice, 'connect-secret-page');
  await alice.type('input[name="apiKey"]', KEY);
  const [saved] = await Promise.all([alice.waitForNavigation(), alice.click('button[type="submit"]')]);
  check(saved.status() === 200 && (await text(alice)).includes('Saved'), 'the key is saved');
  check(!(await alice.content()).includes(KEY), 'and not shown back');
  await shot(alice, 'connect-saved');
  const done = await weather.retry();
  check(done.resultType === 'complete' && done.content[0].text.includes(`${KEY.length}-character`),
    "alice's retry completes weather_report");

  // 3: the OAuth redirect chain.
  const contacts = await ask('import_contacts', 'contacts', {});
  const login = await alice.goto(contacts.url);
  check(new URL(alice.url()).origin !== new URL(server).origin, 'the link leads to the provider');
  check(login.ok() && (await alice.$('input[name="login"]')) !== null, "the provider's login page");
  await alice.type('input[name="login"]', 'carol');
  await alice.type('input[name="password"]', 'any');
  await Promise.all([alice.waitForNavigation(), alice.click('button[type="submit"]')]);
  check((await text(alice)).toLowerCase().includes('authorize') || (await alice.$('input[name="prompt"][value="consent"]')) !== null,
    "the provider's consent page");
  const [back] = await Promise.all([alice.waitForNavigation(), alice.click('button[type="submit"]')]);
  check(back.url().startsWith(`${server}/connect?`) && back.status() === 200 && (await text(alice)).includes('Connected'),
    'back at the connect route, connected');
  await shot(alice, 'connect-oauth-connected');
  const imported = await contacts.retry();
  check(imported.resultType === 'complete' && imported.content[0].text.includes('contacts.read'),
    "alice's retry completes import_contacts");
} finally {
  await browser.close();
}
