//! Loading entry points for the interpreter: one path, or the `RYNAMO_PLUGINS` list.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rynamo_backend::BackendRegistry;

use crate::{LoadOptions, PluginBackend, PluginLibrary, Result};

/// The environment variable listing plugins to load at start-up: `a.so:b.so` (`;` on Windows).
pub const PLUGINS_ENV: &str = "RYNAMO_PLUGINS";

/// Loads the plugin at `path` with default options (fallback: eager; errors surface).
pub fn load(path: impl AsRef<Path>) -> Result<Arc<PluginBackend>> {
    load_with(path, LoadOptions::default())
}

/// Loads the plugin at `path`.
pub fn load_with(path: impl AsRef<Path>, options: LoadOptions) -> Result<Arc<PluginBackend>> {
    let lib = PluginLibrary::open(path)?;
    Ok(Arc::new(PluginBackend::new(lib, options)))
}

/// Registers a loaded plugin under its name; a taken name is an error.
pub fn register(registry: &BackendRegistry, backend: Arc<PluginBackend>) -> Result<()> {
    Ok(registry.register(backend)?)
}

/// [`load_with`] then [`register`].
pub fn load_and_register(
    registry: &BackendRegistry,
    path: impl AsRef<Path>,
    options: LoadOptions,
) -> Result<Arc<PluginBackend>> {
    let b = load_with(path, options)?;
    register(registry, b.clone())?;
    Ok(b)
}

/// Splits a `RYNAMO_PLUGINS` value into paths, skipping empty entries.
pub fn parse_plugin_list(value: &OsStr) -> Vec<PathBuf> {
    std::env::split_paths(value)
        .filter(|p| !p.as_os_str().is_empty())
        .collect()
}

/// Loads and registers every plugin `RYNAMO_PLUGINS` names. One failure does not stop the others:
/// each path comes back with its own result, for the caller to report (a plugin that fails to load
/// must not make `import torch` fail).
pub fn load_from_env(
    registry: &BackendRegistry,
    options: &LoadOptions,
) -> Vec<(PathBuf, Result<Arc<PluginBackend>>)> {
    match std::env::var_os(PLUGINS_ENV) {
        Some(v) => load_list(registry, &v, options),
        None => Vec::new(),
    }
}

/// [`load_from_env`] on an explicit `RYNAMO_PLUGINS`-style value.
pub fn load_list(
    registry: &BackendRegistry,
    value: &OsStr,
    options: &LoadOptions,
) -> Vec<(PathBuf, Result<Arc<PluginBackend>>)> {
    parse_plugin_list(value)
        .into_iter()
        .map(|p| {
            let r = load_and_register(registry, &p, options.clone());
            (p, r)
        })
        .collect()
}
