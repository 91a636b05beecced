//! The declaration macros: each `#[repr(C)]` item is written once, in Rust, together with its C
//! spelling, so the generated header (`header.rs`) can never drift from the Rust layout.

/// A `const` with a C spelling. `$c` is the C type the `#define` is suffixed for.
macro_rules! abi_consts {
    ($(
        $(#[doc = $doc:literal])*
        pub const $name:ident: $ty:ident = $val:literal;
    )*) => {
        $(
            $(#[doc = $doc])*
            pub const $name: $ty = $val;
        )*
        /// Every constant, in declaration order, for the header generator.
        pub(crate) const CONSTS: &[$crate::header::Const] = &[$(
            $crate::header::Const {
                name: stringify!($name),
                value: stringify!($val),
                rust_type: stringify!($ty),
                doc: &[$($doc),*],
            }
        ),*];
    };
}

/// A `#[repr(C)]` struct whose fields carry their C declarations. A C type containing `{}` is a
/// declarator template (function pointers): the field name replaces `{}`.
macro_rules! abi_struct {
    (
        $(#[doc = $doc:literal])*
        pub struct $name:ident {
            $(
                $(#[doc = $fdoc:literal])*
                pub $field:ident : $ty:ty => $cty:literal,
            )*
        }
    ) => {
        $(#[doc = $doc])*
        #[repr(C)]
        #[derive(Clone, Copy, Debug)]
        pub struct $name {
            $(
                $(#[doc = $fdoc])*
                pub $field: $ty,
            )*
        }

        impl $name {
            /// The C declaration of this struct, with each field's offset as Rust lays it out.
            pub const C_DECL: $crate::header::Struct = $crate::header::Struct {
                name: stringify!($name),
                doc: &[$($doc),*],
                size: core::mem::size_of::<$name>(),
                fields: &[$(
                    $crate::header::Field {
                        name: stringify!($field),
                        c_type: $cty,
                        doc: &[$($fdoc),*],
                        offset: core::mem::offset_of!($name, $field),
                    }
                ),*],
            };
        }
    };
}

/// `offsetof(T, field) + sizeof(field)`: the `struct_size` of a caller that knows the fields of `T`
/// up to and including `field` (PJRT's `PJRT_STRUCT_SIZE`, the header's `RYNAMO_STRUCT_SIZE`).
#[macro_export]
macro_rules! struct_size {
    ($t:ty, $field:ident) => {
        core::mem::offset_of!($t, $field) + $crate::field_size(|t: &$t| &t.$field)
    };
}
