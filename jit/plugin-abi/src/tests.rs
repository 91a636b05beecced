use std::collections::HashSet;

use crate::consts::CONSTS;
use crate::*;

#[test]
fn versions_and_sizes() {
    assert_eq!(RYNAMO_ABI_MAJOR, 1);
    assert_eq!(api_size_for_minor(0), 96, "1.0 ends after `execute`");
    assert_eq!(api_size_for_minor(1), 104, "1.1 appends `initialize`");
    assert_eq!(
        api_size_for_minor(RYNAMO_ABI_MINOR),
        size_of::<RynamoPluginApi>()
    );
    assert_eq!(api_size_for_minor(99), size_of::<RynamoPluginApi>());
    assert_eq!(API_VERSION_PREFIX_SIZE, 16);
    assert_eq!(RYNAMO_PLUGIN_ENTRY.last(), Some(&0));
}

#[test]
fn constant_names_and_values_are_unique_per_family() {
    let mut names = HashSet::new();
    for c in CONSTS {
        assert!(names.insert(c.name), "duplicate constant {}", c.name);
        assert!(!c.doc.is_empty(), "{} has no doc", c.name);
    }
    let codes = [
        RYNAMO_ERROR_INVALID_ARGUMENT,
        RYNAMO_ERROR_NOT_FOUND,
        RYNAMO_ERROR_RESOURCE_EXHAUSTED,
        RYNAMO_ERROR_UNIMPLEMENTED,
        RYNAMO_ERROR_INTERNAL,
        RYNAMO_ERROR_UNAVAILABLE,
    ];
    assert_eq!(codes.iter().collect::<HashSet<_>>().len(), codes.len());
}

#[test]
fn every_field_is_documented_and_args_structs_lead_with_struct_size() {
    for s in STRUCTS {
        assert!(!s.doc.is_empty(), "{}", s.name);
        for f in s.fields {
            assert!(!f.doc.is_empty(), "{}.{}", s.name, f.name);
        }
        if s.name.ends_with("Args") || s.name == "RynamoPluginApi" {
            assert_eq!(s.fields[0].name, "struct_size", "{}", s.name);
            assert_eq!(s.fields[0].offset, 0);
        }
    }
}

#[test]
fn header_declares_every_struct_and_field() {
    let h = c_header();
    assert!(h.lines().next().is_some_and(|l| l.contains("@generated")));
    for s in STRUCTS {
        assert!(
            h.contains(&format!("typedef struct {} {{", s.name)),
            "{}",
            s.name
        );
    }
    assert!(h.contains("    void (*deleter)(struct RynamoManagedTensor* self);"));
    assert!(h.contains("#define RYNAMO_CAP_STRIDED_INPUTS 0x1ull"));
    assert!(h.contains("#define RYNAMO_ABI_MAJOR 1u"));
    assert!(h.contains("RYNAMO_STATIC_ASSERT(offsetof(RynamoPluginApi, initialize) == 96"));
}
