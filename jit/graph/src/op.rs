//! THE op table. One row per op: variant, Python name, schema, lowering kind, flags, and the
//! rules module that holds its meta rule and eager kernel. The `ops!` macro expands it into
//! [`Op`] and its metadata accessors.
//!
//! ORDER OP: the enum order is the wire-format order (plugins serialise `Op as u16`). Append only:
//! a new op goes at the END of the table, whatever its family.
//!
//! Adding an op:
//! 1. append a row: `Name = "py_name", "schema", Lowering, [FLAGS], rules_module;`
//! 2. handle `Op::Name` in that rules module's `meta` and `eager` (usually one match arm each,
//!    calling a `*_meta` rule and a kernel in `rynamo_tensor`);
//! 3. give it a sample call in `tests/samples.rs` (every op is run there and checked against its
//!    meta rule).

use std::collections::HashMap;
use std::sync::OnceLock;

use rynamo_tensor::{Shaped, Tensor, TensorMeta};

use crate::schema::Schema;
use crate::{IValue, Result, Value, rules};

/// How a backend lowers an op.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lowering {
    /// Elementwise with broadcasting: fusable.
    Pointwise,
    /// Reduces dims: fusable as a trailing reduction.
    Reduction,
    /// Output aliases the input with new strides: folds into index math.
    View,
    /// Matrix products: an external GEMM call.
    MatMul,
    /// Produces a tensor from arguments only (zeros, arange, rand...).
    Creation,
    /// Anything else: an opaque call into the eager kernel.
    Extern,
}

/// Per-op flags: Python surfaces and semantic properties.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OpFlags(u32);

impl OpFlags {
    /// No flags.
    pub const NONE: OpFlags = OpFlags(0);
    /// Exposed as `torch.<name>`.
    pub const FUNCTION: OpFlags = OpFlags(1);
    /// Exposed as `Tensor.<name>`.
    pub const METHOD: OpFlags = OpFlags(1 << 1);
    /// Mutates its first argument in place and returns it (`add_`, `__setitem__`).
    pub const INPLACE: OpFlags = OpFlags(1 << 2);
    /// Exposed as `torch.nn.functional.<name>`.
    pub const NN_FUNCTIONAL: OpFlags = OpFlags(1 << 3);
    /// `op(a, b) == op(b, a)`.
    pub const COMMUTATIVE: OpFlags = OpFlags(1 << 4);
    /// Draws from the RNG: not pure, never CSE'd or removed as dead code.
    pub const RANDOM: OpFlags = OpFlags(1 << 5);
    /// Outputs always alias the first input's storage.
    pub const VIEW: OpFlags = OpFlags(1 << 6);
    /// Output shape may depend on data (boolean-mask indexing): meta can fail.
    pub const DATA_DEPENDENT: OpFlags = OpFlags(1 << 7);
    /// Calls back into the embedding program (`host_call`): only the host can run it, so it is
    /// never sent to a plugin or lowered by the JIT, and never removed as dead code.
    pub const HOST: OpFlags = OpFlags(1 << 8);

    /// Union.
    pub const fn union(self, o: OpFlags) -> OpFlags {
        OpFlags(self.0 | o.0)
    }
    /// Whether all of `o` is set.
    pub const fn contains(self, o: OpFlags) -> bool {
        self.0 & o.0 == o.0
    }
    /// Whether the op may have effects beyond its outputs (in-place writes, RNG draws, host code).
    pub const fn is_impure(self) -> bool {
        self.0 & (Self::INPLACE.0 | Self::RANDOM.0 | Self::HOST.0) != 0
    }
}

macro_rules! ops {
    ($($v:ident = $py:literal, $schema:literal, $low:ident, [$($flag:ident)*], $rules:ident;)*) => {
        /// Every registered op.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u16)]
        #[allow(missing_docs, reason = "each variant is the op named by its schema")]
        #[allow(non_camel_case_types, reason = "in-place ops keep ATen's trailing underscore: Add_ is add_")]
        pub enum Op { $($v),* }

        impl Op {
            /// All ops in wire order.
            pub const ALL: &'static [Op] = &[$(Op::$v),*];

            /// The Python name (`torch.<name>` / `Tensor.<name>`); overloads share it.
            pub const fn py_name(self) -> &'static str {
                match self { $(Op::$v => $py),* }
            }

            /// The schema source text.
            pub const fn schema_src(self) -> &'static str {
                match self { $(Op::$v => $schema),* }
            }

            /// How backends lower it.
            pub const fn lowering(self) -> Lowering {
                match self { $(Op::$v => Lowering::$low),* }
            }

            /// Surfaces and properties.
            pub const fn flags(self) -> OpFlags {
                match self { $(Op::$v => OpFlags::NONE $(.union(OpFlags::$flag))*),* }
            }

            /// Runs the meta rule on any tensor-like arguments (bound, in schema order).
            pub(crate) fn meta_rule<T: Shaped + Clone>(self, args: &[Value<T>]) -> Result<Vec<TensorMeta>> {
                match self { $(Op::$v => rules::$rules::meta(self, args)),* }
            }

            /// Runs the eager kernel (bound arguments, in schema order).
            pub(crate) fn eager_kernel(self, args: &[IValue]) -> Result<Vec<Tensor>> {
                match self { $(Op::$v => rules::$rules::eager(self, args)),* }
            }
        }
    };
}

ops! {
    // === Unary pointwise ===
    Neg = "neg", "neg(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD], unary;
    Abs = "abs", "abs(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD], unary;
    Exp = "exp", "exp(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD], unary;
    Exp2 = "exp2", "exp2(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD], unary;
    Expm1 = "expm1", "expm1(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD], unary;
    Log = "log", "log(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD], unary;
    Log2 = "log2", "log2(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD], unary;
    Log10 = "log10", "log10(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD], unary;
    Log1p = "log1p", "log1p(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD], unary;
    Sqrt = "sqrt", "sqrt(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD], unary;
    Rsqrt = "rsqrt", "rsqrt(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD], unary;
    Sin = "sin", "sin(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD], unary;
    Cos = "cos", "cos(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD], unary;
    Tan = "tan", "tan(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD], unary;
    Asin = "asin", "asin(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD], unary;
    Acos = "acos", "acos(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD], unary;
    Atan = "atan", "atan(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD], unary;
    Sinh = "sinh", "sinh(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD], unary;
    Cosh = "cosh", "cosh(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD], unary;
    Tanh = "tanh", "tanh(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD NN_FUNCTIONAL], unary;
    Sigmoid = "sigmoid", "sigmoid(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD NN_FUNCTIONAL], unary;
    Relu = "relu", "relu(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD NN_FUNCTIONAL], unary;
    Relu6 = "relu6", "relu6(Tensor self) -> Tensor", Pointwise, [NN_FUNCTIONAL], unary;
    LeakyRelu = "leaky_relu", "leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor", Pointwise, [NN_FUNCTIONAL], unary;
    Elu = "elu", "elu(Tensor self, Scalar alpha=1.0) -> Tensor", Pointwise, [NN_FUNCTIONAL], unary;
    Gelu = "gelu", "gelu(Tensor self, *, str approximate='none') -> Tensor", Pointwise, [NN_FUNCTIONAL], unary;
    Silu = "silu", "silu(Tensor self) -> Tensor", Pointwise, [NN_FUNCTIONAL], unary;
    Mish = "mish", "mish(Tensor self) -> Tensor", Pointwise, [NN_FUNCTIONAL], unary;
    Softplus = "softplus", "softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor", Pointwise, [NN_FUNCTIONAL], unary;
    Erf = "erf", "erf(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD], unary;
    Floor = "floor", "floor(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD], unary;
    Ceil = "ceil", "ceil(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD], unary;
    Round = "round", "round(Tensor self, *, int decimals=0) -> Tensor", Pointwise, [FUNCTION METHOD], unary;
    Trunc = "trunc", "trunc(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD], unary;
    Frac = "frac", "frac(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD], unary;
    Sign = "sign", "sign(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD], unary;
    Reciprocal = "reciprocal", "reciprocal(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD], unary;
    Square = "square", "square(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD], unary;
    LogicalNot = "logical_not", "logical_not(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD], unary;
    BitwiseNot = "bitwise_not", "bitwise_not(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD], unary;
    IsNan = "isnan", "isnan(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD], unary;
    IsInf = "isinf", "isinf(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD], unary;
    IsFinite = "isfinite", "isfinite(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD], unary;
    NanToNum = "nan_to_num", "nan_to_num(Tensor self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor", Pointwise, [FUNCTION METHOD], unary;
    Clamp = "clamp", "clamp(Tensor self, Tensor|Scalar? min=None, Tensor|Scalar? max=None) -> Tensor", Pointwise, [FUNCTION METHOD], binary;
    Clip = "clip", "clip(Tensor self, Tensor|Scalar? min=None, Tensor|Scalar? max=None) -> Tensor", Pointwise, [FUNCTION METHOD], binary;

    // === Binary pointwise ===
    Add = "add", "add(Tensor|Scalar self, Tensor|Scalar other, *, Scalar alpha=1) -> Tensor", Pointwise, [FUNCTION METHOD COMMUTATIVE], binary;
    Sub = "sub", "sub(Tensor|Scalar self, Tensor|Scalar other, *, Scalar alpha=1) -> Tensor", Pointwise, [FUNCTION METHOD], binary;
    Mul = "mul", "mul(Tensor|Scalar self, Tensor|Scalar other) -> Tensor", Pointwise, [FUNCTION METHOD COMMUTATIVE], binary;
    Div = "div", "div(Tensor|Scalar self, Tensor|Scalar other, *, str? rounding_mode=None) -> Tensor", Pointwise, [FUNCTION METHOD], binary;
    FloorDivide = "floor_divide", "floor_divide(Tensor|Scalar self, Tensor|Scalar other) -> Tensor", Pointwise, [FUNCTION METHOD], binary;
    Remainder = "remainder", "remainder(Tensor|Scalar self, Tensor|Scalar other) -> Tensor", Pointwise, [FUNCTION METHOD], binary;
    Pow = "pow", "pow(Tensor|Scalar self, Tensor|Scalar exponent) -> Tensor", Pointwise, [FUNCTION METHOD], binary;
    Maximum = "maximum", "maximum(Tensor self, Tensor other) -> Tensor", Pointwise, [FUNCTION METHOD COMMUTATIVE], binary;
    Minimum = "minimum", "minimum(Tensor self, Tensor other) -> Tensor", Pointwise, [FUNCTION METHOD COMMUTATIVE], binary;
    Eq = "eq", "eq(Tensor|Scalar self, Tensor|Scalar other) -> Tensor", Pointwise, [FUNCTION METHOD COMMUTATIVE], binary;
    Ne = "ne", "ne(Tensor|Scalar self, Tensor|Scalar other) -> Tensor", Pointwise, [FUNCTION METHOD COMMUTATIVE], binary;
    Lt = "lt", "lt(Tensor|Scalar self, Tensor|Scalar other) -> Tensor", Pointwise, [FUNCTION METHOD], binary;
    Le = "le", "le(Tensor|Scalar self, Tensor|Scalar other) -> Tensor", Pointwise, [FUNCTION METHOD], binary;
    Gt = "gt", "gt(Tensor|Scalar self, Tensor|Scalar other) -> Tensor", Pointwise, [FUNCTION METHOD], binary;
    Ge = "ge", "ge(Tensor|Scalar self, Tensor|Scalar other) -> Tensor", Pointwise, [FUNCTION METHOD], binary;
    LogicalAnd = "logical_and", "logical_and(Tensor self, Tensor|Scalar other) -> Tensor", Pointwise, [FUNCTION METHOD COMMUTATIVE], binary;
    LogicalOr = "logical_or", "logical_or(Tensor self, Tensor|Scalar other) -> Tensor", Pointwise, [FUNCTION METHOD COMMUTATIVE], binary;
    LogicalXor = "logical_xor", "logical_xor(Tensor self, Tensor|Scalar other) -> Tensor", Pointwise, [FUNCTION METHOD COMMUTATIVE], binary;
    BitwiseAnd = "bitwise_and", "bitwise_and(Tensor|Scalar self, Tensor|Scalar other) -> Tensor", Pointwise, [FUNCTION METHOD COMMUTATIVE], binary;
    BitwiseOr = "bitwise_or", "bitwise_or(Tensor|Scalar self, Tensor|Scalar other) -> Tensor", Pointwise, [FUNCTION METHOD COMMUTATIVE], binary;
    BitwiseXor = "bitwise_xor", "bitwise_xor(Tensor|Scalar self, Tensor|Scalar other) -> Tensor", Pointwise, [FUNCTION METHOD COMMUTATIVE], binary;
    Atan2 = "atan2", "atan2(Tensor self, Tensor other) -> Tensor", Pointwise, [FUNCTION METHOD], binary;
    Where = "where", "where(Tensor condition, Tensor|Scalar self, Tensor|Scalar other) -> Tensor", Pointwise, [FUNCTION], binary;
    MaskedFill = "masked_fill", "masked_fill(Tensor self, Tensor mask, Tensor|Scalar value) -> Tensor", Pointwise, [FUNCTION METHOD], binary;
    MaxOther = "max", "max.other(Tensor self, Tensor other) -> Tensor", Pointwise, [FUNCTION METHOD COMMUTATIVE], binary;
    MinOther = "min", "min.other(Tensor self, Tensor other) -> Tensor", Pointwise, [FUNCTION METHOD COMMUTATIVE], binary;

    // === In place ===
    Add_ = "add_", "add_(Tensor self, Tensor|Scalar other, *, Scalar alpha=1) -> Tensor", Pointwise, [METHOD INPLACE], inplace;
    Sub_ = "sub_", "sub_(Tensor self, Tensor|Scalar other, *, Scalar alpha=1) -> Tensor", Pointwise, [METHOD INPLACE], inplace;
    Mul_ = "mul_", "mul_(Tensor self, Tensor|Scalar other) -> Tensor", Pointwise, [METHOD INPLACE], inplace;
    Div_ = "div_", "div_(Tensor self, Tensor|Scalar other, *, str? rounding_mode=None) -> Tensor", Pointwise, [METHOD INPLACE], inplace;
    Clamp_ = "clamp_", "clamp_(Tensor self, Tensor|Scalar? min=None, Tensor|Scalar? max=None) -> Tensor", Pointwise, [METHOD INPLACE], inplace;
    Copy_ = "copy_", "copy_(Tensor self, Tensor src) -> Tensor", Pointwise, [METHOD INPLACE], inplace;
    Zero_ = "zero_", "zero_(Tensor self) -> Tensor", Pointwise, [METHOD INPLACE], inplace;
    Fill_ = "fill_", "fill_(Tensor self, Tensor|Scalar value) -> Tensor", Pointwise, [METHOD INPLACE], inplace;
    MaskedFill_ = "masked_fill_", "masked_fill_(Tensor self, Tensor mask, Tensor|Scalar value) -> Tensor", Pointwise, [METHOD INPLACE], inplace;
    SetItem = "__setitem__", "__setitem__(Tensor self, Index[] indices, Tensor|Scalar value) -> Tensor", Extern, [METHOD INPLACE], inplace;

    // === Reductions ===
    Sum = "sum", "sum(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", Reduction, [FUNCTION METHOD], reduce;
    Mean = "mean", "mean(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", Reduction, [FUNCTION METHOD], reduce;
    Prod = "prod", "prod(Tensor self, int? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", Reduction, [FUNCTION METHOD], reduce;
    Amax = "amax", "amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor", Reduction, [FUNCTION METHOD], reduce;
    Amin = "amin", "amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor", Reduction, [FUNCTION METHOD], reduce;
    Max = "max", "max(Tensor self) -> Tensor", Reduction, [FUNCTION METHOD], reduce;
    MaxDim = "max", "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)", Reduction, [FUNCTION METHOD], reduce;
    Min = "min", "min(Tensor self) -> Tensor", Reduction, [FUNCTION METHOD], reduce;
    MinDim = "min", "min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)", Reduction, [FUNCTION METHOD], reduce;
    Argmax = "argmax", "argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor", Reduction, [FUNCTION METHOD], reduce;
    Argmin = "argmin", "argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor", Reduction, [FUNCTION METHOD], reduce;
    Var = "var", "var(Tensor self, int[1]? dim=None, bool? unbiased=None, bool keepdim=False, *, Scalar? correction=None) -> Tensor", Reduction, [FUNCTION METHOD], reduce;
    Std = "std", "std(Tensor self, int[1]? dim=None, bool? unbiased=None, bool keepdim=False, *, Scalar? correction=None) -> Tensor", Reduction, [FUNCTION METHOD], reduce;
    LogSumExp = "logsumexp", "logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor", Reduction, [FUNCTION METHOD], reduce;
    All = "all", "all(Tensor self, int? dim=None, bool keepdim=False) -> Tensor", Reduction, [FUNCTION METHOD], reduce;
    Any = "any", "any(Tensor self, int? dim=None, bool keepdim=False) -> Tensor", Reduction, [FUNCTION METHOD], reduce;
    Softmax = "softmax", "softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor", Extern, [FUNCTION METHOD NN_FUNCTIONAL], reduce;
    LogSoftmax = "log_softmax", "log_softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor", Extern, [FUNCTION METHOD NN_FUNCTIONAL], reduce;

    // === Linear algebra ===
    Matmul = "matmul", "matmul(Tensor self, Tensor other) -> Tensor", MatMul, [FUNCTION METHOD], linalg;
    Mm = "mm", "mm(Tensor self, Tensor mat2) -> Tensor", MatMul, [FUNCTION METHOD], linalg;
    Bmm = "bmm", "bmm(Tensor self, Tensor mat2) -> Tensor", MatMul, [FUNCTION METHOD], linalg;
    Addmm = "addmm", "addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor", MatMul, [FUNCTION METHOD], linalg;
    Linear = "linear", "linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor", MatMul, [NN_FUNCTIONAL], linalg;

    // === Views ===
    View = "view", "view(Tensor self, int[] size) -> Tensor", View, [METHOD VIEW], views;
    Reshape = "reshape", "reshape(Tensor self, int[] shape) -> Tensor", View, [FUNCTION METHOD], views;
    Permute = "permute", "permute(Tensor self, int[] dims) -> Tensor", View, [FUNCTION METHOD VIEW], views;
    Transpose = "transpose", "transpose(Tensor self, int dim0, int dim1) -> Tensor", View, [FUNCTION METHOD VIEW], views;
    T = "t", "t(Tensor self) -> Tensor", View, [FUNCTION METHOD VIEW], views;
    Expand = "expand", "expand(Tensor self, int[] size) -> Tensor", View, [METHOD VIEW], views;
    Slice = "slice", "slice(Tensor self, int dim=0, int? start=None, int? end=None, int step=1) -> Tensor", View, [VIEW], views;
    Select = "select", "select(Tensor self, int dim, int index) -> Tensor", View, [FUNCTION METHOD VIEW], views;
    Narrow = "narrow", "narrow(Tensor self, int dim, int start, int length) -> Tensor", View, [FUNCTION METHOD VIEW], views;
    Unsqueeze = "unsqueeze", "unsqueeze(Tensor self, int dim) -> Tensor", View, [FUNCTION METHOD VIEW], views;
    Squeeze = "squeeze", "squeeze(Tensor self, int[]? dim=None) -> Tensor", View, [FUNCTION METHOD VIEW], views;
    Unflatten = "unflatten", "unflatten(Tensor self, int dim, int[] sizes) -> Tensor", View, [FUNCTION METHOD VIEW], views;
    Flatten = "flatten", "flatten(Tensor self, int start_dim=0, int end_dim=-1) -> Tensor", View, [FUNCTION METHOD], views;
    AsStrided = "as_strided", "as_strided(Tensor self, int[] size, int[] stride, int? storage_offset=None) -> Tensor", View, [FUNCTION METHOD VIEW], views;
    Diagonal = "diagonal", "diagonal(Tensor self, int offset=0, int dim1=0, int dim2=1) -> Tensor", View, [FUNCTION METHOD VIEW], views;
    Contiguous = "contiguous", "contiguous(Tensor self) -> Tensor", Pointwise, [METHOD], views;
    Clone = "clone", "clone(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD], views;
    GetItem = "__getitem__", "__getitem__(Tensor self, Index[] indices) -> Tensor", Extern, [METHOD DATA_DEPENDENT], views;
    To = "to", "to(Tensor self, ScalarType? dtype=None, *, bool copy=False) -> Tensor", Pointwise, [METHOD], views;
    Type = "type", "type(Tensor self, ScalarType dtype) -> Tensor", Pointwise, [METHOD], views;

    // === Joining and splitting ===
    Cat = "cat", "cat(Tensor[] tensors, int dim=0) -> Tensor", Extern, [FUNCTION], shape;
    Stack = "stack", "stack(Tensor[] tensors, int dim=0) -> Tensor", Extern, [FUNCTION], shape;
    Split = "split", "split(Tensor self, int split_size, int dim=0) -> Tensor[]", View, [FUNCTION METHOD VIEW], shape;
    SplitSizes = "split", "split.sizes(Tensor self, int[] split_size, int dim=0) -> Tensor[]", View, [FUNCTION METHOD VIEW], shape;
    Chunk = "chunk", "chunk(Tensor self, int chunks, int dim=0) -> Tensor[]", View, [FUNCTION METHOD VIEW], shape;

    // === Creation ===
    Zeros = "zeros", "zeros(int[] size, *, ScalarType? dtype=None) -> Tensor", Creation, [FUNCTION], creation;
    Ones = "ones", "ones(int[] size, *, ScalarType? dtype=None) -> Tensor", Creation, [FUNCTION], creation;
    Empty = "empty", "empty(int[] size, *, ScalarType? dtype=None) -> Tensor", Creation, [FUNCTION], creation;
    Full = "full", "full(int[] size, Scalar fill_value, *, ScalarType? dtype=None) -> Tensor", Creation, [FUNCTION], creation;
    ZerosLike = "zeros_like", "zeros_like(Tensor self, *, ScalarType? dtype=None) -> Tensor", Creation, [FUNCTION], creation;
    OnesLike = "ones_like", "ones_like(Tensor self, *, ScalarType? dtype=None) -> Tensor", Creation, [FUNCTION], creation;
    EmptyLike = "empty_like", "empty_like(Tensor self, *, ScalarType? dtype=None) -> Tensor", Creation, [FUNCTION], creation;
    FullLike = "full_like", "full_like(Tensor self, Scalar fill_value, *, ScalarType? dtype=None) -> Tensor", Creation, [FUNCTION], creation;
    Arange = "arange", "arange(Scalar start, Scalar? end=None, Scalar step=1, *, ScalarType? dtype=None) -> Tensor", Creation, [FUNCTION], creation;
    Linspace = "linspace", "linspace(Scalar start, Scalar end, int steps, *, ScalarType? dtype=None) -> Tensor", Creation, [FUNCTION], creation;
    Eye = "eye", "eye(int n, int? m=None, *, ScalarType? dtype=None) -> Tensor", Creation, [FUNCTION], creation;
    ScalarTensor = "scalar_tensor", "scalar_tensor(Scalar s, *, ScalarType? dtype=None) -> Tensor", Creation, [FUNCTION], creation;
    Rand = "rand", "rand(int[] size, *, ScalarType? dtype=None) -> Tensor", Creation, [FUNCTION RANDOM], creation;
    Randn = "randn", "randn(int[] size, *, ScalarType? dtype=None) -> Tensor", Creation, [FUNCTION RANDOM], creation;
    RandLike = "rand_like", "rand_like(Tensor self, *, ScalarType? dtype=None) -> Tensor", Creation, [FUNCTION RANDOM], creation;
    RandnLike = "randn_like", "randn_like(Tensor self, *, ScalarType? dtype=None) -> Tensor", Creation, [FUNCTION RANDOM], creation;
    Randint = "randint", "randint(int high, int[] size, *, ScalarType? dtype=None) -> Tensor", Creation, [FUNCTION RANDOM], creation;
    RandintLow = "randint", "randint.low(int low, int high, int[] size, *, ScalarType? dtype=None) -> Tensor", Creation, [FUNCTION RANDOM], creation;
    Randperm = "randperm", "randperm(int n, *, ScalarType? dtype=None) -> Tensor", Creation, [FUNCTION RANDOM], creation;

    // === Neural-network functions ===
    LayerNorm = "layer_norm", "layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05) -> Tensor", Extern, [FUNCTION NN_FUNCTIONAL], nn;
    Embedding = "embedding", "embedding(Tensor input, Tensor weight, int? padding_idx=None) -> Tensor", Extern, [NN_FUNCTIONAL], nn;
    Dropout = "dropout", "dropout(Tensor input, float p=0.5, bool training=True) -> Tensor", Extern, [NN_FUNCTIONAL RANDOM], nn;
    // === Host calls (append new ops above this block only if they predate it) ===
    HostCall = "host_call", "host_call(Tensor[] inputs, int callee) -> Tensor[]", Extern, [HOST], host;
}

fn schemas() -> &'static [Schema] {
    static S: OnceLock<Vec<Schema>> = OnceLock::new();
    S.get_or_init(|| {
        Op::ALL
            .iter()
            .map(|op| {
                Schema::parse(op.schema_src())
                    .expect("invariant: op table schemas parse (checked by tests)")
            })
            .collect()
    })
}

/// Op lookup tables: schema name -> op, and Python name -> overloads.
struct Names {
    full: HashMap<&'static str, Op>,
    py: HashMap<&'static str, Vec<Op>>,
}

fn by_name() -> &'static Names {
    static M: OnceLock<Names> = OnceLock::new();
    M.get_or_init(|| {
        let mut n = Names {
            full: HashMap::new(),
            py: HashMap::new(),
        };
        for &op in Op::ALL {
            n.full.insert(op.schema().name.as_str(), op);
            n.py.entry(op.py_name()).or_default().push(op);
        }
        n
    })
}

impl Op {
    /// The parsed schema (parsed once for all ops, on first use).
    pub fn schema(self) -> &'static Schema {
        &schemas()[self as usize]
    }

    /// The schema name (`max.dim`), used in graph text.
    pub fn name(self) -> &'static str {
        &self.schema().name
    }

    /// Looks up an op by schema name (`"max.dim"`, `"add"`).
    pub fn from_name(name: &str) -> Option<Op> {
        by_name().full.get(name).copied()
    }

    /// All overloads sharing a Python name, in table order.
    pub fn overloads(py_name: &str) -> &'static [Op] {
        by_name().py.get(py_name).map_or(&[], Vec::as_slice)
    }

    /// Wire id.
    pub const fn id(self) -> u16 {
        self as u16
    }

    /// The op with this wire id.
    pub fn from_id(id: u16) -> Option<Op> {
        Op::ALL.get(id as usize).copied()
    }
}

impl std::fmt::Display for Op {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
