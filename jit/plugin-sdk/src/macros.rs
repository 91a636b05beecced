//! [`crate::export_plugin!`]: the one line a plugin crate writes to export the C ABI.

/// Exports `rynamo_plugin_get_api` for plugin type `$plugin`, built by `$init` on first call (a
/// panic there makes the entry point return NULL, which the host reports). Invoke once per cdylib.
#[macro_export]
macro_rules! export_plugin {
    ($plugin:ty, $init:expr) => {
        const _: () = {
            static CELL: $crate::__private::Cell<$plugin> = $crate::__private::Cell::new();
            impl $crate::__private::Exported for $plugin {
                fn cell() -> &'static $crate::__private::Cell<Self> {
                    &CELL
                }
            }
        };

        /// The plugin entry point (see `rynamo_plugin_abi`).
        #[unsafe(no_mangle)]
        pub extern "C" fn rynamo_plugin_get_api() -> *const $crate::abi::RynamoPluginApi {
            $crate::__private::get_api::<$plugin>(|| $init)
        }
    };
}
