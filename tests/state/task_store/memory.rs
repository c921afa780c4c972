//! The contract on [`MemoryTaskStore`]: both clients are one store.

use std::sync::Arc;

use mrtr_guard::task::{MemoryTaskStore, TaskStore};

use crate::task_store::contract::{Subject, all};
use crate::task_store::run::InPlace;

#[test]
fn the_memory_store_keeps_the_contract() {
    all(&InPlace, &|_| {
        let store: Arc<dyn TaskStore> = Arc::new(MemoryTaskStore::new());
        Subject {
            one: Arc::clone(&store),
            two: store,
        }
    });
}
