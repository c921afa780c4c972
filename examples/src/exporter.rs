//! The demo's Prometheus exporter, opt-in: with `MRTR_GUARD_METRICS_ADDR`
//! (or `--metrics-addr`) set to an address such as `127.0.0.1:9464`, the
//! counters mrtr-guard records (feature `metrics`) are served as Prometheus
//! text at `http://ADDR/metrics`, on a listener of their own, apart from the
//! MCP endpoint.

use std::net::SocketAddr;

use axum::routing::get;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

/// The exporter's address: the one `given` (the demo's `--metrics-addr`),
/// else `MRTR_GUARD_METRICS_ADDR`; `None` when neither is given.
pub fn address(given: Option<String>) -> Result<Option<SocketAddr>, Box<dyn std::error::Error>> {
    let Some(text) = given.or_else(|| std::env::var("MRTR_GUARD_METRICS_ADDR").ok()) else {
        return Ok(None);
    };
    let addr = text.parse().map_err(|_| {
        format!("MRTR_GUARD_METRICS_ADDR: {text:?} is not an address such as 127.0.0.1:9464")
    })?;
    Ok(Some(addr))
}

/// Installs the Prometheus recorder and serves its text at
/// `http://{addr}/metrics` in the background; the replay guard's latency
/// gets buckets from 50 µs to 1 s.
///
/// # Errors
///
/// A recorder already installed, or an address that does not bind.
pub async fn start(addr: SocketAddr) -> Result<(), Box<dyn std::error::Error>> {
    let buckets = [
        0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
        0.5, 1.0,
    ];
    let handle = PrometheusBuilder::new()
        .set_buckets_for_metric(
            Matcher::Full(mrtr_guard::metrics::REPLAY_GUARD_SECONDS.to_owned()),
            &buckets,
        )?
        .install_recorder()?;
    mrtr_guard::metrics::describe();
    let listener = tokio::net::TcpListener::bind(addr).await?;
    eprintln!("metrics on http://{}/metrics", listener.local_addr()?);
    let app = axum::Router::new().route("/metrics", get(move || render(handle.clone())));
    tokio::spawn(async move {
        if let Err(error) = axum::serve(listener, app).await {
            eprintln!("error: the metrics listener stopped: {error}");
        }
    });
    Ok(())
}

/// The scrape: upkeep first (the recorder's histograms drain on it), then
/// the text.
async fn render(handle: PrometheusHandle) -> String {
    handle.run_upkeep();
    handle.render()
}
