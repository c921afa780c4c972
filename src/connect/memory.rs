//! [`MemoryConnectionStore`]: the connection store of one process.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use time::OffsetDateTime;

use crate::connect::store::{ConnectionStore, ConnectionStoreError};
use crate::state::PrincipalKey;

/// A bounded connection store for one process: its connections are lost
/// when the process ends. Expired connections are swept when the store is
/// full.
#[derive(Debug)]
pub struct MemoryConnectionStore {
    capacity: usize,
    inner: Mutex<Entries>,
}

/// (owner, name) -> the sealed connection and when it expires.
type Entries = HashMap<(PrincipalKey, String), (Vec<u8>, OffsetDateTime)>;

impl MemoryConnectionStore {
    /// A store of at most `capacity` connections.
    #[must_use]
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity,
            inner: Mutex::new(HashMap::new()),
        }
    }

    /// The number of connections held, expired ones included until swept.
    #[must_use]
    pub fn len(&self) -> usize {
        self.inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// Whether the store holds no connection.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl ConnectionStore for MemoryConnectionStore {
    fn put(
        &self,
        owner: PrincipalKey,
        name: &str,
        sealed: Vec<u8>,
        expires_at: OffsetDateTime,
    ) -> Result<(), ConnectionStoreError> {
        let mut map = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let key = (owner, name.to_owned());
        if !map.contains_key(&key) && map.len() >= self.capacity {
            let now = OffsetDateTime::now_utc();
            map.retain(|_, (_, until)| *until > now);
            if map.len() >= self.capacity {
                return Err(ConnectionStoreError::Full);
            }
        }
        map.insert(key, (sealed, expires_at));
        Ok(())
    }

    fn find(
        &self,
        owner: PrincipalKey,
        name: &str,
        now: OffsetDateTime,
    ) -> Result<Option<Vec<u8>>, ConnectionStoreError> {
        let map = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        Ok(map
            .get(&(owner, name.to_owned()))
            .filter(|(_, until)| *until > now)
            .map(|(sealed, _)| sealed.clone()))
    }

    fn remove(&self, owner: PrincipalKey, name: &str) -> Result<(), ConnectionStoreError> {
        let mut map = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        map.remove(&(owner, name.to_owned()));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use time::Duration;

    use super::*;

    #[test]
    fn keeps_one_connection_per_owner_and_name_until_it_expires() {
        let store = MemoryConnectionStore::new(2);
        let now = OffsetDateTime::now_utc();
        let alice = PrincipalKey::from_bytes([1; 16]);
        let bob = PrincipalKey::from_bytes([2; 16]);
        let later = now + Duration::minutes(5);
        store.put(alice, "c", b"a1".to_vec(), later).expect("put");
        store
            .put(alice, "c", b"a2".to_vec(), later)
            .expect("replace");
        assert_eq!(store.find(alice, "c", now), Ok(Some(b"a2".to_vec())));
        assert_eq!(store.find(bob, "c", now), Ok(None));
        assert_eq!(store.find(alice, "d", now), Ok(None));
        assert_eq!(store.find(alice, "c", later), Ok(None), "expired");
        store.put(bob, "c", b"b".to_vec(), later).expect("put");
        assert_eq!(
            store.put(bob, "d", b"b".to_vec(), later),
            Err(ConnectionStoreError::Full)
        );
        store.remove(alice, "c").expect("remove");
        assert_eq!(store.find(alice, "c", now), Ok(None));
    }
}
