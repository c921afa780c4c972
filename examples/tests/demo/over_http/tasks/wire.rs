//! A task on the wire, byte for byte: the transcript in `docs/TASKS.md`
//! ("On the wire", between its `task-wire` markers) is what this test
//! sends to the demo and what the demo answers, with only the values that
//! change from run to run (the task id, the states, the times) written as
//! placeholders. A change to what a client sees of a task fails here;
//! `MRTR_GUARD_RENEW_DOCS=1` writes the new transcript into the page.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a panic is a failing test"
)]

use std::path::Path;

use super::super::client::{dechunk, exchange_raw};
use super::*;

const BEGIN: &str =
    "<!-- task-wire:begin (checked by examples/tests/demo/over_http/tasks/wire.rs) -->";
const END: &str = "<!-- task-wire:end -->";

/// The `_meta` of every request: the revision, and the capabilities with
/// the Tasks extension declared.
const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}}"#;

/// One exchange: what it shows, the request's `Mcp-Method` and `Mcp-Name`,
/// its body, and the response's body.
struct Exchange {
    title: &'static str,
    method: &'static str,
    name: String,
    request: String,
    response: String,
}

/// A transcript being recorded: the exchanges, and the values to write as
/// placeholders (the real text, its placeholder).
#[derive(Default)]
struct Transcript {
    exchanges: Vec<Exchange>,
    volatile: Vec<(String, &'static str)>,
}

impl Transcript {
    /// Sends `request` (`method`, `Mcp-Name` `name`) as ada, records it and
    /// its answer: the answer, parsed.
    async fn send(
        &mut self,
        addr: SocketAddr,
        title: &'static str,
        (method, name): (&'static str, &str),
        request: String,
    ) -> Value {
        let headers = [
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", method),
            ("Mcp-Name", name),
            ("Authorization", "Bearer ada"),
        ];
        let raw = exchange_raw(addr, &headers, request.as_bytes()).await;
        let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
        let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
        assert!(head.starts_with("http/1.1 200"), "{head}");
        let body = if head.contains("transfer-encoding: chunked") {
            dechunk(&raw[split + 4..])
        } else {
            raw[split + 4..].to_vec()
        };
        let response = String::from_utf8(body).unwrap();
        let parsed: Value = serde_json::from_str(&response).unwrap();
        for member in ["requestState", "createdAt", "lastUpdatedAt"] {
            self.note_all(&parsed, member);
        }
        self.exchanges.push(Exchange {
            title,
            method,
            name: name.to_owned(),
            request,
            response,
        });
        parsed
    }

    /// Notes every string value of `member` in `value` as volatile.
    fn note_all(&mut self, value: &Value, member: &str) {
        match value {
            Value::Object(object) => {
                for (key, inner) in object {
                    match inner {
                        Value::String(text) if key == member => {
                            let placeholder = match member {
                                "requestState" => "<requestState>",
                                _ => "<time>",
                            };
                            self.volatile.push((text.clone(), placeholder));
                        }
                        _ => self.note_all(inner, member),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|item| self.note_all(item, member)),
            _ => {}
        }
    }

    /// The transcript as the page shows it.
    fn render(&self) -> String {
        let plain = |text: &str| {
            self.volatile
                .iter()
                .fold(text.to_owned(), |text, (real, placeholder)| {
                    text.replace(real.as_str(), placeholder)
                })
        };
        let mut out = String::new();
        for (n, exchange) in self.exchanges.iter().enumerate() {
            out.push_str(&format!(
                "{}. {} (`Mcp-Method: {}`, `Mcp-Name: {}`):\n\n```json\n{}\n```\n\n```json\n{}\n```\n\n",
                n + 1,
                exchange.title,
                exchange.method,
                plain(&exchange.name),
                plain(&exchange.request),
                plain(&exchange.response),
            ));
        }
        out
    }
}

fn call(id: u32, tail: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"export_orders","arguments":{{"format":"csv"}}{tail},{META}}}}}"#
    )
}

fn on_task(id: u32, method: &str, task: &str, tail: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{"taskId":"{task}"{tail},{META}}}}}"#
    )
}

/// Polls (unrecorded) until the task leaves `working`.
async fn wait_out(addr: SocketAddr, task: &str) {
    settled(addr, "ada", task).await;
}

#[tokio::test]
async fn the_task_transcript_in_the_docs_is_what_the_demo_sends() {
    let addr = start().await;
    let mut wire = Transcript::default();
    let asked = wire
        .send(
            addr,
            "The call, declaring the extension: the round before the task asks the range",
            ("tools/call", "export_orders"),
            call(1, ""),
        )
        .await;
    let state = asked["result"]["requestState"].as_str().unwrap().to_owned();
    let range = r#""inputResponses":{"range":{"action":"accept","content":{"from":"2026-01-01","to":"2026-01-31"}}}"#;
    let created = wire
        .send(
            addr,
            "The retry with the range: the call returns the task (`CreateTaskResult`)",
            ("tools/call", "export_orders"),
            call(2, &format!(r#",{range},"requestState":"{state}""#)),
        )
        .await;
    let task = created["result"]["taskId"].as_str().unwrap().to_owned();
    wire.volatile.insert(0, (task.clone(), "<taskId>"));
    wire.send(
        addr,
        "`tasks/get` while the export step runs",
        ("tasks/get", &task),
        on_task(3, "tasks/get", &task, ""),
    )
    .await;
    wait_out(addr, &task).await;
    wire.send(
        addr,
        "`tasks/get` once the handler asks inside the task: its key `refunds` is `refunds-1` on the wire",
        ("tasks/get", &task),
        on_task(4, "tasks/get", &task, ""),
    )
    .await;
    let answer =
        r#","inputResponses":{"refunds-1":{"action":"accept","content":{"includeRefunds":true}}}"#;
    wire.send(
        addr,
        "`tasks/update` answers it; the task resumes",
        ("tasks/update", &task),
        on_task(5, "tasks/update", &task, answer),
    )
    .await;
    wait_out(addr, &task).await;
    wire.send(
        addr,
        "`tasks/get` when it has completed: the tool's result",
        ("tasks/get", &task),
        on_task(6, "tasks/get", &task, ""),
    )
    .await;
    // A second task, created as the first (not shown), cancelled.
    let (second, _) = create(addr, "ada").await;
    let second = second["result"]["taskId"].as_str().unwrap().to_owned();
    wire.volatile.insert(0, (second.clone(), "<taskId>"));
    wire.send(
        addr,
        "`tasks/cancel` of another task, created the same way",
        ("tasks/cancel", &second),
        on_task(7, "tasks/cancel", &second, ""),
    )
    .await;
    wire.send(
        addr,
        "`tasks/get` of the cancelled task",
        ("tasks/get", &second),
        on_task(8, "tasks/get", &second, ""),
    )
    .await;

    let rendered = wire.render();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/TASKS.md");
    let page = std::fs::read_to_string(&path).unwrap();
    let (before, rest) = page
        .split_once(BEGIN)
        .expect("docs/TASKS.md has the task-wire markers");
    let (shown, after) = rest.split_once(END).expect("the task-wire end marker");
    let fresh = format!("\n\n{rendered}");
    if shown != fresh {
        if std::env::var_os("MRTR_GUARD_RENEW_DOCS").is_some() {
            std::fs::write(&path, format!("{before}{BEGIN}{fresh}{END}{after}")).unwrap();
        } else {
            panic!(
                "docs/TASKS.md's transcript is not what the demo sends now; \
                 MRTR_GUARD_RENEW_DOCS=1 writes it:\n{rendered}"
            );
        }
    }
}
