//! The OAuth connect flow over real HTTP, against a real authorization
//! server: `oidc-provider` from npm (`examples/tests/oauth/authorization_server.mjs`,
//! installed by `scripts/oidc-install` into `MRTR_GUARD_OIDC_DIR`, default
//! `.interop/oidc`; skipped outside CI when absent). `import_contacts`
//! sends a connect link; alice's browser (a small HTTP/1.1 user agent with
//! a cookie jar per origin) opens it, is sent to the provider, signs in as
//! carol on its login page, consents, comes back with a code; the route
//! exchanges it with the PKCE verifier and keeps the tokens; the retry
//! completes the tool. Then: a forged `state`, a replayed `state`, alice's
//! `state` brought back by bob's browser, and a code bound to another PKCE
//! challenge: each refused, nothing stored.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::panic,
    reason = "test code: a panic is a failing test"
)]

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead as _, BufReader, Write as _};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;

use mrtr_guard::connect::route::ConnectRoute;
use mrtr_guard::connect::{Connector, MemoryConnectionStore, OAuthProvider};
use mrtr_guard::{Flow, KeyRing, MasterKey, StateCodec};
use mrtr_guard_examples::connect_tools::{self, CONTACTS};
use mrtr_guard_examples::serve;
use mrtr_guard_examples::signup_service::{Signup, session_user};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};

use super::client::{rpc, state_of, text_of};

const CLIENT_ID: &str = "mrtr-guard-demo";
const CLIENT_SECRET: &str = "demo-client-secret-0123456789";

/// The authorization server's process: ended when dropped (its stdin
/// closes, and it is killed).
struct AuthorizationServer {
    child: Child,
    issuer: String,
}

impl Drop for AuthorizationServer {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Where oidc-provider is installed, if anywhere.
fn oidc_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("MRTR_GUARD_OIDC_DIR").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.interop/oidc"),
        PathBuf::from,
    );
    if dir
        .join("node_modules/oidc-provider/package.json")
        .is_file()
    {
        return Some(dir);
    }
    if std::env::var_os("CI").is_some() {
        panic!("oidc-provider is not installed: CI must run scripts/oidc-install");
    }
    let _ = writeln!(
        std::io::stderr(),
        "notice: oidc-provider is not installed (scripts/oidc-install .interop/oidc); skipping"
    );
    None
}

/// Starts oidc-provider with one client whose redirect URI is `redirect`.
fn authorization_server(dir: &PathBuf, redirect: &str) -> AuthorizationServer {
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/oauth/authorization_server.mjs");
    let mut child = Command::new("node")
        .arg(script)
        .env("MRTR_GUARD_OIDC_DIR", dir)
        .env("MRTR_GUARD_OIDC_CLIENT_ID", CLIENT_ID)
        .env("MRTR_GUARD_OIDC_CLIENT_SECRET", CLIENT_SECRET)
        .env("MRTR_GUARD_OIDC_REDIRECT_URI", redirect)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut issuer = String::new();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    stdout.read_line(&mut issuer).unwrap();
    // Whatever else it writes is read (and dropped) until it ends, so that
    // it never writes into a closed pipe.
    std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
    let issuer = issuer.trim().to_owned();
    assert!(issuer.starts_with("http://127.0.0.1:"), "{issuer:?}");
    AuthorizationServer { child, issuer }
}

/// The demo with its connect route, and the authorization server its
/// `import_contacts` connects to; `None` when oidc-provider is absent.
async fn start() -> Option<(SocketAddr, Arc<Connector>, AuthorizationServer)> {
    let dir = oidc_dir()?;
    let listener = TcpListener::bind(("127.0.0.1", 0)).await.unwrap();
    let addr = listener.local_addr().unwrap();
    let route_url = format!("http://{addr}/connect");
    let server = authorization_server(&dir, &route_url);
    let provider = OAuthProvider::new(
        CLIENT_ID,
        format!("{}/auth", server.issuer),
        format!("{}/token", server.issuer),
    )
    .client_secret(CLIENT_SECRET)
    .scopes(["openid", "contacts.read"])
    .issuer(server.issuer.clone());
    let builder = Connector::builder(
        route_url,
        KeyRing::new(MasterKey::from_bytes(&[0x43; 32]).unwrap()),
        Arc::new(MemoryConnectionStore::new(64)),
    );
    let connector = connect_tools::connect(builder, Some(provider)).unwrap();
    let codec = StateCodec::builder(
        format!("http://{addr}/mcp"),
        MasterKey::from_bytes(&[0x42; 32]).unwrap(),
    )
    .build()
    .unwrap();
    let route = ConnectRoute::new(Arc::clone(&connector), session_user);
    let service =
        Signup::service_connected(Flow::new(codec), Arc::clone(&connector), |builder| builder)
            .unwrap();
    let app = serve::router_connected(service, route);
    tokio::spawn(async move { axum::serve(listener, app).await });
    Some((addr, connector, server))
}

fn url_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"url": {}}},
    })
}

/// alice calls `import_contacts`: the link, and the state to retry with.
async fn ask(addr: SocketAddr) -> (String, String) {
    let params = json!({"name": "import_contacts", "arguments": {}, "_meta": url_meta()});
    let asked = rpc(addr, "alice", "tools/call", "import_contacts", &params).await;
    let state = state_of(&asked).unwrap_or_else(|| panic!("{asked}"));
    let ask = &asked["result"]["inputRequests"]["contacts"]["params"];
    assert_eq!(ask["mode"], "url", "{asked}");
    (ask["url"].as_str().unwrap().to_owned(), state)
}

async fn retry(addr: SocketAddr, state: &str) -> Value {
    let params = json!({"name": "import_contacts", "arguments": {},
        "inputResponses": {"contacts": {"action": "accept"}},
        "requestState": state, "_meta": url_meta()});
    rpc(addr, "alice", "tools/call", "import_contacts", &params).await
}

/// One response, as a user agent sees it.
#[derive(Debug)]
struct Page {
    url: String,
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Page {
    fn location(&self) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == "location")
            .map(|(_, v)| v.as_str())
    }
}

/// A user agent: one cookie jar per origin, redirects followed on request.
#[derive(Default)]
struct Browser {
    jars: HashMap<String, BTreeMap<String, String>>,
}

/// An absolute URL's origin (`host:port`) and its path and query.
fn split(url: &str) -> (String, String) {
    let rest = url
        .strip_prefix("http://")
        .unwrap_or_else(|| panic!("{url}"));
    let at = rest.find('/').unwrap_or(rest.len());
    let path = if at == rest.len() { "/" } else { &rest[at..] };
    (rest[..at].to_owned(), path.to_owned())
}

impl Browser {
    /// A browser signed in at the demo (`demo_user`) as `user`.
    fn signed_in(addr: SocketAddr, user: &str) -> Self {
        let mut browser = Self::default();
        browser
            .jars
            .entry(addr.to_string())
            .or_default()
            .insert("demo_user".to_owned(), user.to_owned());
        browser
    }

    async fn request(&mut self, method: &str, url: &str, form: Option<&str>) -> Page {
        let (origin, path) = split(url);
        let body = form.unwrap_or_default();
        let mut request = format!(
            "{method} {path} HTTP/1.1\r\nHost: {origin}\r\nConnection: close\r\nContent-Length: {}\r\n",
            body.len()
        );
        if form.is_some() {
            request.push_str("Content-Type: application/x-www-form-urlencoded\r\n");
        }
        if let Some(jar) = self.jars.get(&origin).filter(|jar| !jar.is_empty()) {
            let cookies: Vec<String> = jar.iter().map(|(n, v)| format!("{n}={v}")).collect();
            request.push_str(&format!("Cookie: {}\r\n", cookies.join("; ")));
        }
        request.push_str("\r\n");
        request.push_str(body);
        let mut stream = TcpStream::connect(&origin).await.unwrap();
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).await.unwrap();
        let raw = String::from_utf8_lossy(&raw).into_owned();
        let (head, body) = raw.split_once("\r\n\r\n").unwrap();
        let mut lines = head.lines();
        let status = lines.next().unwrap()[9..12].parse().unwrap();
        let headers: Vec<(String, String)> = lines
            .filter_map(|line| line.split_once(": "))
            .map(|(n, v)| (n.to_ascii_lowercase(), v.to_owned()))
            .collect();
        for (_, set) in headers.iter().filter(|(n, _)| n == "set-cookie") {
            let pair = set.split(';').next().unwrap();
            if let Some((name, value)) = pair.split_once('=') {
                self.jars
                    .entry(origin.clone())
                    .or_default()
                    .insert(name.to_owned(), value.to_owned());
            }
        }
        Page {
            url: url.to_owned(),
            status,
            headers,
            body: body.to_owned(),
        }
    }

    /// `GET url`, following redirects while `follow` says so of the next
    /// URL.
    async fn get(&mut self, url: &str, follow: impl Fn(&str) -> bool) -> Page {
        let mut page = self.request("GET", url, None).await;
        for _ in 0..10 {
            let Some(next) = page
                .location()
                .map(|location| absolute(&page.url, location))
            else {
                break;
            };
            if !(300..400).contains(&page.status) || !follow(&next) {
                break;
            }
            page = self.request("GET", &next, None).await;
        }
        page
    }

    /// Submits the page's one form with `fields` added to its hidden
    /// inputs, then follows redirects while `follow` says so.
    async fn submit(
        &mut self,
        page: &Page,
        fields: &[(&str, &str)],
        follow: impl Fn(&str) -> bool,
    ) -> Page {
        let action = attribute(&page.body, "<form", "action").unwrap_or_else(|| page.url.clone());
        let mut form = form_urlencoded::Serializer::new(String::new());
        for input in page.body.split("<input").skip(1) {
            if input.contains("type=\"hidden\"") {
                let name = attribute(input, "", "name").unwrap();
                let value = attribute(input, "", "value").unwrap_or_default();
                form.append_pair(&name, &value);
            }
        }
        for (name, value) in fields {
            form.append_pair(name, value);
        }
        let posted = self
            .request("POST", &absolute(&page.url, &action), Some(&form.finish()))
            .await;
        match posted
            .location()
            .map(|location| absolute(&page.url, location))
        {
            Some(next) if follow(&next) => self.get(&next, follow).await,
            _ => posted,
        }
    }
}

/// `attr="..."` of the first `tag` in `html`.
fn attribute(html: &str, tag: &str, attr: &str) -> Option<String> {
    let from = html.find(tag)?;
    let needle = format!("{attr}=\"");
    let at = html[from..].find(&needle)? + from + needle.len();
    let end = html[at..].find('"')? + at;
    Some(html[at..end].replace("&amp;", "&"))
}

fn absolute(base: &str, location: &str) -> String {
    if location.starts_with("http://") {
        return location.to_owned();
    }
    let (origin, _) = split(base);
    format!("http://{origin}{location}")
}

/// Through the provider's login (as `account`) and consent pages, from
/// the link's redirect to the provider, to the redirect back to the
/// connect route (not followed when `back` is false).
async fn authorize(
    browser: &mut Browser,
    link: &str,
    issuer: &str,
    account: &str,
    back: bool,
) -> Page {
    let at_provider = |url: &str| url.starts_with(issuer);
    let login = browser.get(link, at_provider).await;
    assert_eq!(login.status, 200, "{login:?}");
    assert!(
        login.url.starts_with(issuer),
        "the link leads to the provider: {}",
        login.url
    );
    assert!(login.body.contains("name=\"login\""), "{}", login.body);
    let consent = browser
        .submit(
            &login,
            &[("login", account), ("password", "any")],
            at_provider,
        )
        .await;
    assert!(consent.body.contains("value=\"consent\""), "{consent:?}");
    browser
        .submit(&consent, &[], |url| at_provider(url) || back)
        .await
}

fn stored(connector: &Connector, user: &str) -> bool {
    connector
        .connection(Some(user), CONTACTS)
        .unwrap()
        .is_some()
}

#[tokio::test]
async fn the_oauth_connect_flow_completes_against_a_real_authorization_server() {
    let Some((addr, connector, server)) = start().await else {
        return;
    };
    // A link leads to the provider with PKCE S256 and a sealed state that
    // names no one.
    let (peek, _) = ask(addr).await;
    let redirect = Browser::signed_in(addr, "alice")
        .get(&peek, |_| false)
        .await;
    assert_eq!(redirect.status, 303, "{redirect:?}");
    let to_provider = redirect.location().unwrap();
    assert!(
        to_provider.starts_with(&format!("{}/auth?", server.issuer)),
        "{to_provider}"
    );
    assert!(
        to_provider.contains("code_challenge_method=S256"),
        "{to_provider}"
    );
    assert!(!to_provider.contains("alice"), "{to_provider}");

    let (link, state) = ask(addr).await;
    let mut alice = Browser::signed_in(addr, "alice");
    let done = authorize(&mut alice, &link, &server.issuer, "carol", true).await;
    assert_eq!(done.status, 200, "{done:?}");
    assert!(done.body.contains("Connected"), "{}", done.body);

    let completed = retry(addr, &state).await;
    let text = text_of(&completed).unwrap_or_else(|| panic!("{completed}"));
    assert!(text.contains("contacts.read"), "{text}");
    let connection = connector
        .connection(Some("alice"), CONTACTS)
        .unwrap()
        .unwrap();
    let token = connection.access_token().unwrap();
    assert!(
        !completed.to_string().contains(token),
        "the token reached the client"
    );
    // The token is carol's at the provider: its userinfo endpoint says so.
    let (origin, _) = split(&server.issuer);
    let mut stream = TcpStream::connect(&origin).await.unwrap();
    let request = format!(
        "GET /me HTTP/1.1\r\nHost: {origin}\r\nAuthorization: Bearer {token}\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut me = String::new();
    stream.read_to_string(&mut me).await.unwrap();
    assert!(me.starts_with("HTTP/1.1 200"), "{me}");
    assert!(me.contains("\"sub\":\"carol\""), "{me}");
    assert!(!stored(&connector, "bob"));
}

/// A `state` that is not one the route sealed, and one brought back a
/// second time: refused before any exchange, nothing stored.
#[tokio::test]
async fn a_forged_or_replayed_state_is_refused() {
    let Some((addr, connector, server)) = start().await else {
        return;
    };
    let mut alice = Browser::signed_in(addr, "alice");
    let forged = format!("http://{addr}/connect?code=abc&state=not-a-state");
    let page = alice.get(&forged, |_| false).await;
    assert_eq!(page.status, 404, "{page:?}");
    assert!(!stored(&connector, "alice"));

    let (link, _) = ask(addr).await;
    let back = authorize(&mut alice, &link, &server.issuer, "carol", false).await;
    let callback = absolute(&back.url, back.location().unwrap());
    assert!(
        callback.starts_with(&format!("http://{addr}/connect?code=")),
        "{callback}"
    );
    let done = alice.get(&callback, |_| false).await;
    assert_eq!(done.status, 200, "{done:?}");
    let first = connector
        .connection(Some("alice"), CONTACTS)
        .unwrap()
        .unwrap();
    let replayed = alice.get(&callback, |_| false).await;
    assert_eq!(replayed.status, 404, "{replayed:?}");
    let after = connector
        .connection(Some("alice"), CONTACTS)
        .unwrap()
        .unwrap();
    assert_eq!(
        first.access_token(),
        after.access_token(),
        "the replay changed nothing"
    );
}

/// Alice's redirect back (code and state) opened in bob's browser: bob is
/// not the state's principal, and his browser has not its cookie. Refused,
/// nothing stored for either, and alice's own browser can still finish.
#[tokio::test]
async fn alices_state_brought_back_by_bobs_browser_stores_nothing() {
    let Some((addr, connector, server)) = start().await else {
        return;
    };
    let (link, _) = ask(addr).await;
    let mut alice = Browser::signed_in(addr, "alice");
    let back = authorize(&mut alice, &link, &server.issuer, "carol", false).await;
    let callback = absolute(&back.url, back.location().unwrap());
    let mut bob = Browser::signed_in(addr, "bob");
    let page = bob.get(&callback, |_| false).await;
    assert_eq!(page.status, 404, "{page:?}");
    assert!(!stored(&connector, "alice") && !stored(&connector, "bob"));
    let done = alice.get(&callback, |_| false).await;
    assert_eq!(done.status, 200, "{done:?}");
    assert!(stored(&connector, "alice") && !stored(&connector, "bob"));
}

/// A code issued for another PKCE challenge (another link's flow), brought
/// back with a genuine state in its own browser: the verifier the route
/// derives from the state does not match, the provider refuses the
/// exchange, and nothing is stored.
#[tokio::test]
async fn a_code_without_the_verifiers_match_is_refused() {
    let Some((addr, connector, server)) = start().await else {
        return;
    };
    let (first, _) = ask(addr).await;
    let (second, _) = ask(addr).await;
    let mut alice = Browser::signed_in(addr, "alice");
    let to_provider = alice.get(&first, |_| false).await;
    let first_state = query(to_provider.location().unwrap(), "state");
    // Each link binds a cookie of its own: the second flow leaves the
    // first one's in the browser.
    let back = authorize(&mut alice, &second, &server.issuer, "carol", false).await;
    let second_code = query(back.location().unwrap(), "code");
    let cookies = alice.jars[&addr.to_string()]
        .keys()
        .filter(|name| name.starts_with("mrtr_connect_"));
    assert_eq!(cookies.count(), 2);
    let iss: String = form_urlencoded::byte_serialize(server.issuer.as_bytes()).collect();
    let injected =
        format!("http://{addr}/connect?code={second_code}&state={first_state}&iss={iss}");
    let page = alice.get(&injected, |_| false).await;
    assert_eq!(page.status, 502, "{page:?}");
    assert!(page.body.contains("Nothing was saved"), "{}", page.body);
    assert!(!stored(&connector, "alice"));
}

/// The value of `name` in `url`'s query.
fn query(url: &str, name: &str) -> String {
    let query = url.split_once('?').unwrap().1;
    form_urlencoded::parse(query.as_bytes())
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.into_owned())
        .unwrap_or_else(|| panic!("{name} in {url}"))
}

/// A redirect back whose `iss` names another authorization server (RFC
/// 9207, a mix-up): refused before the state is used, nothing stored; the
/// genuine redirect then completes.
#[tokio::test]
async fn a_response_from_another_issuer_is_refused() {
    let Some((addr, connector, server)) = start().await else {
        return;
    };
    let (link, _) = ask(addr).await;
    let mut alice = Browser::signed_in(addr, "alice");
    let back = authorize(&mut alice, &link, &server.issuer, "carol", false).await;
    let callback = absolute(&back.url, back.location().unwrap());
    let iss = query(&callback, "iss");
    assert_eq!(iss, server.issuer);
    let mixed_up = callback.replace(
        &form_urlencoded::byte_serialize(iss.as_bytes()).collect::<String>(),
        "https%3A%2F%2Fevil.example",
    );
    assert_ne!(mixed_up, callback);
    let page = alice.get(&mixed_up, |_| false).await;
    assert_eq!(page.status, 404, "{page:?}");
    assert!(!stored(&connector, "alice"));
    let done = alice.get(&callback, |_| false).await;
    assert_eq!(done.status, 200, "{done:?}");
    assert!(stored(&connector, "alice"));
}
