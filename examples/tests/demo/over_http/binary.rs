//! A demo binary run as a process for a test: killed when the test ends,
//! waited for until it accepts connections.

#![allow(dead_code, unreachable_pub, reason = "each test file uses part of it")]
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test code: a panic is a failing test"
)]

use std::net::SocketAddr;
use std::process::Child;
use std::time::Duration;

use tokio::net::TcpStream;

/// The running binary, killed when the test ends.
pub struct Running(pub Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A loopback address on a port free when asked.
pub fn free_addr() -> SocketAddr {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
}

/// Waits (at most 10 s) until `server` accepts connections at `addr`;
/// fails the test if it exits first.
pub async fn wait_listening(server: &mut Running, addr: SocketAddr) {
    for _ in 0..200 {
        if TcpStream::connect(addr).await.is_ok() {
            return;
        }
        if let Some(status) = server.0.try_wait().unwrap() {
            panic!("the server exited: {status}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the server did not listen on {addr}");
}
