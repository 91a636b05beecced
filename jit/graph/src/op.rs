//! THE op table: each op's wire id and where its definition ([`OpDef`]) lives. The `ops!` macro
//! expands it into [`Op`] (explicit discriminants: the ids) and [`Op::def`].
//!
//! ORDER OP: ids are the wire format (plugins serialise `op.id()`) and never change; a new op takes
//! the next id at the END of the table, whatever its family. `tests/wire_ids.rs` fails when an
//! existing id changes.
//!
//! Adding an op: see ARCHITECTURE.md, "Adding an op".

use std::collections::HashMap;
use std::sync::OnceLock;

use rynamo_tensor::{Tensor, TensorMeta};

use crate::def::OpDef;
use crate::rules::*;
use crate::schema::Schema;
use crate::{IValue, Result, Value};

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
    ($($v:ident = $id:literal => $($def:ident)::+;)*) => {
        /// Every registered op; the discriminant is the wire id.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u16)]
        #[allow(missing_docs, reason = "each variant is the op named by its schema")]
        #[allow(non_camel_case_types, reason = "in-place ops keep ATen's trailing underscore: Add_ is add_")]
        pub enum Op { $($v = $id),* }

        impl Op {
            /// All ops in wire order.
            pub const ALL: &'static [Op] = &[$(Op::$v),*];

            /// The op's definition.
            pub fn def(self) -> &'static OpDef {
                match self { $(Op::$v => &$($def)::+::DEF),* }
            }
        }
    };
}

ops! {
    // === Unary pointwise ===
    Neg = 0 => unary::neg;
    Abs = 1 => unary::abs;
    Exp = 2 => unary::exp;
    Exp2 = 3 => unary::exp2;
    Expm1 = 4 => unary::expm1;
    Log = 5 => unary::log;
    Log2 = 6 => unary::log2;
    Log10 = 7 => unary::log10;
    Log1p = 8 => unary::log1p;
    Sqrt = 9 => unary::sqrt;
    Rsqrt = 10 => unary::rsqrt;
    Sin = 11 => unary::sin;
    Cos = 12 => unary::cos;
    Tan = 13 => unary::tan;
    Asin = 14 => unary::asin;
    Acos = 15 => unary::acos;
    Atan = 16 => unary::atan;
    Sinh = 17 => unary::sinh;
    Cosh = 18 => unary::cosh;
    Tanh = 19 => unary::tanh;
    Sigmoid = 20 => unary::sigmoid;
    Relu = 21 => unary::relu;
    Relu6 = 22 => unary::relu6;
    LeakyRelu = 23 => unary::leaky_relu;
    Elu = 24 => unary::elu;
    Gelu = 25 => unary::gelu;
    Silu = 26 => unary::silu;
    Mish = 27 => unary::mish;
    Softplus = 28 => unary::softplus;
    Erf = 29 => unary::erf;
    Floor = 30 => unary::floor;
    Ceil = 31 => unary::ceil;
    Round = 32 => unary::round;
    Trunc = 33 => unary::trunc;
    Frac = 34 => unary::frac;
    Sign = 35 => unary::sign;
    Reciprocal = 36 => unary::reciprocal;
    Square = 37 => unary::square;
    LogicalNot = 38 => unary::logical_not;
    BitwiseNot = 39 => unary::bitwise_not;
    IsNan = 40 => unary::is_nan;
    IsInf = 41 => unary::is_inf;
    IsFinite = 42 => unary::is_finite;
    NanToNum = 43 => unary::nan_to_num;
    Clamp = 44 => binary::clamp;
    Clip = 45 => binary::clip;

    // === Binary pointwise ===
    Add = 46 => binary::add;
    Sub = 47 => binary::sub;
    Mul = 48 => binary::mul;
    Div = 49 => binary::div;
    FloorDivide = 50 => binary::floor_divide;
    Remainder = 51 => binary::remainder;
    Pow = 52 => binary::pow;
    Maximum = 53 => binary::maximum;
    Minimum = 54 => binary::minimum;
    Eq = 55 => binary::eq;
    Ne = 56 => binary::ne;
    Lt = 57 => binary::lt;
    Le = 58 => binary::le;
    Gt = 59 => binary::gt;
    Ge = 60 => binary::ge;
    LogicalAnd = 61 => binary::logical_and;
    LogicalOr = 62 => binary::logical_or;
    LogicalXor = 63 => binary::logical_xor;
    BitwiseAnd = 64 => binary::bitwise_and;
    BitwiseOr = 65 => binary::bitwise_or;
    BitwiseXor = 66 => binary::bitwise_xor;
    Atan2 = 67 => binary::atan2;
    Where = 68 => binary::r#where;
    MaskedFill = 69 => binary::masked_fill;
    MaxOther = 70 => binary::max_other;
    MinOther = 71 => binary::min_other;

    // === In place ===
    Add_ = 72 => binary::add_;
    Sub_ = 73 => binary::sub_;
    Mul_ = 74 => binary::mul_;
    Div_ = 75 => binary::div_;
    Clamp_ = 76 => binary::clamp_;
    Copy_ = 77 => inplace::copy_;
    Zero_ = 78 => inplace::zero_;
    Fill_ = 79 => inplace::fill_;
    MaskedFill_ = 80 => binary::masked_fill_;
    SetItem = 81 => inplace::set_item;

    // === Reductions ===
    Sum = 82 => reduce::sum;
    Mean = 83 => reduce::mean;
    Prod = 84 => reduce::prod;
    Amax = 85 => reduce::amax;
    Amin = 86 => reduce::amin;
    Max = 87 => reduce::max;
    MaxDim = 88 => reduce::max_dim;
    Min = 89 => reduce::min;
    MinDim = 90 => reduce::min_dim;
    Argmax = 91 => reduce::argmax;
    Argmin = 92 => reduce::argmin;
    Var = 93 => reduce::var;
    Std = 94 => reduce::std;
    LogSumExp = 95 => reduce::log_sum_exp;
    All = 96 => reduce::all;
    Any = 97 => reduce::any;
    Softmax = 98 => reduce::softmax;
    LogSoftmax = 99 => reduce::log_softmax;

    // === Linear algebra ===
    Matmul = 100 => linalg::matmul;
    Mm = 101 => linalg::mm;
    Bmm = 102 => linalg::bmm;
    Addmm = 103 => linalg::addmm;
    Linear = 104 => linalg::linear;

    // === Views ===
    View = 105 => views::view;
    Reshape = 106 => views::reshape;
    Permute = 107 => views::permute;
    Transpose = 108 => views::transpose;
    T = 109 => views::t;
    Expand = 110 => views::expand;
    Slice = 111 => views::slice;
    Select = 112 => views::select;
    Narrow = 113 => views::narrow;
    Unsqueeze = 114 => views::unsqueeze;
    Squeeze = 115 => views::squeeze;
    Unflatten = 116 => views::unflatten;
    Flatten = 117 => views::flatten;
    AsStrided = 118 => views::as_strided;
    Diagonal = 119 => views::diagonal;
    Contiguous = 120 => views::contiguous;
    Clone = 121 => views::clone;
    GetItem = 122 => views::get_item;
    To = 123 => views::to;
    Type = 124 => views::r#type;

    // === Joining and splitting ===
    Cat = 125 => shape::cat;
    Stack = 126 => shape::stack;
    Split = 127 => shape::split;
    SplitSizes = 128 => shape::split_sizes;
    Chunk = 129 => shape::chunk;

    // === Creation ===
    Zeros = 130 => creation::zeros;
    Ones = 131 => creation::ones;
    Empty = 132 => creation::empty;
    Full = 133 => creation::full;
    ZerosLike = 134 => creation::zeros_like;
    OnesLike = 135 => creation::ones_like;
    EmptyLike = 136 => creation::empty_like;
    FullLike = 137 => creation::full_like;
    Arange = 138 => creation::arange;
    Linspace = 139 => creation::linspace;
    Eye = 140 => creation::eye;
    ScalarTensor = 141 => creation::scalar_tensor;
    Rand = 142 => creation::rand;
    Randn = 143 => creation::randn;
    RandLike = 144 => creation::rand_like;
    RandnLike = 145 => creation::randn_like;
    Randint = 146 => creation::randint;
    RandintLow = 147 => creation::randint_low;
    Randperm = 148 => creation::randperm;

    // === Neural-network functions ===
    LayerNorm = 149 => nn::layer_norm;
    Embedding = 150 => nn::embedding;
    Dropout = 151 => nn::dropout;

    // === Appended (ORDER OP): more pointwise ===
    Fmod = 152 => binary::fmod;
    Hypot = 153 => binary::hypot;
    BitwiseLeftShift = 154 => binary::bitwise_left_shift;
    BitwiseRightShift = 155 => binary::bitwise_right_shift;
    ClampMin = 156 => binary::clamp_min;
    ClampMax = 157 => binary::clamp_max;
    Lerp = 158 => ternary::lerp;
    Addcmul = 159 => ternary::addcmul;
    Addcdiv = 160 => ternary::addcdiv;

    // === Appended: more in place ===
    Neg_ = 161 => unary::neg_;
    Abs_ = 162 => unary::abs_;
    Exp_ = 163 => unary::exp_;
    Log_ = 164 => unary::log_;
    Sqrt_ = 165 => unary::sqrt_;
    Rsqrt_ = 166 => unary::rsqrt_;
    Sin_ = 167 => unary::sin_;
    Cos_ = 168 => unary::cos_;
    Tanh_ = 169 => unary::tanh_;
    Sigmoid_ = 170 => unary::sigmoid_;
    Relu_ = 171 => unary::relu_;
    Floor_ = 172 => unary::floor_;
    Ceil_ = 173 => unary::ceil_;
    Round_ = 174 => unary::round_;
    Trunc_ = 175 => unary::trunc_;
    Reciprocal_ = 176 => unary::reciprocal_;
    Pow_ = 177 => binary::pow_;
    Remainder_ = 178 => binary::remainder_;
    Fmod_ = 179 => binary::fmod_;
    FloorDivide_ = 180 => binary::floor_divide_;
    Lerp_ = 181 => ternary::lerp_;
    Addcmul_ = 182 => ternary::addcmul_;
    Addcdiv_ = 183 => ternary::addcdiv_;
    IndexPut_ = 184 => inplace::index_put_;
    Scatter_ = 185 => inplace::scatter_;
    ScatterValue_ = 186 => inplace::scatter_value_;
    ScatterAdd_ = 187 => inplace::scatter_add_;
    Normal_ = 188 => random::normal_;
    Uniform_ = 189 => random::uniform_;

    // === Appended: more reductions and scans ===
    Norm = 190 => reduce::norm;
    NormStr = 191 => reduce::norm_str;
    CountNonzero = 192 => reduce::count_nonzero;
    Cumsum = 193 => order::cumsum;
    Cumprod = 194 => order::cumprod;
    Sort = 195 => order::sort;
    Argsort = 196 => order::argsort;
    Topk = 197 => order::topk;

    // === Appended: more linear algebra ===
    Baddbmm = 198 => linalg::baddbmm;
    Dot = 199 => linalg::dot;
    Mv = 200 => linalg::mv;
    Outer = 201 => linalg::outer;
    Einsum = 202 => linalg::einsum;

    // === Appended: more shape ops ===
    Unbind = 203 => shape::unbind;
    Repeat = 204 => rearrange::repeat;
    Tile = 205 => rearrange::tile;
    Flip = 206 => rearrange::flip;
    Roll = 207 => rearrange::roll;
    Tril = 208 => rearrange::tril;
    Triu = 209 => rearrange::triu;
    Gather = 210 => indexing::gather;
    Scatter = 211 => indexing::scatter;
    ScatterValue = 212 => indexing::scatter_value;
    ScatterAdd = 213 => indexing::scatter_add;
    IndexSelect = 214 => indexing::index_select;
    Nonzero = 215 => indexing::nonzero;

    // === Appended: more creation ===
    NewZeros = 216 => creation::new_zeros;
    NewOnes = 217 => creation::new_ones;
    NewEmpty = 218 => creation::new_empty;
    NewFull = 219 => creation::new_full;

    // === Appended: more neural-network functions ===
    Conv1d = 220 => conv::conv1d;
    Conv1dPadding = 221 => conv::conv1d_padding;
    Conv2d = 222 => conv::conv2d;
    Conv2dPadding = 223 => conv::conv2d_padding;
    MaxPool2d = 224 => conv::max_pool2d;
    MaxPool2dWithIndices = 225 => conv::max_pool2d_with_indices;
    AvgPool2d = 226 => conv::avg_pool2d;
    AdaptiveAvgPool2d = 227 => conv::adaptive_avg_pool2d;
    BatchNorm = 228 => nn::batch_norm;
    GroupNorm = 229 => nn::group_norm;
    Pad = 230 => nn::pad;
    CrossEntropy = 231 => loss::cross_entropy;
    NllLoss = 232 => loss::nll_loss;
    MseLoss = 233 => loss::mse_loss;
    L1Loss = 234 => loss::l1_loss;
    ScaledDotProductAttention = 235 => loss::scaled_dot_product_attention;

    // === Host calls ===
    HostCall = 236 => host::host_call;

    // === Index tuples (`nonzero_numpy` is what `x.nonzero(as_tuple=True)` binds to, see
    // rynamo-shims `bind_overload`; like PyTorch it has no Python name of its own) ===
    WhereCond = 237 => indexing::where_cond;
    NonzeroNumpy = 238 => indexing::nonzero_numpy;

    // === Appended later (wire ids are positions: new ops go at the end) ===
    ViewDtype = 239 => views::view_dtype;
    Cummax = 240 => order::cummax;
    Cummin = 241 => order::cummin;
    Logcumsumexp = 242 => order::logcumsumexp;

    // === Added through OpDef (issue 23's proof of the recipe) ===
    Logit = 243 => unary::logit;
    Logit_ = 244 => unary::logit_;
    NanToNum_ = 245 => unary::nan_to_num_;
    Erfinv = 246 => unary::erfinv;
    Xlogy = 247 => binary::xlogy;

    // === Appended: backward ops (autograd) ===
    ConvolutionBackwardInput = 248 => backward::convolution_backward_input;
    ConvolutionBackwardWeight = 249 => backward::convolution_backward_weight;
    MaxPool2dWithIndicesBackward = 250 => backward::max_pool2d_with_indices_backward;
    AvgPool2dBackward = 251 => backward::avg_pool2d_backward;
    AdaptiveAvgPool2dBackward = 252 => backward::adaptive_avg_pool2d_backward;
    LayerNormBackward = 253 => backward::layer_norm_backward;
    BatchNormBackward = 254 => backward::batch_norm_backward;

    // === Issue 29 (models helper): sampling and torch.linalg (definitions in rules/models.rs) ===
    Multinomial = 255 => models::multinomial;
    LinalgInv = 256 => models::linalg_inv;
    LinalgSolve = 257 => models::linalg_solve;
    LinalgDet = 258 => models::linalg_det;
    LinalgSlogdet = 259 => models::linalg_slogdet;
    LinalgCholesky = 260 => models::linalg_cholesky;
    LinalgQr = 261 => models::linalg_qr;
    LinalgSvd = 262 => models::linalg_svd;
    LinalgEigh = 263 => models::linalg_eigh;

    // === Issue 25: the optimizers' multi-tensor updates (definitions in rules/optim.rs) ===
    FusedAdam_ = 264 => optim::fused_adam_;
    FusedAdamw_ = 265 => optim::fused_adamw_;
    FusedSgd_ = 266 => optim::fused_sgd_;
    FusedAdagrad_ = 267 => optim::fused_adagrad_;

    // === Issue 29 (complex helper, ids 268-299): complex numbers (rules/complex.rs) ===
    ViewAsReal = 268 => complex::view_as_real;
    ViewAsComplex = 269 => complex::view_as_complex;
    Real = 270 => complex::real;
    Imag = 271 => complex::imag;
    Angle = 272 => complex::angle;
    Conj = 273 => complex::conj;
    Polar = 274 => complex::polar;
    Complex = 275 => complex::complex;

    // === Issue 29 (special helper, ids 300-349): torch.special kernels (rules/special.rs) ===
    Asinh = 300 => special::asinh;
    Acosh = 301 => special::acosh;
    Atanh = 302 => special::atanh;
    Erfc = 303 => special::erfc;
    Lgamma = 304 => special::lgamma;
    Digamma = 305 => special::digamma;
    Polygamma = 306 => special::polygamma;
    I0 = 307 => special::i0;
    SpecialI0e = 308 => special::special_i0e;
    SpecialI1 = 309 => special::special_i1;
    SpecialI1e = 310 => special::special_i1e;
    Asinh_ = 311 => special::asinh_;
    Acosh_ = 312 => special::acosh_;
    Atanh_ = 313 => special::atanh_;
    Erfc_ = 314 => special::erfc_;
    Lgamma_ = 315 => special::lgamma_;
    Digamma_ = 316 => special::digamma_;
    Polygamma_ = 317 => special::polygamma_;
    I0_ = 318 => special::i0_;
    Erfinv_ = 319 => special::erfinv_;
    LogicalNot_ = 320 => inplace_forms::logical_not_;
    Square_ = 321 => inplace_forms::square_;
    Sign_ = 322 => inplace_forms::sign_;
    Exp2_ = 323 => inplace_forms::exp2_;
    Expm1_ = 324 => inplace_forms::expm1_;
    Log1p_ = 325 => inplace_forms::log1p_;
    Frac_ = 326 => inplace_forms::frac_;
    Hypot_ = 327 => inplace_forms::hypot_;
    Xlogy_ = 328 => inplace_forms::xlogy_;
    ClampMin_ = 329 => inplace_forms::clamp_min_;
    ScatterReduce = 350 => indexing::scatter_reduce;
    ScatterReduce_ = 351 => inplace::scatter_reduce_;
    Exponential_ = 352 => random::exponential_;
    BernoulliFloat_ = 353 => random::bernoulli_float;
    Bernoulli = 354 => random::bernoulli;
    // The FFT helper's block (issue 29, wire ids 380-389): `torch.fft`'s primitives.
    FftC2c = 380 => fft::fft_c2c;
    FftR2c = 381 => fft::fft_r2c;
    FftC2r = 382 => fft::fft_c2r;

    // === Batch norm's saved statistics (the backward reads the forward's mean and invstd) ===
    NativeBatchNorm = 383 => nn::native_batch_norm;
    NativeBatchNormBackward = 384 => backward::native_batch_norm_backward;

    // === Issue 31: linear-mode upsampling, ids 390-399 (definitions in rules/upsample.rs) ===
    UpsampleBilinear2d = 390 => upsample::upsample_bilinear2d;
    UpsampleBilinear2dBackward = 391 => upsample::upsample_bilinear2d_backward;
    UpsampleLinear1d = 392 => upsample::upsample_linear1d;
    UpsampleLinear1dBackward = 393 => upsample::upsample_linear1d_backward;
    UpsampleTrilinear3d = 394 => upsample::upsample_trilinear3d;
    UpsampleTrilinear3dBackward = 395 => upsample::upsample_trilinear3d_backward;
}

/// Every op's parsed schema, indexed by wire id (`None` in the gaps between id blocks).
fn schemas() -> &'static [Option<Schema>] {
    static S: OnceLock<Vec<Option<Schema>>> = OnceLock::new();
    S.get_or_init(|| {
        let last = Op::ALL.last().map_or(0, |op| usize::from(op.id()));
        let mut v: Vec<Option<Schema>> = (0..=last).map(|_| None).collect();
        for &op in Op::ALL {
            v[usize::from(op.id())] = Some(
                Schema::parse(op.schema_src())
                    .expect("invariant: op table schemas parse (checked by tests)"),
            );
        }
        v
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
    /// The Python name (`torch.<name>` / `Tensor.<name>`): the schema's base name; overloads
    /// share it.
    pub fn py_name(self) -> &'static str {
        self.schema().base_name()
    }

    /// The schema source text.
    pub fn schema_src(self) -> &'static str {
        self.def().schema
    }

    /// How backends lower it.
    pub fn lowering(self) -> Lowering {
        self.def().lowering
    }

    /// Surfaces and properties.
    pub fn flags(self) -> OpFlags {
        self.def().flags
    }

    /// For a constant-filled creation op (`zeros`, `full_like`, `scalar_tensor`, ...), the value it
    /// fills its output with (`empty`s report 0: their contents are unspecified); `None` for other
    /// ops.
    pub fn fill_value(self, args: &[crate::Arg]) -> Option<rynamo_tensor::Scalar> {
        self.def().fill.and_then(|f| f(args))
    }

    /// The out-of-place op taking the same arguments, for in-place ops that have one.
    pub fn functional_twin(self) -> Option<Op> {
        self.def().functional
    }

    /// Runs the meta rule on metas (bound arguments, in schema order).
    pub(crate) fn meta_rule(self, args: &[Value<TensorMeta>]) -> Result<Vec<TensorMeta>> {
        (self.def().meta.metas)(self, args)
    }

    /// Runs the meta rule on real tensors (the debug-build check of eager results).
    #[cfg(debug_assertions)]
    pub(crate) fn meta_rule_on_tensors(self, args: &[IValue]) -> Result<Vec<TensorMeta>> {
        (self.def().meta.tensors)(self, args)
    }

    /// Runs the eager kernel (bound arguments, in schema order).
    pub(crate) fn eager_kernel(self, args: &[IValue]) -> Result<Vec<Tensor>> {
        (self.def().eager)(self, args)
    }

    /// The parsed schema (parsed once for all ops, on first use).
    pub fn schema(self) -> &'static Schema {
        schemas()[self as usize]
            .as_ref()
            .expect("invariant: every op's id has its schema")
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
        // Ids increase in table order (checked by `tests/wire_ids.rs`); blocks reserved for
        // parallel branches may leave gaps until they merge.
        Op::ALL
            .binary_search_by_key(&id, |op| op.id())
            .ok()
            .map(|i| Op::ALL[i])
    }
}

impl std::fmt::Display for Op {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
