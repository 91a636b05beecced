//! Backends registered by name (Dynamo's `register_backend` / `list_backends`).

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use parking_lot::RwLock;

use crate::{Backend, EagerBackend, Error, Result};

/// A name -> backend table.
#[derive(Default)]
pub struct BackendRegistry {
    map: RwLock<BTreeMap<String, Arc<dyn Backend>>>,
}

impl BackendRegistry {
    /// An empty registry.
    pub fn new() -> BackendRegistry {
        BackendRegistry::default()
    }

    /// A registry holding the built-in `eager` backend.
    pub fn with_defaults() -> BackendRegistry {
        let r = BackendRegistry::new();
        r.register(Arc::new(EagerBackend))
            .expect("invariant: empty registry has no duplicate");
        r
    }

    /// Registers a backend under its [`Backend::name`]; a taken name is an error.
    pub fn register(&self, backend: Arc<dyn Backend>) -> Result<()> {
        let name = backend.name().to_string();
        let mut m = self.map.write();
        if m.contains_key(&name) {
            return Err(Error::Duplicate(name));
        }
        m.insert(name, backend);
        Ok(())
    }

    /// Registers or replaces.
    pub fn register_or_replace(&self, backend: Arc<dyn Backend>) {
        self.map.write().insert(backend.name().to_string(), backend);
    }

    /// The backend of that name.
    pub fn lookup(&self, name: &str) -> Result<Arc<dyn Backend>> {
        self.map
            .read()
            .get(name)
            .cloned()
            .ok_or_else(|| Error::NotFound(name.to_string(), self.list().join(", ")))
    }

    /// Registered names, sorted.
    pub fn list(&self) -> Vec<String> {
        self.map.read().keys().cloned().collect()
    }
}

/// The process-wide registry (starts with `eager`).
pub fn global() -> &'static BackendRegistry {
    static R: OnceLock<BackendRegistry> = OnceLock::new();
    R.get_or_init(BackendRegistry::with_defaults)
}
