//! Logging to the host: `initialize` (ABI 1.1) hands the plugin a callback; [`log`] forwards to it.
//! Before `initialize` (or with a 1.0 host) messages are dropped.

use std::ffi::{c_char, c_void};
use std::sync::RwLock;

use rynamo_plugin_abi::*;

type LogFn = unsafe extern "C" fn(*mut c_void, u32, *const c_char, usize);

// A host that unloads and reloads this library (if the OS kept it mapped) initialises it again:
// the latest sink wins.
static SINK: RwLock<Option<(LogFn, usize)>> = RwLock::new(None);

/// Severity of a log message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// `RYNAMO_LOG_ERROR`.
    Error,
    /// `RYNAMO_LOG_WARN`.
    Warn,
    /// `RYNAMO_LOG_INFO`.
    Info,
    /// `RYNAMO_LOG_DEBUG`.
    Debug,
}

pub(crate) fn set_sink(f: LogFn, user_data: usize) {
    *SINK.write().unwrap_or_else(|p| p.into_inner()) = Some((f, user_data));
}

/// Sends a message to the host's log (a no-op until the host called `initialize`).
pub fn log(level: Level, message: &str) {
    let code = match level {
        Level::Error => RYNAMO_LOG_ERROR,
        Level::Warn => RYNAMO_LOG_WARN,
        Level::Info => RYNAMO_LOG_INFO,
        Level::Debug => RYNAMO_LOG_DEBUG,
    };
    let sink = *SINK.read().unwrap_or_else(|p| p.into_inner());
    if let Some((f, ud)) = sink {
        // SAFETY: the host's callback stays callable while the library is loaded, from any thread;
        // the message is borrowed for the call.
        unsafe {
            f(
                ud as *mut c_void,
                code,
                message.as_ptr().cast::<c_char>(),
                message.len(),
            )
        };
    }
}
