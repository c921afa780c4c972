//! Nothing here: this package only holds benchmarks that compare mrtr-guard with peer crates.
