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
//!    meta rule);
//! 4. give it a spec in `tests/numpy_diff/spec_*.rs` (argument generator, NumPy reference, dtype
//!    rule, tolerance), or list it in that suite's `ELSEWHERE` with the reason.

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
    /// Writes into tensor arguments other than a returned `self` (`batch_norm` updating its
    /// running statistics in training): impure, and a mutation for CSE.
    pub const MUTATES_ARGS: OpFlags = OpFlags(1 << 8);
    /// Calls back into the embedding program (`host_call`): only the host can run it, so it is
    /// never sent to a plugin or lowered by the JIT, and never removed as dead code.
    pub const HOST: OpFlags = OpFlags(1 << 9);

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
        self.0 & (Self::INPLACE.0 | Self::RANDOM.0 | Self::MUTATES_ARGS.0 | Self::HOST.0) != 0
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

    // === Appended (ORDER OP): more pointwise ===
    Fmod = "fmod", "fmod(Tensor self, Tensor|Scalar other) -> Tensor", Pointwise, [FUNCTION METHOD], binary;
    Hypot = "hypot", "hypot(Tensor self, Tensor other) -> Tensor", Pointwise, [FUNCTION METHOD COMMUTATIVE], binary;
    BitwiseLeftShift = "bitwise_left_shift", "bitwise_left_shift(Tensor|Scalar self, Tensor|Scalar other) -> Tensor", Pointwise, [FUNCTION METHOD], binary;
    BitwiseRightShift = "bitwise_right_shift", "bitwise_right_shift(Tensor|Scalar self, Tensor|Scalar other) -> Tensor", Pointwise, [FUNCTION METHOD], binary;
    ClampMin = "clamp_min", "clamp_min(Tensor self, Tensor|Scalar min) -> Tensor", Pointwise, [FUNCTION METHOD], binary;
    ClampMax = "clamp_max", "clamp_max(Tensor self, Tensor|Scalar max) -> Tensor", Pointwise, [FUNCTION METHOD], binary;
    Lerp = "lerp", "lerp(Tensor self, Tensor end, Tensor|Scalar weight) -> Tensor", Pointwise, [FUNCTION METHOD], ternary;
    Addcmul = "addcmul", "addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor", Pointwise, [FUNCTION METHOD], ternary;
    Addcdiv = "addcdiv", "addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor", Pointwise, [FUNCTION METHOD], ternary;

    // === Appended: more in place ===
    Neg_ = "neg_", "neg_(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD INPLACE], inplace;
    Abs_ = "abs_", "abs_(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD INPLACE], inplace;
    Exp_ = "exp_", "exp_(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD INPLACE], inplace;
    Log_ = "log_", "log_(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD INPLACE], inplace;
    Sqrt_ = "sqrt_", "sqrt_(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD INPLACE], inplace;
    Rsqrt_ = "rsqrt_", "rsqrt_(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD INPLACE], inplace;
    Sin_ = "sin_", "sin_(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD INPLACE], inplace;
    Cos_ = "cos_", "cos_(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD INPLACE], inplace;
    Tanh_ = "tanh_", "tanh_(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD INPLACE], inplace;
    Sigmoid_ = "sigmoid_", "sigmoid_(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD INPLACE], inplace;
    Relu_ = "relu_", "relu_(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD NN_FUNCTIONAL INPLACE], inplace;
    Floor_ = "floor_", "floor_(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD INPLACE], inplace;
    Ceil_ = "ceil_", "ceil_(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD INPLACE], inplace;
    Round_ = "round_", "round_(Tensor self, *, int decimals=0) -> Tensor", Pointwise, [FUNCTION METHOD INPLACE], inplace;
    Trunc_ = "trunc_", "trunc_(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD INPLACE], inplace;
    Reciprocal_ = "reciprocal_", "reciprocal_(Tensor self) -> Tensor", Pointwise, [FUNCTION METHOD INPLACE], inplace;
    Pow_ = "pow_", "pow_(Tensor self, Tensor|Scalar exponent) -> Tensor", Pointwise, [METHOD INPLACE], inplace;
    Remainder_ = "remainder_", "remainder_(Tensor self, Tensor|Scalar other) -> Tensor", Pointwise, [METHOD INPLACE], inplace;
    Fmod_ = "fmod_", "fmod_(Tensor self, Tensor|Scalar other) -> Tensor", Pointwise, [METHOD INPLACE], inplace;
    FloorDivide_ = "floor_divide_", "floor_divide_(Tensor self, Tensor|Scalar other) -> Tensor", Pointwise, [METHOD INPLACE], inplace;
    Lerp_ = "lerp_", "lerp_(Tensor self, Tensor end, Tensor|Scalar weight) -> Tensor", Pointwise, [METHOD INPLACE], inplace;
    Addcmul_ = "addcmul_", "addcmul_(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor", Pointwise, [METHOD INPLACE], inplace;
    Addcdiv_ = "addcdiv_", "addcdiv_(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor", Pointwise, [METHOD INPLACE], inplace;
    IndexPut_ = "index_put_", "index_put_(Tensor self, Tensor[] indices, Tensor values, bool accumulate=False) -> Tensor", Extern, [FUNCTION METHOD INPLACE], inplace;
    Scatter_ = "scatter_", "scatter_(Tensor self, int dim, Tensor index, Tensor src, *, str? reduce=None) -> Tensor", Extern, [METHOD INPLACE], inplace;
    ScatterValue_ = "scatter_", "scatter_.value(Tensor self, int dim, Tensor index, Scalar value, *, str? reduce=None) -> Tensor", Extern, [METHOD INPLACE], inplace;
    ScatterAdd_ = "scatter_add_", "scatter_add_(Tensor self, int dim, Tensor index, Tensor src) -> Tensor", Extern, [METHOD INPLACE], inplace;
    Normal_ = "normal_", "normal_(Tensor self, float mean=0, float std=1) -> Tensor", Extern, [METHOD INPLACE RANDOM], inplace;
    Uniform_ = "uniform_", "uniform_(Tensor self, float from=0, float to=1) -> Tensor", Extern, [METHOD INPLACE RANDOM], inplace;

    // === Appended: more reductions and scans ===
    Norm = "norm", "norm(Tensor self, Scalar? p=2, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", Reduction, [FUNCTION METHOD], reduce;
    NormStr = "norm", "norm.str(Tensor self, str p, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", Reduction, [FUNCTION METHOD], reduce;
    CountNonzero = "count_nonzero", "count_nonzero(Tensor self, int[1]? dim=None) -> Tensor", Reduction, [FUNCTION METHOD], reduce;
    Cumsum = "cumsum", "cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor", Extern, [FUNCTION METHOD], order;
    Cumprod = "cumprod", "cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor", Extern, [FUNCTION METHOD], order;
    Sort = "sort", "sort(Tensor self, int dim=-1, bool descending=False, *, bool? stable=False) -> (Tensor values, Tensor indices)", Extern, [FUNCTION METHOD], order;
    Argsort = "argsort", "argsort(Tensor self, int dim=-1, bool descending=False, *, bool stable=False) -> Tensor", Extern, [FUNCTION METHOD], order;
    Topk = "topk", "topk(Tensor self, int k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor indices)", Extern, [FUNCTION METHOD], order;

    // === Appended: more linear algebra ===
    Baddbmm = "baddbmm", "baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor", MatMul, [FUNCTION METHOD], linalg;
    Dot = "dot", "dot(Tensor self, Tensor tensor) -> Tensor", MatMul, [FUNCTION METHOD], linalg;
    Mv = "mv", "mv(Tensor self, Tensor vec) -> Tensor", MatMul, [FUNCTION METHOD], linalg;
    Outer = "outer", "outer(Tensor self, Tensor vec2) -> Tensor", Extern, [FUNCTION METHOD], linalg;
    Einsum = "einsum", "einsum(str equation, Tensor[] tensors) -> Tensor", Extern, [FUNCTION], linalg;

    // === Appended: more shape ops ===
    Unbind = "unbind", "unbind(Tensor self, int dim=0) -> Tensor[]", View, [FUNCTION METHOD VIEW], shape;
    Repeat = "repeat", "repeat(Tensor self, int[] repeats) -> Tensor", Extern, [METHOD], rearrange;
    Tile = "tile", "tile(Tensor self, int[] dims) -> Tensor", Extern, [FUNCTION METHOD], rearrange;
    Flip = "flip", "flip(Tensor self, int[] dims) -> Tensor", Extern, [FUNCTION METHOD], rearrange;
    Roll = "roll", "roll(Tensor self, int[1] shifts, int[1] dims=[]) -> Tensor", Extern, [FUNCTION METHOD], rearrange;
    Tril = "tril", "tril(Tensor self, int diagonal=0) -> Tensor", Extern, [FUNCTION METHOD], rearrange;
    Triu = "triu", "triu(Tensor self, int diagonal=0) -> Tensor", Extern, [FUNCTION METHOD], rearrange;
    Gather = "gather", "gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor", Extern, [FUNCTION METHOD], indexing;
    Scatter = "scatter", "scatter(Tensor self, int dim, Tensor index, Tensor src, *, str? reduce=None) -> Tensor", Extern, [FUNCTION METHOD], indexing;
    ScatterValue = "scatter", "scatter.value(Tensor self, int dim, Tensor index, Scalar value, *, str? reduce=None) -> Tensor", Extern, [FUNCTION METHOD], indexing;
    ScatterAdd = "scatter_add", "scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor", Extern, [FUNCTION METHOD], indexing;
    IndexSelect = "index_select", "index_select(Tensor self, int dim, Tensor index) -> Tensor", Extern, [FUNCTION METHOD], indexing;
    Nonzero = "nonzero", "nonzero(Tensor self) -> Tensor", Extern, [FUNCTION METHOD DATA_DEPENDENT], indexing;

    // === Appended: more creation ===
    NewZeros = "new_zeros", "new_zeros(Tensor self, int[] size, *, ScalarType? dtype=None) -> Tensor", Creation, [METHOD], creation;
    NewOnes = "new_ones", "new_ones(Tensor self, int[] size, *, ScalarType? dtype=None) -> Tensor", Creation, [METHOD], creation;
    NewEmpty = "new_empty", "new_empty(Tensor self, int[] size, *, ScalarType? dtype=None) -> Tensor", Creation, [METHOD], creation;
    NewFull = "new_full", "new_full(Tensor self, int[] size, Scalar fill_value, *, ScalarType? dtype=None) -> Tensor", Creation, [METHOD], creation;

    // === Appended: more neural-network functions ===
    Conv1d = "conv1d", "conv1d(Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=1, int[1] padding=0, int[1] dilation=1, int groups=1) -> Tensor", Extern, [FUNCTION NN_FUNCTIONAL], conv;
    Conv1dPadding = "conv1d", "conv1d.padding(Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=1, str padding='valid', int[1] dilation=1, int groups=1) -> Tensor", Extern, [FUNCTION NN_FUNCTIONAL], conv;
    Conv2d = "conv2d", "conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, int[2] padding=0, int[2] dilation=1, int groups=1) -> Tensor", Extern, [FUNCTION NN_FUNCTIONAL], conv;
    Conv2dPadding = "conv2d", "conv2d.padding(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, str padding='valid', int[2] dilation=1, int groups=1) -> Tensor", Extern, [FUNCTION NN_FUNCTIONAL], conv;
    MaxPool2d = "max_pool2d", "max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> Tensor", Extern, [FUNCTION NN_FUNCTIONAL], conv;
    MaxPool2dWithIndices = "max_pool2d_with_indices", "max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> (Tensor output, Tensor indices)", Extern, [NN_FUNCTIONAL], conv;
    AvgPool2d = "avg_pool2d", "avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor", Extern, [NN_FUNCTIONAL], conv;
    AdaptiveAvgPool2d = "adaptive_avg_pool2d", "adaptive_avg_pool2d(Tensor self, int[2] output_size) -> Tensor", Extern, [NN_FUNCTIONAL], conv;
    BatchNorm = "batch_norm", "batch_norm(Tensor input, Tensor? running_mean, Tensor? running_var, Tensor? weight=None, Tensor? bias=None, bool training=False, float momentum=0.1, float eps=1e-05) -> Tensor", Extern, [NN_FUNCTIONAL MUTATES_ARGS], nn;
    GroupNorm = "group_norm", "group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, float eps=1e-05) -> Tensor", Extern, [FUNCTION NN_FUNCTIONAL], nn;
    Pad = "pad", "pad(Tensor input, int[] pad, str mode='constant', float? value=None) -> Tensor", Extern, [NN_FUNCTIONAL], nn;
    CrossEntropy = "cross_entropy", "cross_entropy(Tensor input, Tensor target, Tensor? weight=None, bool? size_average=None, int ignore_index=-100, bool? reduce=None, str reduction='mean', float label_smoothing=0.0) -> Tensor", Extern, [NN_FUNCTIONAL], loss;
    NllLoss = "nll_loss", "nll_loss(Tensor input, Tensor target, Tensor? weight=None, bool? size_average=None, int ignore_index=-100, bool? reduce=None, str reduction='mean') -> Tensor", Extern, [NN_FUNCTIONAL], loss;
    MseLoss = "mse_loss", "mse_loss(Tensor input, Tensor target, bool? size_average=None, bool? reduce=None, str reduction='mean') -> Tensor", Extern, [NN_FUNCTIONAL], loss;
    L1Loss = "l1_loss", "l1_loss(Tensor input, Tensor target, bool? size_average=None, bool? reduce=None, str reduction='mean') -> Tensor", Extern, [NN_FUNCTIONAL], loss;
    ScaledDotProductAttention = "scaled_dot_product_attention", "scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, float dropout_p=0.0, bool is_causal=False, *, float? scale=None, bool enable_gqa=False) -> Tensor", Extern, [NN_FUNCTIONAL RANDOM], loss;

    // === Host calls ===
    HostCall = "host_call", "host_call(Tensor[] inputs, int callee) -> Tensor[]", Extern, [HOST], host;

    // === Index tuples (`nonzero_numpy` is what `x.nonzero(as_tuple=True)` binds to, see
    // rynamo-shims `bind_overload`; like PyTorch it has no Python name of its own) ===
    WhereCond = "where", "where.cond(Tensor condition) -> Tensor[]", Extern, [FUNCTION DATA_DEPENDENT], indexing;
    NonzeroNumpy = "nonzero_numpy", "nonzero_numpy(Tensor self) -> Tensor[]", Extern, [DATA_DEPENDENT], indexing;

    // === Appended later (wire ids are positions: new ops go at the end) ===
    ViewDtype = "view", "view.dtype(Tensor self, ScalarType dtype) -> Tensor", Extern, [METHOD VIEW], views;
    Cummax = "cummax", "cummax(Tensor self, int dim) -> (Tensor values, Tensor indices)", Extern, [FUNCTION METHOD], order;
    Cummin = "cummin", "cummin(Tensor self, int dim) -> (Tensor values, Tensor indices)", Extern, [FUNCTION METHOD], order;
    Logcumsumexp = "logcumsumexp", "logcumsumexp(Tensor self, int dim) -> Tensor", Extern, [FUNCTION METHOD], order;

    // === Issue 29 (models helper): sampling and torch.linalg (rules in rules/models.rs) ===
    Multinomial = "multinomial", "multinomial(Tensor self, int num_samples, bool replacement=False) -> Tensor", Extern, [FUNCTION METHOD RANDOM], models;
    LinalgInv = "_linalg_inv", "_linalg_inv(Tensor A) -> Tensor", Extern, [FUNCTION], models;
    LinalgSolve = "_linalg_solve", "_linalg_solve(Tensor A, Tensor B) -> Tensor", Extern, [FUNCTION], models;
    LinalgDet = "_linalg_det", "_linalg_det(Tensor A) -> Tensor", Extern, [FUNCTION], models;
    LinalgSlogdet = "_linalg_slogdet", "_linalg_slogdet(Tensor A) -> (Tensor sign, Tensor logabsdet)", Extern, [FUNCTION], models;
    LinalgCholesky = "_linalg_cholesky", "_linalg_cholesky(Tensor A, bool upper=False) -> Tensor", Extern, [FUNCTION], models;
    LinalgQr = "_linalg_qr", "_linalg_qr(Tensor A, str mode='reduced') -> (Tensor Q, Tensor R)", Extern, [FUNCTION], models;
    LinalgSvd = "_linalg_svd", "_linalg_svd(Tensor A, bool full_matrices=True) -> (Tensor U, Tensor S, Tensor Vh)", Extern, [FUNCTION], models;
    LinalgEigh = "_linalg_eigh", "_linalg_eigh(Tensor A, str UPLO='L') -> (Tensor eigenvalues, Tensor eigenvectors)", Extern, [FUNCTION], models;
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
