//! `repr(tensor)` against the strings PyTorch prints (rules of `torch/_tensor_str.py`).

use crate::harness::{check, check_exclusive};

#[track_caller]
fn repr(expr: &str, expected: &str) {
    check(&format!("print(repr({expr}))"), expected);
}

#[test]
fn floats_use_four_decimals() {
    repr("torch.tensor([[0.1, 2.0]])", "tensor([[0.1000, 2.0000]])");
    repr("torch.tensor([1.5, -2.25])", "tensor([ 1.5000, -2.2500])");
    repr("torch.tensor(2.5)", "tensor(2.5000)");
}

#[test]
fn integral_floats_print_with_a_point() {
    repr("torch.tensor(3.)", "tensor(3.)");
    repr("torch.tensor(0.)", "tensor(0.)");
    repr(
        "torch.arange(12.).reshape(3, 4)",
        "
        tensor([[ 0.,  1.,  2.,  3.],
                [ 4.,  5.,  6.,  7.],
                [ 8.,  9., 10., 11.]])",
    );
    repr("torch.tensor([-0.0, 1.0])", "tensor([-0., 1.])");
}

#[test]
fn ints_and_bools() {
    repr("torch.tensor(3)", "tensor(3)");
    repr("torch.tensor([1, 2, 3])", "tensor([1, 2, 3])");
    repr("torch.tensor([-5, 10])", "tensor([-5, 10])");
    repr("torch.tensor([True, False])", "tensor([ True, False])");
    repr("torch.tensor(True)", "tensor(True)");
}

#[test]
fn dtype_suffix_only_for_non_default_dtypes() {
    repr(
        "torch.tensor([1, 2], dtype=torch.int32)",
        "tensor([1, 2], dtype=torch.int32)",
    );
    repr(
        "torch.tensor([0.1, 0.25], dtype=torch.float64)",
        "tensor([0.1000, 0.2500], dtype=torch.float64)",
    );
    repr(
        "torch.tensor([[1, 2], [3, 4]], dtype=torch.float16)",
        "
        tensor([[1., 2.],
                [3., 4.]], dtype=torch.float16)",
    );
    repr(
        "torch.tensor([1.1], dtype=torch.bfloat16)",
        "tensor([1.1016], dtype=torch.bfloat16)",
    );
    repr(
        "torch.tensor([7], dtype=torch.uint8)",
        "tensor([7], dtype=torch.uint8)",
    );
}

#[test]
fn empty_tensors() {
    repr("torch.tensor([])", "tensor([])");
    repr("torch.zeros(0, 3)", "tensor([], size=(0, 3))");
    repr(
        "torch.zeros(0, dtype=torch.int64)",
        "tensor([], dtype=torch.int64)",
    );
    repr(
        "torch.zeros(2, 0, dtype=torch.bool)",
        "tensor([], size=(2, 0), dtype=torch.bool)",
    );
}

#[test]
fn scientific_notation() {
    repr(
        "torch.tensor([1e-5, 1.0])",
        "tensor([1.0000e-05, 1.0000e+00])",
    );
    repr(
        "torch.tensor([1e10, 1.])",
        "tensor([1.0000e+10, 1.0000e+00])",
    );
    repr(
        "torch.tensor([100000., 1.])",
        "tensor([1.0000e+05, 1.0000e+00])",
    );
    repr(
        "torch.tensor([-1e-8, 1.0])",
        "tensor([-1.0000e-08,  1.0000e+00])",
    );
    repr("torch.tensor(1e-7)", "tensor(1.0000e-07)");
}

#[test]
fn non_finite_values() {
    repr(
        "torch.tensor([float('nan'), 1.0, float('inf')])",
        "tensor([nan, 1., inf])",
    );
    repr(
        "torch.tensor([1.5, float('nan')])",
        "tensor([1.5000,    nan])",
    );
    repr("torch.tensor([float('-inf'), 0.0])", "tensor([-inf, 0.])");
}

#[test]
fn nested_dims_get_blank_lines() {
    repr(
        "torch.arange(8).reshape(2, 2, 2)",
        "
        tensor([[[0, 1],
                 [2, 3]],

                [[4, 5],
                 [6, 7]]])",
    );
}

#[test]
fn long_rows_wrap_at_the_line_width() {
    repr(
        "torch.arange(30.)",
        "
        tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.,
                14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25., 26., 27.,
                28., 29.])",
    );
}

#[test]
fn suffixes_wrap_when_the_line_is_full() {
    repr(
        "torch.ones(20, dtype=torch.float64)",
        "
        tensor([1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1.,
                1., 1.], dtype=torch.float64)",
    );
    repr(
        "torch.arange(17, dtype=torch.int32)",
        "
        tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16],
               dtype=torch.int32)",
    );
}

#[test]
fn large_tensors_are_summarised() {
    repr(
        "torch.zeros(1001)",
        "tensor([0., 0., 0.,  ..., 0., 0., 0.])",
    );
    repr(
        "torch.arange(2000)",
        "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])",
    );
    repr(
        "torch.arange(2000.)",
        "
        tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,
                1.9990e+03])",
    );
    repr(
        "torch.arange(4004).reshape(4, 1001)",
        "
        tensor([[   0,    1,    2,  ...,  998,  999, 1000],
                [1001, 1002, 1003,  ..., 1999, 2000, 2001],
                [2002, 2003, 2004,  ..., 3000, 3001, 3002],
                [3003, 3004, 3005,  ..., 4001, 4002, 4003]])",
    );
    repr(
        "torch.arange(2000).reshape(1000, 2)",
        "
        tensor([[   0,    1],
                [   2,    3],
                [   4,    5],
                ...,
                [1994, 1995],
                [1996, 1997],
                [1998, 1999]])",
    );
}

#[test]
fn requires_grad_suffix() {
    repr(
        "torch.ones(3, requires_grad=True)",
        "tensor([1., 1., 1.], requires_grad=True)",
    );
}

#[test]
fn print_options() {
    check_exclusive(
        "
        torch.set_printoptions(precision=2)
        print(torch.tensor([1.12345]))
        torch.set_printoptions(threshold=5)
        print(torch.arange(10))
        torch.set_printoptions(profile='default')
        print(torch.tensor([1.12345]))
        print(torch.arange(10))
        torch.set_printoptions(sci_mode=False)
        print(torch.tensor([1e-5, 1.0]))
        torch.set_printoptions(linewidth=20)
        print(torch.arange(8))
        torch.set_printoptions(profile='default')
        ",
        "
        tensor([1.12])
        tensor([0, 1, 2,  ..., 7, 8, 9])
        tensor([1.1235])
        tensor([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
        tensor([    0.0000,     1.0000])
        tensor([0, 1, 2, 3,
                4, 5, 6, 7])
        ",
    );
}

#[test]
fn subclasses_print_their_name_and_format_works() {
    check(
        "
        class MyTensor(torch.Tensor):
            pass
        print(MyTensor([1., 2.]))
        print(f'{torch.tensor(2.0):.3f}', f'{torch.tensor(7)}', str(torch.tensor([1, 2])))
        print('{}'.format(torch.tensor([True])))
        ",
        "
        MyTensor([1., 2.])
        2.000 7 tensor([1, 2])
        tensor([True])
        ",
    );
}
