//! The Python operator map: every operator is listed by exactly one op, and its in-place
//! spelling computes what its out-of-place spelling does.

use crate::{Op, OpFlags, PyOperator};

#[test]
fn every_operator_is_listed_by_exactly_one_op() {
    for &o in PyOperator::ALL {
        let listing: Vec<Op> = Op::ALL
            .iter()
            .copied()
            .filter(|op| op.def().operators.contains(&o.name()))
            .collect();
        assert_eq!(listing.len(), 1, "{}: listed by {listing:?}", o.name());
        assert!(o.ops().is_some(), "{}", o.name());
    }
    for &op in Op::ALL {
        for name in op.def().operators {
            assert!(
                PyOperator::from_name(name).is_some(),
                "{op} lists unknown operator `{name}`"
            );
        }
    }
}

#[test]
fn in_place_operators_compute_their_out_of_place_forms() {
    let binary: Vec<PyOperator> = PyOperator::ALL
        .iter()
        .copied()
        .filter(|o| o.is_binary())
        .collect();
    assert_eq!(binary.len(), 26);
    for (plain, inplace) in binary[..13].iter().zip(&binary[13..]) {
        assert!(!plain.is_inplace() && inplace.is_inplace());
        assert_eq!(
            format!("i{}", plain.name().trim_end_matches('_')),
            inplace.name().trim_end_matches('_')
        );
        let (p, i) = (plain.ops().unwrap(), inplace.ops().unwrap());
        assert_eq!(p.op, i.op, "{}", inplace.name());
        assert_eq!(p.inplace, None);
        if let Some(ip) = i.inplace {
            assert!(ip.flags().contains(OpFlags::INPLACE));
            assert_eq!(ip.functional_twin(), Some(i.op));
        }
    }
    assert_eq!(PyOperator::from_binary_op(13), Some(PyOperator::IAdd));
    assert_eq!(PyOperator::from_binary_op(26), None);
    assert_eq!(PyOperator::IAdd.ops().unwrap().inplace, Some(Op::Add_));
    assert_eq!(PyOperator::IPow.ops().unwrap().inplace, Some(Op::Pow_));
    assert_eq!(PyOperator::IAnd.ops().unwrap().inplace, None);
    assert_eq!(PyOperator::from_compare_op(5), Some(PyOperator::Ge));
    assert_eq!(PyOperator::Lt.swapped(), PyOperator::Gt);
}
