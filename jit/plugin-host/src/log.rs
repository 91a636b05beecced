//! Plugin log messages: the sink whose address the host gives `initialize` (ABI 1.1), and the
//! callback the plugin calls.

use std::collections::{HashMap, VecDeque};
use std::ffi::{c_char, c_void};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use parking_lot::Mutex;

/// One message from a plugin's log callback, or a note from the host about the plugin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogMessage {
    /// `RYNAMO_LOG_*`.
    pub level: u32,
    /// The text.
    pub message: String,
}

/// Keeps the latest messages; its address is handed to the plugin as `log_user_data`.
///
/// **Invariant:** a sink is never freed. The OS may keep a library mapped after `dlclose` (a Rust
/// plugin whose threads registered TLS destructors is pinned by glibc), so its statics, including
/// the log pointer it was given, survive our handle; a reload of the same path then reuses the
/// same sink. One small leak per plugin path.
pub(crate) struct LogSink {
    messages: Mutex<VecDeque<LogMessage>>,
}

const LOG_CAPACITY: usize = 256;

impl LogSink {
    pub(crate) fn push(&self, level: u32, message: String) {
        if std::env::var_os("RYNAMO_PLUGIN_LOG").is_some() {
            eprintln!("rynamo plugin [{level}]: {message}");
        }
        let mut m = self.messages.lock();
        if m.len() == LOG_CAPACITY {
            m.pop_front();
        }
        m.push_back(LogMessage { level, message });
    }

    pub(crate) fn messages(&self) -> Vec<LogMessage> {
        self.messages.lock().iter().cloned().collect()
    }
}

pub(crate) unsafe extern "C" fn host_log(
    ud: *mut c_void,
    level: u32,
    msg: *const c_char,
    len: usize,
) {
    let _ = std::panic::catch_unwind(|| {
        if ud.is_null() || (msg.is_null() && len > 0) {
            return;
        }
        let text = if len == 0 {
            String::new()
        } else {
            // SAFETY: the ABI gives `len` readable bytes at `msg` for the duration of the call.
            String::from_utf8_lossy(unsafe { std::slice::from_raw_parts(msg.cast::<u8>(), len) })
                .into_owned()
        };
        // SAFETY: `ud` is a `&'static LogSink` we passed to `initialize` (never freed).
        unsafe { &*ud.cast::<LogSink>() }.push(level, text);
    });
}

/// The process-lifetime log sink of a plugin path (see [`LogSink`]).
pub(crate) fn sink_for(canon: &Path) -> &'static LogSink {
    static SINKS: OnceLock<Mutex<HashMap<PathBuf, &'static LogSink>>> = OnceLock::new();
    let mut m = SINKS.get_or_init(Default::default).lock();
    m.entry(canon.to_path_buf()).or_insert_with(|| {
        Box::leak(Box::new(LogSink {
            messages: Mutex::new(VecDeque::new()),
        }))
    })
}
