//! Row kernels whose first phase runs one row ahead of the others (x86-64, `x64/emit.rs`:
//! `runs_ahead`) against eager, at 1, 2, 3 and 7 rows, split across threads and not: softmax
//! with NaN, -inf and all-equal rows; log-softmax, whose last phase reads the first phase's
//! row slot; softmax returning its row max, whose first phase stores a row slot; layer norm.

use rynamo_graph::parse;
use rynamo_tensor::Tensor;

use super::common::*;
use crate::runtime;

fn layer_norm(rows: usize, cols: usize) -> String {
    format!(
        "graph(%x: f32[{rows}, {cols}]):
  %0: f32[{rows}, 1] = mean(%x, [-1], True)
  %1: f32[{rows}, {cols}] = sub(%x, %0, alpha=1)
  %2: f32[{rows}, {cols}] = mul(%1, %1)
  %3: f32[{rows}, 1] = mean(%2, [-1], True)
  %4: f32[{rows}, 1] = add(%3, 1e-05, alpha=1)
  %5: f32[{rows}, 1] = rsqrt(%4)
  %6: f32[{rows}, {cols}] = mul(%1, %5)
  return (%6)
"
    )
}

/// Random rows, then per row (cycling) a NaN, a -inf, a constant row and a huge entry.
fn input(rows: usize, cols: usize) -> Tensor {
    let mut v = randn(&[rows, cols], (rows * 131 + cols) as u64).to_vec::<f32>();
    for r in 0..rows {
        let row = &mut v[r * cols..(r + 1) * cols];
        match r % 5 {
            1 => row[cols / 3] = f32::NAN,
            2 => row[cols - 1] = f32::NEG_INFINITY,
            3 => row.fill(0.25),
            4 => row[0] = 80.0,
            _ => {}
        }
    }
    Tensor::from_vec(v, &[rows, cols]).unwrap()
}

#[test]
fn first_phases_run_ahead_and_match_eager() {
    let _turn = turn();
    for rows in [1usize, 2, 3, 7] {
        for cols in [1usize, 19, 64, 1000] {
            let x = input(rows, cols);
            let softmax = exp_rows(
                rows,
                cols,
                &format!("  %4: f32[{rows}, {cols}] = div(%2, %3)\n"),
                "%4",
            );
            let log_softmax = exp_rows(
                rows,
                cols,
                &format!(
                    "  %4: f32[{rows}, 1] = log(%3)\n  %5: f32[{rows}, {cols}] = sub(%1, %4, alpha=1)\n"
                ),
                "%5",
            );
            let with_max = exp_rows(
                rows,
                cols,
                &format!("  %4: f32[{rows}, {cols}] = div(%2, %3)\n"),
                "%4, %0",
            );
            for src in [softmax, log_softmax, with_max, layer_norm(rows, cols)] {
                let g = parse(&src).unwrap();
                for par_work in [usize::MAX, 0] {
                    runtime::set_par_work(par_work);
                    check_graph(&g, std::slice::from_ref(&x), 1e-6, 1e-6);
                    runtime::set_par_work(runtime::PAR_WORK);
                }
            }
        }
    }
}
