//! The conformance suite, run against both in-tree plugins: the Rust reference plugin (through the
//! SDK) and the minimal C plugin (through the generated headers).

mod support;

use std::path::PathBuf;

use rynamo_plugin_conformance::{CHECKS, run_check};

macro_rules! conformance {
    ($plugin:ident, $path:expr, [$($check:ident)*]) => {
        mod $plugin {
            use super::*;
            fn path() -> PathBuf {
                $path
            }
            $(
                #[test]
                fn $check() {
                    match run_check(stringify!($check), &path(), &support::scratch()) {
                        Ok(summary) => eprintln!("{}: {summary}", stringify!($check)),
                        Err(e) => panic!("{} failed: {e}", stringify!($check)),
                    }
                }
            )*
        }
    };
}

conformance!(reference, support::reference(), [
    handshake supports ops partitioning errors lifetime reload concurrency
]);
conformance!(c_minimal, support::c_minimal(), [
    handshake supports ops partitioning errors lifetime reload concurrency
]);

#[test]
fn every_check_is_run_for_every_plugin() {
    // The macro lists above must name every check; this fails when a check is added without them.
    let listed = [
        "handshake",
        "supports",
        "ops",
        "partitioning",
        "errors",
        "lifetime",
        "reload",
        "concurrency",
    ];
    let all: Vec<&str> = CHECKS.iter().map(|(n, _)| *n).collect();
    assert_eq!(all, listed);
}

#[test]
fn the_c_plugin_claims_exactly_its_ops_and_is_really_unloaded() {
    use rynamo_plugin_conformance::artifacts;
    use rynamo_plugin_host::PluginLibrary;
    let lib = PluginLibrary::open(support::c_minimal()).unwrap();
    assert_eq!(lib.name(), "c-minimal");
    assert_eq!(
        lib.abi_version(),
        (1, 0),
        "declares the older minor on purpose"
    );
    let r = run_check("ops", &support::c_minimal(), &support::scratch()).unwrap();
    assert!(
        r.starts_with("7 ops (10 samples x 3 inputs) match eager: neg abs exp relu add sub mul"),
        "{r}"
    );
    // Plain C has no thread-local destructors pinning it: after the lifetime check the private copy
    // is unmapped for real.
    let r = run_check("lifetime", &support::c_minimal(), &support::scratch()).unwrap();
    if artifacts::is_mapped(&support::c_minimal()).is_some() {
        assert!(r.ends_with("unmapped: yes"), "{r}");
    }
}
