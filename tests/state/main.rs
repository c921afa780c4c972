//! `mrtr_guard::state`: the codec's policy at each boundary, its properties,
//! and the replay guards (`replay/`: how long the memory guard remembers, the
//! Redis guard rule by rule, feature `redis`), and the task stores' contract
//! (`task_store/`, on memory and Redis), and the connection stores'
//! (`connection_store/`, on memory and Redis). One module per concern; shared
//! fixtures are `mrtr-guard-test-support` (tests/support/).

mod connection_store;
mod messages;
mod policy;
mod props;
mod replay;
mod task_store;
