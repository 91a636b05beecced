//! The reference plugin: runs graphs on the CPU through the plugin SDK.
