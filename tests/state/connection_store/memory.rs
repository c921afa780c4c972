//! The contract on [`MemoryConnectionStore`].

use mrtr_guard::connect::MemoryConnectionStore;

#[test]
fn the_memory_store_keeps_the_contract() {
    super::contract::all(&MemoryConnectionStore::new(16));
}
