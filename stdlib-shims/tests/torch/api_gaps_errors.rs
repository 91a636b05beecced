//! Errors of the PyTorch APIs written in Python over registry ops (`api_gaps.rs`): wrong dims,
//! shapes and dtypes raise PyTorch's exception types with PyTorch's messages.

use crate::harness::check_err;

/// One call per check PyTorch makes before computing.
#[test]
fn errors() {
    check_err(
        r#"torch.movedim(torch.zeros(2, 3), (0, 1), (0,))"#,
        "RuntimeError",
        r#"movedim: Invalid source or destination dims: source ([0, 1] dims) should contain the same number of dims as destination ([0] dims)"#,
    );
    check_err(
        r#"torch.zeros(2, 3).movedim(2, 0)"#,
        "IndexError",
        r#"Dimension out of range (expected to be in range of [-2, 1], but got 2)"#,
    );
    check_err(
        r#"torch.movedim(torch.zeros(2, 3), (0, 0), (0, 1))"#,
        "RuntimeError",
        r#"movedim: repeated dim in `source` ([0, 0])"#,
    );
    check_err(
        r#"torch.broadcast_tensors(torch.ones(3), torch.ones(2))"#,
        "RuntimeError",
        r#"The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0"#,
    );
    check_err(
        r#"torch.hstack([])"#,
        "RuntimeError",
        r#"hstack expects a non-empty TensorList"#,
    );
    check_err(
        r#"torch.tensor_split(torch.arange(4), 0)"#,
        "RuntimeError",
        r#"number of sections must be larger than 0, got 0"#,
    );
    check_err(
        r#"torch.hsplit(torch.arange(6).reshape(2, 3), 2)"#,
        "RuntimeError",
        r#"torch.hsplit attempted to split along dimension 1, but the size of the dimension 3 is not divisible by the split_size 2!"#,
    );
    check_err(
        r#"torch.vsplit(torch.arange(3), 1)"#,
        "RuntimeError",
        r#"torch.vsplit requires a tensor with at least 2 dimension, but got a tensor with 1 dimensions!"#,
    );
    check_err(
        r#"torch.fliplr(torch.ones(3))"#,
        "RuntimeError",
        r#"Input must be >= 2-d."#,
    );
    check_err(
        r#"torch.rot90(torch.ones(2, 2), 1, [0, 0])"#,
        "RuntimeError",
        r#"expected rotation dims to be different, but got dim0 = 0 and dim1 = 0"#,
    );
    check_err(
        r#"torch.diag(torch.ones(2, 2, 2))"#,
        "RuntimeError",
        r#"diag(): Supports 1D or 2D tensors. Got 3D"#,
    );
    check_err(
        r#"torch.trace(torch.ones(3))"#,
        "RuntimeError",
        r#"trace: expected a matrix, but got tensor with dim 1"#,
    );
    check_err(
        r#"torch.take_along_dim(torch.ones(2, 2), torch.tensor([0]), 1)"#,
        "RuntimeError",
        r#"torch.take_along_dim(): input and indices should have the same number of dimensions, but got 2 dimensions for input, and 1 dimensions for indices"#,
    );
    check_err(
        r#"torch.repeat_interleave(torch.tensor([1, 2, 3]), torch.tensor([1, 2]))"#,
        "RuntimeError",
        r#"repeats must have the same size as input along dim, but got repeats.size(0) = 2 and input.size(0) = 3"#,
    );
    check_err(
        r#"torch.masked_select(torch.ones(2), torch.tensor([1, 0]))"#,
        "RuntimeError",
        r#"masked_select: expected BoolTensor for mask"#,
    );
    check_err(
        r#"torch.diff(torch.tensor(1.))"#,
        "RuntimeError",
        r#"diff expects input to be at least one-dimensional"#,
    );
    check_err(
        r#"torch.nanmean(torch.tensor([1, 2]))"#,
        "RuntimeError",
        r#"nanmean(): expected input to have floating point or complex dtype but got Long"#,
    );
    check_err(
        r#"torch.logaddexp(torch.tensor([1]), torch.tensor([2]))"#,
        "NotImplementedError",
        r#""logaddexp_cpu" not implemented for 'Long'"#,
    );
    check_err(
        r#"torch.heaviside(torch.tensor([1.]), torch.tensor([1]))"#,
        "RuntimeError",
        r#"heaviside is not yet implemented for tensors with different dtypes"#,
    );
    check_err(
        r#"torch.inner(torch.ones(2, 3), torch.ones(2))"#,
        "RuntimeError",
        r#"inner() the last dimension must match on both input tensors but got shapes [2, 3] and [2]"#,
    );
    check_err(
        r#"torch.cross(torch.ones(2, 2), torch.ones(2, 2), dim=1)"#,
        "RuntimeError",
        r#"linalg.cross: inputs dimension 1 must have length 3. Got 2 and 2"#,
    );
    check_err(
        r#"torch.bincount(torch.tensor([1, -1]))"#,
        "RuntimeError",
        r#"bincount only supports 1-d non-negative integral inputs."#,
    );
    check_err(
        r#"torch.bincount(torch.tensor([1.0]))"#,
        "RuntimeError",
        r#"bincount only supports 1-d non-negative integral inputs."#,
    );
    check_err(
        r#"torch.searchsorted(torch.tensor([1, 2]), torch.tensor([1]), side="left", right=True)"#,
        "RuntimeError",
        r#"torch.searchsorted(): side and right can't be set to opposites, got side of left while right was True"#,
    );
    check_err(
        r#"torch.bucketize(torch.tensor([1]), torch.ones(2, 2))"#,
        "RuntimeError",
        r#"boundaries tensor must be 1 dimension, but got dim(2)"#,
    );
    check_err(
        r#"torch.kthvalue(torch.tensor([1, 2]), 3)"#,
        "RuntimeError",
        r#"kthvalue(): selected number k out of range for dimension 0"#,
    );
}
