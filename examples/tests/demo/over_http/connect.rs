//! The connect flow over real HTTP: `weather_report` asks its API key
//! through a connect link; the browser (a few lines of HTTP/1.1, its
//! sign-in the demo's `demo_user` cookie) opens the link at the demo's
//! `/connect` route, types the key on the page, and the retry completes the
//! tool. Then each attack the specification's "Phishing" section and the
//! route defend against: alice's link opened by bob's browser, a changed
//! link, a replayed link, an expired link, a post without the page's
//! cookie, a replayed ticket, a stolen ticket and cookie posted by another
//! user, an invalid key: each refused, and nothing stored for anyone.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    reason = "test code: a panic is a failing test"
)]

use std::net::SocketAddr;
use std::sync::Arc;

use mrtr_guard::connect::Connector;
use mrtr_guard::connect::route::ConnectRoute;
use mrtr_guard::{Flow, KeyRing, MasterKey, StateCodec};
use mrtr_guard_examples::connect_tools::{WEATHER, weather_form};
use mrtr_guard_examples::serve;
use mrtr_guard_examples::signup_service::{Signup, session_user};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};

use super::client::{rpc, state_of, text_of};

/// A key of the weather service: what alice types on the page.
const ALICE_KEY: &str = "wx-alice-0123456789abcdef";
const BOB_KEY: &str = "wx-bob-0123456789abcdef";

/// The demo with its connect route, on a free loopback port; links open
/// for `link_ttl`.
async fn start(link_ttl: time::Duration) -> (SocketAddr, Arc<Connector>) {
    let listener = TcpListener::bind(("127.0.0.1", 0)).await.unwrap();
    let addr = listener.local_addr().unwrap();
    let audience = format!("http://{addr}/mcp");
    let codec = StateCodec::builder(&audience, MasterKey::from_bytes(&[0x42; 32]).unwrap())
        .build()
        .unwrap();
    let store = Arc::new(mrtr_guard::connect::MemoryConnectionStore::new(64));
    let connector = Arc::new(
        Connector::builder(
            format!("http://{addr}/connect"),
            KeyRing::new(MasterKey::from_bytes(&[0x43; 32]).unwrap()),
            store,
        )
        .secret(WEATHER, weather_form().unwrap())
        .link_ttl(link_ttl)
        .build()
        .unwrap(),
    );
    let route = ConnectRoute::new(Arc::clone(&connector), session_user);
    let service =
        Signup::service_connected(Flow::new(codec), Arc::clone(&connector), |builder| builder)
            .unwrap();
    let app = serve::router_connected(service, route);
    tokio::spawn(async move { axum::serve(listener, app).await });
    (addr, connector)
}

async fn demo() -> (SocketAddr, Arc<Connector>) {
    start(time::Duration::minutes(5)).await
}

/// `_meta` of a client that can open URLs.
fn url_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"url": {}}},
    })
}

fn call(city: &str) -> Value {
    json!({"name": "weather_report", "arguments": {"city": city}, "_meta": url_meta()})
}

fn accept(city: &str, state: &str) -> Value {
    json!({"name": "weather_report", "arguments": {"city": city},
           "inputResponses": {"weather-key": {"action": "accept"}},
           "requestState": state, "_meta": url_meta()})
}

/// The link a `weather_report` answer asks the client to open, and its state.
fn link_of(answer: &Value) -> (String, String) {
    let state = state_of(answer).unwrap_or_else(|| panic!("not input_required: {answer}"));
    let ask = &answer["result"]["inputRequests"]["weather-key"];
    assert_eq!(ask["method"], "elicitation/create", "{answer}");
    assert_eq!(ask["params"]["mode"], "url", "{answer}");
    (ask["params"]["url"].as_str().unwrap().to_owned(), state)
}

/// A browser's response: status, headers (names lower-cased), body.
struct Page {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Page {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The page's CSRF cookie, as the browser sends it back.
    fn cookie(&self) -> String {
        let set = self.header("set-cookie").unwrap();
        set.split(';').next().unwrap().to_owned()
    }

    /// The value of the page's hidden ticket.
    fn ticket(&self) -> String {
        let at = self.body.find("name=\"ticket\" value=\"").unwrap() + 21;
        let rest = &self.body[at..];
        rest[..rest.find('"').unwrap()].to_owned()
    }
}

/// One browser request to the route: `GET` of `url`, or `POST` of `form`.
async fn browse(
    addr: SocketAddr,
    method: &str,
    target: &str,
    cookies: &[&str],
    form: Option<&str>,
) -> Page {
    let body = form.unwrap_or_default();
    let mut request = format!(
        "{method} {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\
         Content-Length: {}\r\n",
        body.len()
    );
    if form.is_some() {
        request.push_str("Content-Type: application/x-www-form-urlencoded\r\n");
    }
    if !cookies.is_empty() {
        request.push_str(&format!("Cookie: {}\r\n", cookies.join("; ")));
    }
    request.push_str("\r\n");
    request.push_str(body);
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await.unwrap();
    let response = String::from_utf8(response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    let mut lines = head.lines();
    let status = lines.next().unwrap()[9..12].parse().unwrap();
    let headers = lines
        .filter_map(|line| line.split_once(": "))
        .map(|(n, v)| (n.to_ascii_lowercase(), v.to_owned()))
        .collect();
    Page {
        status,
        headers,
        body: body.to_owned(),
    }
}

/// The path and query of a link.
fn target_of(link: &str) -> String {
    let rest = link.split_once("://").unwrap().1;
    rest[rest.find('/').unwrap()..].to_owned()
}

/// `user`'s browser opens `link`.
async fn open(addr: SocketAddr, user: &str, link: &str) -> Page {
    let signed_in = format!("demo_user={user}");
    browse(addr, "GET", &target_of(link), &[&signed_in], None).await
}

/// `user`'s browser posts the page with `ticket`, the `csrf` cookie and
/// the key.
async fn post(addr: SocketAddr, user: &str, csrf: Option<&str>, ticket: &str, key: &str) -> Page {
    let signed_in = format!("demo_user={user}");
    let mut cookies = vec![signed_in.as_str()];
    cookies.extend(csrf);
    let form: String = form_urlencoded::Serializer::new(String::new())
        .append_pair("ticket", ticket)
        .append_pair("apiKey", key)
        .finish();
    browse(addr, "POST", "/connect", &cookies, Some(&form)).await
}

fn refused(page: &Page) {
    assert_eq!(page.status, 404, "{}", page.body);
    assert!(
        page.body.contains("This link cannot be used"),
        "{}",
        page.body
    );
}

/// Neither alice nor bob has a connection.
fn nothing_stored(connector: &Connector) {
    for user in ["alice", "bob"] {
        assert!(
            connector.connection(Some(user), WEATHER).unwrap().is_none(),
            "{user}"
        );
    }
}

/// The retry of alice's ask, once her link's step did not complete: asked
/// again with a fresh link, saying what to do.
async fn asked_again(addr: SocketAddr, state: &str, link: &str) {
    let again = rpc(
        addr,
        "alice",
        "tools/call",
        "weather_report",
        &accept("Paris", state),
    )
    .await;
    let (fresh, _) = link_of(&again);
    assert_ne!(fresh, link);
    let message = again["result"]["inputRequests"]["weather-key"]["params"]["message"]
        .as_str()
        .unwrap();
    assert!(message.contains("not completed"), "{message}");
}

#[tokio::test]
async fn the_connect_page_completes_the_tool_and_the_key_never_reaches_the_client() {
    let (addr, connector) = demo().await;
    let asked = rpc(
        addr,
        "alice",
        "tools/call",
        "weather_report",
        &call("Paris"),
    )
    .await;
    let (link, state) = link_of(&asked);
    assert!(
        link.starts_with(&format!("http://{addr}/connect?link=")),
        "{link}"
    );
    assert!(
        !link.contains("alice") && !link.contains("weather"),
        "{link}"
    );

    let page = open(addr, "alice", &link).await;
    assert_eq!(page.status, 200, "{}", page.body);
    for (name, value) in [
        ("x-frame-options", "DENY"),
        ("cache-control", "no-store"),
        ("referrer-policy", "no-referrer"),
        ("x-content-type-options", "nosniff"),
    ] {
        assert_eq!(page.header(name), Some(value), "{name}");
    }
    let csp = page.header("content-security-policy").unwrap();
    assert!(csp.contains("default-src 'none'") && csp.contains("frame-ancestors 'none'"));
    let set_cookie = page.header("set-cookie").unwrap();
    assert!(set_cookie.starts_with("mrtr_connect_"), "{set_cookie}");
    for part in [
        "HttpOnly",
        "SameSite=Strict",
        "Path=/connect",
        "Max-Age=300",
    ] {
        assert!(set_cookie.contains(part), "{part}: {set_cookie}");
    }
    assert!(page.body.contains("type=\"password\"") && !page.body.contains("<script"));
    assert!(
        !page.body.contains("http://") && !page.body.contains("https://"),
        "no asset"
    );

    let done = post(
        addr,
        "alice",
        Some(&page.cookie()),
        &page.ticket(),
        ALICE_KEY,
    )
    .await;
    assert_eq!(done.status, 200, "{}", done.body);
    assert!(!done.body.contains(ALICE_KEY));

    let completed = rpc(
        addr,
        "alice",
        "tools/call",
        "weather_report",
        &accept("Paris", &state),
    )
    .await;
    let text = text_of(&completed).unwrap_or_else(|| panic!("{completed}"));
    assert_eq!(
        text,
        format!(
            "Weather for Paris: sunny. Fetched with your {}-character API key.",
            ALICE_KEY.len()
        )
    );
    assert!(!completed.to_string().contains(ALICE_KEY));
    let stored = connector
        .connection(Some("alice"), WEATHER)
        .unwrap()
        .unwrap();
    assert_eq!(stored.secret("apiKey"), Some(ALICE_KEY));
    assert!(
        connector
            .connection(Some("bob"), WEATHER)
            .unwrap()
            .is_none()
    );
}

/// The specification's phishing scenario: alice triggers the ask and sends
/// bob the link; bob, signed in as himself, is told it was made for another
/// account, can type nothing, and nothing is stored for either. The link
/// stays unused: alice can still complete it.
#[tokio::test]
async fn alices_link_opened_by_bobs_browser_stores_nothing_and_bob_sees_why() {
    let (addr, connector) = demo().await;
    let asked = rpc(
        addr,
        "alice",
        "tools/call",
        "weather_report",
        &call("Paris"),
    )
    .await;
    let (link, state) = link_of(&asked);

    let bobs = open(addr, "bob", &link).await;
    assert_eq!(bobs.status, 403, "{}", bobs.body);
    assert!(
        bobs.body.contains("made for another account"),
        "{}",
        bobs.body
    );
    assert!(!bobs.body.contains("name=\"ticket\""), "no form for bob");
    assert!(bobs.header("set-cookie").is_none());
    nothing_stored(&connector);
    asked_again(addr, &state, &link).await;

    let not_signed_in = browse(addr, "GET", &target_of(&link), &[], None).await;
    assert_eq!(not_signed_in.status, 401, "{}", not_signed_in.body);

    let alices = open(addr, "alice", &link).await;
    assert_eq!(
        alices.status, 200,
        "the link stayed unused: {}",
        alices.body
    );
}

/// Bob steals alice's page (ticket and cookie) and posts his own key with
/// them: refused as an unknown link, nothing stored.
#[tokio::test]
async fn a_stolen_ticket_posted_by_another_user_is_refused() {
    let (addr, connector) = demo().await;
    let asked = rpc(
        addr,
        "alice",
        "tools/call",
        "weather_report",
        &call("Paris"),
    )
    .await;
    let (link, _) = link_of(&asked);
    let page = open(addr, "alice", &link).await;
    refused(&post(addr, "bob", Some(&page.cookie()), &page.ticket(), BOB_KEY).await);
    nothing_stored(&connector);
}

#[tokio::test]
async fn a_modified_link_is_refused() {
    let (addr, connector) = demo().await;
    let asked = rpc(
        addr,
        "alice",
        "tools/call",
        "weather_report",
        &call("Paris"),
    )
    .await;
    let (link, _) = link_of(&asked);
    let at = link.find("link=").unwrap() + 12;
    for change in [b'A', b'B'] {
        let mut changed = link.clone().into_bytes();
        if changed[at] == change {
            continue;
        }
        changed[at] = change;
        refused(&open(addr, "alice", &String::from_utf8(changed).unwrap()).await);
    }
    refused(&open(addr, "alice", &link[..link.len() - 3]).await);
    refused(&open(addr, "alice", &format!("{link}&link=x")).await);
    refused(&browse(addr, "GET", "/connect", &["demo_user=alice"], None).await);
    nothing_stored(&connector);
}

#[tokio::test]
async fn a_replayed_link_is_refused() {
    let (addr, connector) = demo().await;
    let asked = rpc(
        addr,
        "alice",
        "tools/call",
        "weather_report",
        &call("Paris"),
    )
    .await;
    let (link, _) = link_of(&asked);
    assert_eq!(open(addr, "alice", &link).await.status, 200);
    refused(&open(addr, "alice", &link).await);
    nothing_stored(&connector);
}

#[tokio::test]
async fn an_expired_link_is_refused() {
    let (addr, connector) = start(time::Duration::seconds(1)).await;
    let asked = rpc(
        addr,
        "alice",
        "tools/call",
        "weather_report",
        &call("Paris"),
    )
    .await;
    let (link, _) = link_of(&asked);
    tokio::time::sleep(std::time::Duration::from_millis(2100)).await;
    refused(&open(addr, "alice", &link).await);
    nothing_stored(&connector);
}

/// A cross-site post carries the user's sign-in but not the page's
/// `SameSite=Strict` cookie (or carries another one): refused, nothing
/// stored; and a used ticket does not post twice.
#[tokio::test]
async fn a_post_without_the_pages_cookie_or_twice_is_refused() {
    let (addr, connector) = demo().await;
    let asked = rpc(
        addr,
        "alice",
        "tools/call",
        "weather_report",
        &call("Paris"),
    )
    .await;
    let (link, state) = link_of(&asked);
    let page = open(addr, "alice", &link).await;
    let ticket = page.ticket();
    refused(&post(addr, "alice", None, &ticket, ALICE_KEY).await);
    let cookie = page.cookie();
    let (name, _) = cookie.split_once('=').unwrap();
    let forged = format!("{name}=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
    refused(&post(addr, "alice", Some(&forged), &ticket, ALICE_KEY).await);
    let mut changed = ticket.clone().into_bytes();
    changed[10] = if changed[10] == b'A' { b'B' } else { b'A' };
    let changed = String::from_utf8(changed).unwrap();
    refused(&post(addr, "alice", Some(&page.cookie()), &changed, ALICE_KEY).await);
    nothing_stored(&connector);
    asked_again(addr, &state, &link).await;

    let done = post(addr, "alice", Some(&page.cookie()), &ticket, ALICE_KEY).await;
    assert_eq!(done.status, 200, "{}", done.body);
    refused(
        &post(
            addr,
            "alice",
            Some(&page.cookie()),
            &ticket,
            "wx-replayed-0123456789",
        )
        .await,
    );
    let stored = connector
        .connection(Some("alice"), WEATHER)
        .unwrap()
        .unwrap();
    assert_eq!(stored.secret("apiKey"), Some(ALICE_KEY));
}

/// A key the form refuses (too short) shows the page again with the reason
/// and never the value; nothing is stored until a valid one is posted.
#[tokio::test]
async fn the_pages_answer_is_validated_and_never_echoed() {
    let (addr, connector) = demo().await;
    let asked = rpc(
        addr,
        "alice",
        "tools/call",
        "weather_report",
        &call("Paris"),
    )
    .await;
    let (link, _) = link_of(&asked);
    let page = open(addr, "alice", &link).await;
    let short = "wx-short-k3y";
    let invalid = post(addr, "alice", Some(&page.cookie()), &page.ticket(), short).await;
    assert_eq!(invalid.status, 422, "{}", invalid.body);
    assert!(invalid.body.contains("apiKey"), "{}", invalid.body);
    assert!(!invalid.body.contains(short), "{}", invalid.body);
    nothing_stored(&connector);
    let done = post(
        addr,
        "alice",
        Some(&page.cookie()),
        &invalid.ticket(),
        ALICE_KEY,
    )
    .await;
    assert_eq!(done.status, 200, "{}", done.body);
}

/// A client that cannot open URLs is told so (`-32021` naming
/// `elicitation.url`), and no link is minted for it.
#[tokio::test]
async fn a_client_without_url_mode_gets_32021() {
    let (addr, _) = demo().await;
    let forms_only = json!({"name": "weather_report", "arguments": {"city": "Paris"},
        "_meta": super::client::meta()});
    let refused = rpc(addr, "alice", "tools/call", "weather_report", &forms_only).await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    assert!(refused.to_string().contains("url"), "{refused}");
}

/// The same tool on a `2025-11-25` session: the link goes out as a
/// server-initiated URL-mode `elicitation/create` (with its
/// `elicitationId`), the browser completes the page, the client's
/// `accept` over the session completes the call; another principal's
/// browser stored nothing on the way.
#[tokio::test]
async fn the_tool_completes_on_a_2025_11_25_session() {
    use super::sessions::send;

    let (addr, connector) = demo().await;
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {"elicitation": {"url": {}}},
        "clientInfo": {"name": "connect-test", "version": "0"}}});
    let reply = send(addr, "POST", Some("alice"), None, &[], Some(&init))
        .await
        .finish()
        .await;
    assert_eq!(reply.status, 200);
    let session = reply.header("mcp-session-id").unwrap().to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let reply = send(
        addr,
        "POST",
        Some("alice"),
        Some(&session),
        &[],
        Some(&initialized),
    )
    .await;
    assert_eq!(reply.status, 202);

    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "weather_report", "arguments": {"city": "Oslo"}}});
    let mut call = send(
        addr,
        "POST",
        Some("alice"),
        Some(&session),
        &[],
        Some(&call),
    )
    .await;
    assert_eq!(call.status, 200);
    let ask = call.next_message().await;
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    assert_eq!(ask["params"]["mode"], "url", "{ask}");
    assert!(
        ask["params"]["elicitationId"]
            .as_str()
            .is_some_and(|id| !id.is_empty()),
        "{ask}"
    );
    let link = ask["params"]["url"].as_str().unwrap().to_owned();

    assert_eq!(open(addr, "bob", &link).await.status, 403);
    let page = open(addr, "alice", &link).await;
    let done = post(
        addr,
        "alice",
        Some(&page.cookie()),
        &page.ticket(),
        ALICE_KEY,
    )
    .await;
    assert_eq!(done.status, 200, "{}", done.body);

    let accept = json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept"}});
    let reply = send(
        addr,
        "POST",
        Some("alice"),
        Some(&session),
        &[],
        Some(&accept),
    )
    .await;
    assert_eq!(reply.status, 202);
    let result = call.next_message().await;
    assert_eq!(result["id"], 7, "{result}");
    let text = result["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert_eq!(
        text,
        format!(
            "Weather for Oslo: sunny. Fetched with your {}-character API key.",
            ALICE_KEY.len()
        ),
        "{result}"
    );
    assert!(!result.to_string().contains(ALICE_KEY));
    assert!(
        connector
            .connection(Some("bob"), WEATHER)
            .unwrap()
            .is_none()
    );
}

/// The same tool as a task (a client with the Tasks extension): the link
/// is asked inside the task and parked; an `accept` before the step
/// completed asks again with a fresh link; once the browser completed the
/// page, `tasks/update` with the `accept` resumes the task, which completes
/// with the key read from the store.
#[tokio::test]
async fn the_tool_completes_inside_a_task() {
    use super::tasks::{outstanding, settled, update};

    let (addr, connector) = demo().await;
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "elicitation": {"url": {}},
            "extensions": {"io.modelcontextprotocol/tasks": {}},
        },
    });
    let params = json!({"name": "weather_report", "arguments": {"city": "Lima"}, "_meta": meta});
    let created = rpc(addr, "alice", "tools/call", "weather_report", &params).await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();

    let parked = settled(addr, "alice", &id).await;
    let key = outstanding(&parked);
    let ask = &parked["inputRequests"][&key];
    assert_eq!(ask["params"]["mode"], "url", "{parked}");
    let link = ask["params"]["url"].as_str().unwrap().to_owned();

    let early = update(
        addr,
        "alice",
        &id,
        json!({key.clone(): {"action": "accept"}}),
    )
    .await;
    assert_eq!(
        early["result"],
        json!({"resultType": "complete"}),
        "{early}"
    );
    let again = settled(addr, "alice", &id).await;
    let key = outstanding(&again);
    let fresh = again["inputRequests"][&key]["params"]["url"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_ne!(fresh, link, "{again}");
    assert!(
        connector
            .connection(Some("alice"), WEATHER)
            .unwrap()
            .is_none()
    );

    assert_eq!(open(addr, "bob", &fresh).await.status, 403);
    let page = open(addr, "alice", &fresh).await;
    let done = post(
        addr,
        "alice",
        Some(&page.cookie()),
        &page.ticket(),
        ALICE_KEY,
    )
    .await;
    assert_eq!(done.status, 200, "{}", done.body);
    let ack = update(addr, "alice", &id, json!({key: {"action": "accept"}})).await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    let finished = settled(addr, "alice", &id).await;
    assert_eq!(finished["status"], "completed", "{finished}");
    assert_eq!(
        finished["result"]["content"][0]["text"],
        format!(
            "Weather for Lima: sunny. Fetched with your {}-character API key.",
            ALICE_KEY.len()
        ),
        "{finished}"
    );
    assert!(!finished.to_string().contains(ALICE_KEY));
}

/// Two links open at once in one browser: each page binds a cookie of its
/// own, the browser sends both, and each page posts.
#[tokio::test]
async fn two_links_open_at_once_in_one_browser_both_complete() {
    let (addr, connector) = demo().await;
    let (first, first_state) = link_of(
        &rpc(
            addr,
            "alice",
            "tools/call",
            "weather_report",
            &call("Paris"),
        )
        .await,
    );
    let (second, _) =
        link_of(&rpc(addr, "alice", "tools/call", "weather_report", &call("Rome")).await);
    let one = open(addr, "alice", &first).await;
    let two = open(addr, "alice", &second).await;
    assert_ne!(
        one.cookie().split('=').next(),
        two.cookie().split('=').next()
    );
    let both = format!("{}; {}", one.cookie(), two.cookie());
    let done = post(addr, "alice", Some(&both), &one.ticket(), ALICE_KEY).await;
    assert_eq!(done.status, 200, "{}", done.body);
    let completed = rpc(
        addr,
        "alice",
        "tools/call",
        "weather_report",
        &accept("Paris", &first_state),
    )
    .await;
    assert!(text_of(&completed).is_some(), "{completed}");
    let done = post(
        addr,
        "alice",
        Some(&both),
        &two.ticket(),
        "wx-alice-second-0123456789",
    )
    .await;
    assert_eq!(done.status, 200, "{}", done.body);
    let stored = connector
        .connection(Some("alice"), WEATHER)
        .unwrap()
        .unwrap();
    assert_eq!(stored.secret("apiKey"), Some("wx-alice-second-0123456789"));
}
