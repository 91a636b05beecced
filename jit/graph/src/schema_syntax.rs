//! The text level of an op schema: `name[.overload](Type name[=default], ..., *, kwonly...) ->
//! Returns` split into its parts, with no meaning attached to the types yet.
//!
//! Shared, as source, by [`crate::schema`] (which types the parts at run time) and by the
//! `rynamo-graph-macros` proc macro (which generates each op's typed argument accessors from the
//! same schema string at compile time), so the two cannot read a schema differently. It uses
//! only `std`.

/// One parameter as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamText<'a> {
    /// The parameter name (also its keyword).
    pub name: &'a str,
    /// The type without a trailing `?`, e.g. `int[2]`, `Tensor|Scalar`.
    pub ty: &'a str,
    /// The type ends in `?`: `None` is accepted.
    pub optional: bool,
    /// The default's text, if any.
    pub default: Option<&'a str>,
    /// Declared after `*`.
    pub kw_only: bool,
}

impl ParamText<'_> {
    /// The type's base name: `int` for `int[2]`.
    pub fn base(&self) -> &str {
        self.ty.split('[').next().unwrap_or(self.ty)
    }

    /// The type is a list (`int[]`, `int[2]`, `Tensor[]`, `Index[]`).
    pub fn is_list(&self) -> bool {
        self.ty.contains('[')
    }
}

/// A whole schema as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaText<'a> {
    /// Full name, e.g. `max.dim`.
    pub name: &'a str,
    /// Parameters in order.
    pub params: Vec<ParamText<'a>>,
    /// The return declaration, e.g. `Tensor` or `(Tensor values, Tensor indices)`.
    pub returns: &'a str,
}

/// Splits a schema into its parts; the error says what is malformed.
pub fn split_schema(src: &str) -> Result<SchemaText<'_>, String> {
    let open = src.find('(').ok_or("missing `(`")?;
    let arrow = src.find("->").ok_or("missing `->`")?;
    // The params end at the `)` that precedes `->`.
    let close = src[..arrow].rfind(')').ok_or("missing `)`")?;
    if close < open {
        return Err("missing `)`".into());
    }
    let (name, inner) = (src[..open].trim(), &src[open + 1..close]);
    let mut params = Vec::new();
    let mut kw_only = false;
    for part in split_top(inner) {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        if part == "*" {
            kw_only = true;
            continue;
        }
        let (decl, default) = match part.split_once('=') {
            Some((d, v)) => (d.trim(), Some(v.trim())),
            None => (part, None),
        };
        let (ty, pname) = decl
            .rsplit_once(' ')
            .ok_or_else(|| format!("bad parameter `{part}`"))?;
        let (ty, optional) = match ty.trim().strip_suffix('?') {
            Some(t) => (t, true),
            None => (ty.trim(), false),
        };
        params.push(ParamText {
            name: pname.trim(),
            ty,
            optional,
            default,
            kw_only,
        });
    }
    Ok(SchemaText {
        name,
        params,
        returns: src[arrow + 2..].trim(),
    })
}

/// Splits on commas not nested in brackets or quotes.
pub fn split_top(s: &str) -> impl Iterator<Item = &str> {
    let mut parts = Vec::new();
    let (mut depth, mut start, mut quote) = (0i32, 0usize, false);
    for (i, c) in s.char_indices() {
        match c {
            '\'' => quote = !quote,
            '[' | '(' if !quote => depth += 1,
            ']' | ')' if !quote => depth -= 1,
            ',' if depth == 0 && !quote => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts.into_iter()
}
