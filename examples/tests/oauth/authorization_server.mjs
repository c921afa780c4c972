// A real OAuth 2.0 / OpenID authorization server for the connect flow's
// tests: `oidc-provider` (npm, pinned and installed by scripts/oidc-install
// into $MRTR_GUARD_OIDC_DIR; .ci/run does it), on 127.0.0.1 at a port the
// kernel picks. Nothing here is a stand-in: the authorization endpoint, its
// login and consent pages (oidc-provider's own development interactions),
// PKCE (required, S256 only) and the token endpoint are oidc-provider's.
//
// One confidential client is registered: its id and secret are
// MRTR_GUARD_OIDC_CLIENT_ID / MRTR_GUARD_OIDC_CLIENT_SECRET and its one
// redirect URI MRTR_GUARD_OIDC_REDIRECT_URI (the connect route of the
// server under test). The issuer URL is printed as the first line of
// stdout once the server listens; it runs until stdin closes (the test
// holds it open), so that it never outlives the test that started it.
import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const dir = process.env.MRTR_GUARD_OIDC_DIR;
if (!dir) {
  console.error('MRTR_GUARD_OIDC_DIR is not set (scripts/oidc-install DIR installs oidc-provider)');
  process.exit(2);
}
const entry = path.join(dir, 'node_modules', 'oidc-provider', 'lib', 'index.js');
const { default: Provider } = await import(pathToFileURL(entry).href);

const server = http.createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  clients: [{
    client_id: process.env.MRTR_GUARD_OIDC_CLIENT_ID,
    client_secret: process.env.MRTR_GUARD_OIDC_CLIENT_SECRET,
    redirect_uris: [process.env.MRTR_GUARD_OIDC_REDIRECT_URI],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
  }],
  pkce: { required: () => true },
  scopes: ['openid', 'contacts.read'],
  claims: { openid: ['sub'] },
  // The account is whoever signs in at the development login page.
  findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
  features: { devInteractions: { enabled: true } },
});
// The development interactions warn once on stderr; nothing else is logged.
server.on('request', provider.callback());
console.log(issuer);
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
