//! `mrtr_guard::tower` (feature `tower`): `ScreenLayer` in front of a
//! recording service. The tests of the `rmcp` adapter drive the demo's
//! server, so they are the examples package's
//! (examples/tests/demo/rmcp_adapter/).

#[cfg(feature = "tower")]
mod http_screen;
