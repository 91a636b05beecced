//! `repr(tensor)` in PyTorch's exact format (`torch/_tensor_str.py`): the formatter's width,
//! integer and scientific modes, line wrapping at `linewidth`, summarisation past `threshold`,
//! and the `dtype=` / `size=` / `requires_grad=` suffixes.
//!
//! ```text
//!   values (f64 / i64 / bool) --[summarised subset]--> Formatter (mode, width)
//!     --[nested_str: 0-d / vector / matrix rows]--> body --[add_suffixes]--> tensor(...)
//! ```

use rustpython_vm::types::Representable;
use rustpython_vm::{AsObject, Py, PyPayload, PyResult, VirtualMachine};
use rynamo_tensor::{DType, Tensor};

use crate::state::{PrintOptions, default_dtype, print_options};
use crate::tensor::PyTensor;

/// The elements of a tensor, row-major.
enum Values {
    Float(Vec<f64>),
    Int(Vec<i64>),
    Bool(Vec<bool>),
}

impl Values {
    fn of(t: &Tensor) -> Values {
        let d = t.dtype();
        if d.is_floating_point() {
            Values::Float(t.to_vec::<f64>())
        } else if d == DType::Bool {
            Values::Bool(t.to_vec::<u8>().into_iter().map(|b| b != 0).collect())
        } else {
            Values::Int(t.to_vec::<i64>())
        }
    }
}

/// Python's `"{:.{p}f}".format(v)`.
fn fixed(v: f64, p: usize) -> String {
    if v.is_nan() {
        "nan".into()
    } else if v.is_infinite() {
        if v > 0.0 { "inf".into() } else { "-inf".into() }
    } else {
        format!("{v:.p$}")
    }
}

/// Python's `"{:.{p}e}".format(v)`: the exponent has a sign and at least two digits.
fn scientific(v: f64, p: usize) -> String {
    if !v.is_finite() {
        return fixed(v, p);
    }
    let s = format!("{v:.p$e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exp.abs())
}

/// `_Formatter`: decides the mode and the column width from the (summarised) values.
struct Formatter {
    floating: bool,
    int_mode: bool,
    sci_mode: bool,
    max_width: usize,
    precision: usize,
}

impl Formatter {
    fn new(values: &Values, opts: &PrintOptions) -> Formatter {
        let mut f = Formatter {
            floating: matches!(values, Values::Float(_)),
            int_mode: true,
            sci_mode: false,
            max_width: 1,
            precision: opts.precision,
        };
        match values {
            Values::Int(v) => {
                f.max_width = v
                    .iter()
                    .map(|x| x.to_string().len())
                    .max()
                    .unwrap_or(1)
                    .max(1);
            }
            Values::Bool(v) => {
                let w = |b: &bool| if *b { 4 } else { 5 };
                f.max_width = v.iter().map(w).max().unwrap_or(1).max(1);
            }
            Values::Float(v) => f.scan_floats(v),
        }
        if let Some(sci) = opts.sci_mode {
            f.sci_mode = sci;
        }
        f
    }

    fn scan_floats(&mut self, values: &[f64]) {
        let nz: Vec<f64> = values
            .iter()
            .copied()
            .filter(|x| x.is_finite() && *x != 0.0)
            .collect();
        if nz.is_empty() {
            return;
        }
        let abs_min = nz.iter().map(|x| x.abs()).fold(f64::INFINITY, f64::min);
        let abs_max = nz.iter().map(|x| x.abs()).fold(0.0, f64::max);
        let p = self.precision;
        self.int_mode = nz.iter().all(|x| *x == x.ceil());
        let wide_range = abs_max / abs_min > 1000.0 || abs_max > 1.0e8;
        let widths: Vec<usize> = if self.int_mode {
            if wide_range {
                self.sci_mode = true;
                nz.iter().map(|x| scientific(*x, p).len()).collect()
            } else {
                nz.iter().map(|x| format!("{x:.0}").len() + 1).collect()
            }
        } else if wide_range || abs_min < 1.0e-4 {
            self.sci_mode = true;
            nz.iter().map(|x| scientific(*x, p).len()).collect()
        } else {
            nz.iter().map(|x| fixed(*x, p).len()).collect()
        };
        self.max_width = widths.into_iter().fold(self.max_width, usize::max);
    }

    fn format_float(&self, v: f64) -> String {
        let s = if self.sci_mode {
            scientific(v, self.precision)
        } else if self.int_mode {
            let mut s = fixed(v, 0);
            if v.is_finite() {
                s.push('.');
            }
            s
        } else {
            fixed(v, self.precision)
        };
        pad(s, self.max_width)
    }

    fn format(&self, values: &Values, i: usize) -> String {
        match values {
            Values::Float(v) if self.floating => self.format_float(v[i]),
            Values::Float(v) => pad(v[i].to_string(), self.max_width),
            Values::Int(v) => pad(v[i].to_string(), self.max_width),
            Values::Bool(v) => pad(
                if v[i] { "True" } else { "False" }.to_string(),
                self.max_width,
            ),
        }
    }
}

fn pad(s: String, width: usize) -> String {
    let n = s.chars().count();
    if n >= width {
        s
    } else {
        format!("{}{s}", " ".repeat(width - n))
    }
}

/// `get_summarized_data`: the first and last `edge` items of every dim longer than `2 * edge`,
/// cut out before any element is read, so a huge (or expanded) tensor prints without
/// converting all of it.
fn summarized(t: &Tensor, edge: usize) -> rynamo_tensor::Result<Tensor> {
    let mut out = t.clone();
    for (d, &n) in t.shape().iter().enumerate() {
        if n > 2 * edge {
            let (e, n, d) = (edge as i64, n as i64, d as i64);
            let head = out.narrow(d, 0, e)?;
            let tail = out.narrow(d, n - e, e)?;
            out = rynamo_tensor::ops::shape::cat(&[&head, &tail], d)?;
        }
    }
    Ok(out)
}

/// Prints the full shape from the values of the summarised tensor (all of it when not
/// summarising): index `i` of a cut dim of length `n` is item `i` of its first `edge` items or
/// of its last `edge`.
struct Printer<'a> {
    values: &'a Values,
    fmt: Formatter,
    /// A complex tensor's imaginary parts and their own formatter (PyTorch formats the two
    /// parts with separate formatters, `real+imagj`).
    imag: Option<(&'a Values, Formatter)>,
    opts: &'a PrintOptions,
    summarize: bool,
}

impl Printer<'_> {
    fn is_cut(&self, n: usize) -> bool {
        self.summarize && n > 2 * self.opts.edgeitems
    }

    /// The position of index `i` of a dim of length `n` in the summarised tensor.
    fn kept(&self, n: usize, i: usize) -> usize {
        if self.is_cut(n) && i >= n - self.opts.edgeitems {
            i - (n - 2 * self.opts.edgeitems)
        } else {
            i
        }
    }

    /// `_tensor_str_with_formatter` on the sub-tensor of full shape `shape` at flat `offset` of
    /// the summarised values.
    fn nested(&self, shape: &[usize], offset: usize, indent: usize) -> String {
        let edge = self.opts.edgeitems;
        match shape {
            [] => self.item(offset),
            [n] => self.vector(*n, offset, indent),
            [n, rest @ ..] => {
                let stride: usize = rest
                    .iter()
                    .map(|&r| if self.is_cut(r) { 2 * edge } else { r })
                    .product();
                let row =
                    |i: usize| self.nested(rest, offset + self.kept(*n, i) * stride, indent + 1);
                let slices: Vec<String> = if self.summarize && *n > 2 * edge {
                    (0..edge)
                        .map(row)
                        .chain(std::iter::once("...".to_string()))
                        .chain((n - edge..*n).map(row))
                        .collect()
                } else {
                    (0..*n).map(row).collect()
                };
                let sep = format!(
                    ",{}{}",
                    "\n".repeat(shape.len() - 1),
                    " ".repeat(indent + 1)
                );
                format!("[{}]", slices.join(&sep))
            }
        }
    }

    /// One element: `_val_formatter` (a complex one as `real+imagj`, the sign of the imaginary
    /// part taking the place of the `+`).
    fn item(&self, i: usize) -> String {
        let re = self.fmt.format(self.values, i);
        let Some((values, f2)) = &self.imag else {
            return re;
        };
        let im = format!("{}j", f2.format(values, i));
        let im = im.trim_start();
        if im.starts_with('+') || im.starts_with('-') {
            format!("{re}{im}")
        } else {
            format!("{re}+{im}")
        }
    }

    /// `_vector_str`: items wrapped at `linewidth`.
    fn vector(&self, n: usize, offset: usize, indent: usize) -> String {
        let edge = self.opts.edgeitems;
        let mut element_length = (self.fmt.max_width + 2) as i64;
        if let Some((_, f2)) = &self.imag {
            element_length += f2.max_width as i64 + 1;
        }
        let room = self.opts.linewidth as i64 - indent as i64;
        let per_line = room.div_euclid(element_length).max(1) as usize;
        let item = |i: usize| self.item(offset + self.kept(n, i));
        let data: Vec<String> = if self.summarize && n > 2 * edge {
            (0..edge)
                .map(item)
                .chain(std::iter::once(" ...".to_string()))
                .chain((n - edge..n).map(item))
                .collect()
        } else {
            (0..n).map(item).collect()
        };
        let lines: Vec<String> = data.chunks(per_line).map(|c| c.join(", ")).collect();
        format!(
            "[{}]",
            lines.join(&format!(",\n{}", " ".repeat(indent + 1)))
        )
    }
}

/// `_add_suffixes`: `, suffix` on the last line, or a new line when it would pass `linewidth`.
fn add_suffixes(text: String, suffixes: &[String], indent: usize, linewidth: usize) -> String {
    let mut out = text;
    // PyTorch's arithmetic, kept exactly: with no newline `rfind` is -1, so this is len + 2.
    let newline = out.rfind('\n').map_or(-1, |i| i as i64);
    let mut last_line_len = out.chars().count() as i64 - newline + 1;
    for s in suffixes {
        let n = s.chars().count() as i64;
        if last_line_len + n + 2 > linewidth as i64 {
            out.push_str(&format!(",\n{}{s}", " ".repeat(indent)));
            last_line_len = (indent as i64) + n;
        } else {
            out.push_str(&format!(", {s}"));
            last_line_len += n + 2;
        }
    }
    out.push(')');
    out
}

/// The complex dtype printed without a `dtype=` suffix: complex128 when the default dtype is
/// float64, else complex64 (`_tensor_str`'s `_default_complex_dtype`).
fn default_complex(default: DType) -> DType {
    if default == DType::Float64 {
        DType::Complex128
    } else {
        DType::Complex64
    }
}

/// Python's `str(tuple(shape))`.
fn tuple_str(shape: &[usize]) -> String {
    match shape {
        [one] => format!("({one},)"),
        _ => {
            let parts: Vec<String> = shape.iter().map(usize::to_string).collect();
            format!("({})", parts.join(", "))
        }
    }
}

/// The repr of `t` as PyTorch prints it, with `prefix` (`"tensor("`, or a subclass name) and the
/// autograd suffix (`grad_fn=<MulBackward0>` or `requires_grad=True`), if any.
pub fn tensor_repr(
    t: &Tensor,
    prefix: &str,
    autograd: Option<&str>,
    default: DType,
    opts: &PrintOptions,
) -> rynamo_tensor::Result<String> {
    let indent = prefix.chars().count();
    let dtype = t.dtype();
    let mut suffixes = Vec::new();
    let body = if t.numel() == 0 {
        if t.ndim() != 1 {
            suffixes.push(format!("size={}", tuple_str(t.shape())));
        }
        if dtype != default {
            suffixes.push(format!("dtype={dtype}"));
        }
        "[]".to_string()
    } else {
        if ![default, default_complex(default), DType::Int64, DType::Bool].contains(&dtype) {
            suffixes.push(format!("dtype={dtype}"));
        }
        let summarize = t.numel() as f64 > opts.threshold;
        let shown = if summarize {
            summarized(t, opts.edgeitems)?
        } else {
            t.clone()
        };
        // A complex tensor's real and imaginary parts get a formatter each (`_tensor_str`).
        let (values, imag) = if dtype.is_complex() {
            let pairs = rynamo_tensor::ops::complex::component_pairs(&shown);
            let part = |k: usize| Values::Float(pairs.iter().skip(k).step_by(2).copied().collect());
            (part(0), Some(part(1)))
        } else {
            (Values::of(&shown), None)
        };
        let printer = Printer {
            values: &values,
            fmt: Formatter::new(&values, opts),
            imag: imag.as_ref().map(|v| (v, Formatter::new(v, opts))),
            opts,
            summarize,
        };
        printer.nested(t.shape(), 0, indent)
    };
    if let Some(a) = autograd {
        suffixes.push(a.to_string());
    }
    Ok(add_suffixes(
        format!("{prefix}{body}"),
        &suffixes,
        indent,
        opts.linewidth,
    ))
}

impl Representable for PyTensor {
    fn repr_str(zelf: &Py<Self>, vm: &VirtualMachine) -> PyResult<String> {
        let class = zelf.class();
        let exact = class.is(PyTensor::class(&vm.ctx));
        // `nn.Parameter` prints as `tensor(` (its own repr adds "Parameter containing:").
        let prefix = if exact || class.name().to_string() == "Parameter" {
            "tensor(".to_string()
        } else {
            format!("{}(", class.name())
        };
        let t = zelf.tensor();
        let suffix = crate::autograd::repr_suffix(&t);
        let options = print_options();
        // Formatting converts the data in Rust: an error raised there by unwinding must become
        // a Python exception, not end the process.
        crate::ops::guarded("Tensor.__repr__", vm, || {
            tensor_repr(&t, &prefix, suffix.as_deref(), default_dtype(), &options)
                .map_err(|e| crate::ops::tensor_err(e, vm))
        })
    }
}

#[cfg(test)]
mod tests;
