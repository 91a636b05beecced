//! Memory-format propagation (values hand-checked against PyTorch 2.15; the full sweep against
//! recorded goldens is `tests/python/layout/channels_last_vs_pytorch.py`).

use crate::iter::Geometry;
use crate::memory_format::{
    MemoryFormat, memory_order, obeys_layout_contract, output_strides, suggest_memory_format,
};

const NCHW: [usize; 4] = [2, 3, 4, 5];
const ROW: [isize; 4] = [60, 20, 5, 1];
const CL: [isize; 4] = [60, 1, 15, 3];

#[test]
fn pointwise_results_follow_their_inputs() {
    let scalar: (&[usize], &[isize]) = (&[], &[]);
    // `x + 1`, `x * x` on channels-last x; `x + y` / `y + x` with row-major y: the first decides.
    assert_eq!(
        output_strides(&NCHW, &[(&NCHW, &CL), scalar]).as_slice(),
        &CL
    );
    assert_eq!(
        output_strides(&NCHW, &[(&NCHW, &CL), (&NCHW, &CL)]).as_slice(),
        &CL
    );
    assert_eq!(
        output_strides(&NCHW, &[(&NCHW, &CL), (&NCHW, &ROW)]).as_slice(),
        &CL
    );
    assert_eq!(
        output_strides(&NCHW, &[(&NCHW, &ROW), (&NCHW, &CL)]).as_slice(),
        &ROW
    );
    // A broadcast operand does not vote: `x + torch.randn(5)`, `x + torch.randn(3, 1, 1)`.
    assert_eq!(
        output_strides(&NCHW, &[(&NCHW, &CL), (&[5], &[1])]).as_slice(),
        &CL
    );
    assert_eq!(
        output_strides(&NCHW, &[(&[3, 1, 1], &[1, 1, 1]), (&NCHW, &CL)]).as_slice(),
        &CL
    );
    // `x.transpose(2, 3).contiguous().transpose(2, 3) + 1` keeps that order.
    assert_eq!(
        output_strides(&NCHW, &[(&NCHW, &[60, 20, 1, 4]), scalar]).as_slice(),
        &[60, 20, 1, 4]
    );
    // `torch.ones(4, 1).t() + torch.ones(1, 1)`: equal strides put the larger dim outside.
    assert_eq!(
        output_strides(&[1, 4], &[(&[1, 4], &[1, 1]), (&[1, 1], &[1, 1])]).as_slice(),
        &[1, 1]
    );
}

#[test]
fn formats_and_their_strides() {
    assert_eq!(MemoryFormat::ChannelsLast.strides(&NCHW).as_slice(), &CL);
    assert_eq!(
        MemoryFormat::ChannelsLast3d
            .strides(&[2, 3, 2, 3, 4])
            .as_slice(),
        &[72, 1, 36, 12, 3]
    );
    assert_eq!(
        suggest_memory_format(&NCHW, &CL),
        MemoryFormat::ChannelsLast
    );
    assert_eq!(suggest_memory_format(&NCHW, &ROW), MemoryFormat::Contiguous);
    // `N111` is ambiguous and stays row-major.
    assert_eq!(
        suggest_memory_format(&[2, 1, 1, 1], &[1, 1, 1, 1]),
        MemoryFormat::Contiguous
    );
    // A channels-last tensor sliced along W still suggests channels-last.
    assert_eq!(
        suggest_memory_format(&NCHW, &[120, 1, 30, 6]),
        MemoryFormat::ChannelsLast
    );
    assert!(MemoryFormat::ChannelsLast.is_contiguous(&NCHW, &CL));
    assert!(!MemoryFormat::ChannelsLast.is_contiguous(&[2, 3, 4], &[12, 1, 3]));
}

#[test]
fn kernels_walk_permuted_dense_operands_as_one_run() {
    assert!(memory_order(&NCHW, [&ROW[..], &CL[..]]).is_none());
    assert_eq!(
        memory_order(&NCHW, [&CL[..], &CL[..]]).unwrap().as_slice(),
        &[0, 2, 3, 1]
    );
    let g = Geometry::in_memory_order(&NCHW, [&CL[..], &CL[..]]);
    assert_eq!(g.inner_strides(), [1, 1]);
    let mut runs = 0;
    g.for_each_run(0..g.numel(), |_, len| {
        assert_eq!(len, 120);
        runs += 1;
    });
    assert_eq!(runs, 1);
}

#[test]
fn gradients_obey_the_leaf_layout() {
    assert!(obeys_layout_contract((&NCHW, &CL), (&NCHW, &CL)));
    assert!(!obeys_layout_contract((&NCHW, &ROW), (&NCHW, &CL)));
    // A non-dense leaf takes a row-major gradient.
    assert!(obeys_layout_contract(
        (&[2, 3], &[3, 1]),
        (&[2, 3], &[6, 2])
    ));
    // A stride-0 size-1 dim is a view's and never stored as is.
    assert!(!obeys_layout_contract(
        (&[1, 3], &[0, 1]),
        (&[1, 3], &[3, 1])
    ));
}
