//! Loading backend plugins into the interpreter: `torch._dynamo.load_plugin(path)`,
//! `RYNAMO_PLUGINS=a.so:b.so`, `rynamo --plugin a.so`, and [`crate::Interpreter::load_plugin`].
//! A loaded plugin is registered in the native backend registry under its own name, so
//! `torch.compile(backend=name)` finds it and `torch._dynamo.list_backends()` lists it.

use std::path::Path;
use std::sync::Arc;

use rynamo_plugin_host::{LoadOptions, PluginBackend};

/// Loads a plugin and registers it; returns the backend name. Loading the same plugin twice
/// returns its name again.
pub fn load(path: impl AsRef<Path>) -> Result<String, String> {
    let path = path.as_ref();
    let registry = rynamo_backend::global();
    let backend: Arc<PluginBackend> =
        rynamo_plugin_host::load_with(path, LoadOptions::default()).map_err(|e| e.to_string())?;
    let name = rynamo_backend::Backend::name(&*backend).to_owned();
    if registry.lookup(&name).is_ok() {
        // Same name already registered: a second load of the same plugin is not an error.
        return Ok(name);
    }
    rynamo_plugin_host::register(registry, backend).map_err(|e| e.to_string())?;
    Ok(name)
}

/// Loads every plugin named in `RYNAMO_PLUGINS`; each failure becomes a warning on stderr
/// (a missing accelerator must not stop the program).
pub fn load_from_env() {
    let Some(value) = std::env::var_os(rynamo_plugin_host::PLUGINS_ENV) else {
        return;
    };
    for path in rynamo_plugin_host::parse_plugin_list(&value) {
        if let Err(e) = load(&path) {
            eprintln!(
                "rynamo: warning: could not load plugin {} from RYNAMO_PLUGINS: {e}",
                path.display()
            );
        }
    }
}
