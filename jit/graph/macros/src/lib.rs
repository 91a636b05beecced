//! `op_args!(Name, "schema")`: a struct with one typed field per schema parameter and a `read`
//! function that fills it from bound arguments, so op rules name their arguments
//! (`a.negative_slope`) instead of reading them by position.
//!
//! The schema is split by the same source file `rynamo-graph` parses schemas with
//! (`schema_syntax.rs`), so positions and types come from the one schema string. Only `std`'s
//! `proc_macro` is used: the input is an identifier and a string literal, and the output is
//! formatted Rust.

use proc_macro::{Delimiter, Group, Span, TokenStream, TokenTree};

#[path = "../../src/schema_syntax.rs"]
#[allow(dead_code, reason = "shared source: the macro reads only part of it")]
mod schema_syntax;

use schema_syntax::{ParamText, split_schema};

/// `op_args!(Name, "schema")` expands to
///
/// ```text
/// pub(crate) struct Name<'a, T> { pub(crate) <param>: <type>, ... }
/// impl<'a, T> Name<'a, T> { pub(crate) fn read(args: &'a [crate::Value<T>]) -> crate::Result<Self> }
/// ```
///
/// Types: `Tensor` -> `&'a T`, `Tensor[]` -> `Vec<&'a T>`, `Tensor|Scalar` ->
/// `TensorOrScalar<&'a T>`, `Scalar`, `int` -> `i64`, `int[]` -> `&'a [i64]`, `float` -> `f64`,
/// `bool`, `str` -> `&'a str`, `ScalarType` -> `DType`, `Index[]` -> `&'a [IndexItem<T>]`; a `?`
/// wraps the type in `Option`. The field is the parameter's name (`self` becomes `self_`, Rust
/// keywords become raw identifiers).
#[proc_macro]
pub fn op_args(input: TokenStream) -> TokenStream {
    match expand(input) {
        Ok(ts) => ts,
        Err((msg, span)) => compile_error(&msg, span),
    }
}

fn compile_error(msg: &str, span: Span) -> TokenStream {
    let ts: TokenStream = format!("::core::compile_error!({msg:?});")
        .parse()
        .expect("invariant: a compile_error! call parses");
    ts.into_iter()
        .map(|mut t| {
            t.set_span(span);
            if let TokenTree::Group(g) = &t {
                let mut g2 = Group::new(g.delimiter(), g.stream());
                g2.set_span(span);
                return TokenTree::Group(g2);
            }
            t
        })
        .collect()
}

type Failure = (String, Span);

fn expand(input: TokenStream) -> Result<TokenStream, Failure> {
    let toks: Vec<TokenTree> = flatten_none_groups(input);
    let here = Span::call_site();
    let (name, lit) = match toks.as_slice() {
        [
            TokenTree::Ident(name),
            TokenTree::Punct(p),
            TokenTree::Literal(lit),
        ] if p.as_char() == ',' => (name.to_string(), lit),
        _ => return Err(("expected `op_args!(Name, \"schema\")`".into(), here)),
    };
    let src = unquote(&lit.to_string()).ok_or((
        "the schema must be a plain string literal".into(),
        lit.span(),
    ))?;
    let schema = split_schema(&src).map_err(|m| (format!("schema `{src}`: {m}"), lit.span()))?;
    let mut fields = String::new();
    let mut reads = String::new();
    for (i, p) in schema.params.iter().enumerate() {
        let (ty, read) = rust_type(p).ok_or_else(|| {
            (
                format!(
                    "schema `{src}`: parameter `{}` has an unknown type `{}`",
                    p.name, p.ty
                ),
                lit.span(),
            )
        })?;
        let f = field_name(p.name);
        fields.push_str(&format!(
            "    /// `{} {}`{}\n    pub(crate) {f}: {ty},\n",
            p.ty,
            p.name,
            if p.optional { " (optional)" } else { "" }
        ));
        reads.push_str(&format!("            {f}: a.{read}({i})?,\n"));
    }
    let code = format!(
        "/// The arguments of `{sname}`, typed and named from its schema.\n\
         #[allow(dead_code, reason = \"generated: every parameter gets a field\")]\n\
         pub(crate) struct {name}<'a, T> {{\n{fields}    _of: ::core::marker::PhantomData<&'a T>,\n}}\n\
         impl<'a, T> {name}<'a, T> {{\n\
         \x20   /// Reads bound arguments (schema order).\n\
         \x20   #[allow(dead_code, reason = \"generated\")]\n\
         \x20   pub(crate) fn read(args: &'a [crate::Value<T>]) -> crate::Result<Self> {{\n\
         \x20       let a = crate::Args(args);\n\
         \x20       Ok(Self {{\n{reads}            _of: ::core::marker::PhantomData,\n        }})\n    }}\n}}\n",
        sname = schema.name,
    );
    code.parse().map_err(|e| {
        (
            format!("internal: generated code does not parse: {e}"),
            here,
        )
    })
}

/// Macro-by-example arguments arrive wrapped in invisible groups.
fn flatten_none_groups(ts: TokenStream) -> Vec<TokenTree> {
    let mut out = Vec::new();
    for t in ts {
        match t {
            TokenTree::Group(g) if g.delimiter() == Delimiter::None => {
                out.extend(flatten_none_groups(g.stream()));
            }
            t => out.push(t),
        }
    }
    out
}

/// The contents of a `"..."` literal (schemas use no escapes).
fn unquote(lit: &str) -> Option<String> {
    let s = lit.strip_prefix('"')?.strip_suffix('"')?;
    (!s.contains('\\')).then(|| s.to_string())
}

/// The field type and the `Args` accessor that reads it.
fn rust_type(p: &ParamText<'_>) -> Option<(String, &'static str)> {
    let (ty, read, opt_read) = match (p.base(), p.is_list()) {
        ("Tensor", false) => ("&'a T", "tensor", "opt_tensor"),
        ("Tensor", true) => ("Vec<&'a T>", "tensors", "tensors"),
        ("Tensor|Scalar", false) => (
            "rynamo_tensor::TensorOrScalar<&'a T>",
            "tensor_or_scalar",
            "opt_tensor_or_scalar",
        ),
        ("Scalar", false) => ("rynamo_tensor::Scalar", "scalar", "opt_scalar"),
        ("int", false) => ("i64", "int", "opt_int"),
        ("int", true) => ("&'a [i64]", "ints", "opt_ints"),
        ("float", false) => ("f64", "float", "opt_float"),
        ("bool", false) => ("bool", "bool", "opt_bool"),
        ("str", false) => ("&'a str", "str", "opt_str"),
        ("ScalarType", false) => ("rynamo_tensor::DType", "dtype", "opt_dtype"),
        ("Index", true) => ("&'a [rynamo_tensor::IndexItem<T>]", "index", "index"),
        _ => return None,
    };
    if p.optional && p.is_list() && p.base() != "int" {
        return None; // `int[]?` is the only optional list schemas use
    }
    Some(if p.optional {
        (format!("Option<{ty}>"), opt_read)
    } else {
        (ty.to_string(), read)
    })
}

const KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for",
    "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
    "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where", "while",
    "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro", "override",
    "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
];

fn field_name(name: &str) -> String {
    match name {
        "self" => "self_".into(),
        n if KEYWORDS.contains(&n) => format!("r#{n}"),
        n => n.into(),
    }
}
