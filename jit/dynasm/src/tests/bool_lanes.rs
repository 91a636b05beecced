//! Bool tensors in vector phases (`x64/bool_lanes.rs`, `aarch64/bool_lanes.rs`): a causal-mask
//! softmax and pointwise logic with bool inputs (full, row-broadcast and 0-dim) and bool outputs,
//! against eager, at widths covering the unrolled loop, the single-vector loop and the scalar
//! tail of every tier; and the widening/narrowing instructions present in each listing (a phase
//! that fell back to scalar code would still compute the right values).

use rynamo_graph::parse;
use rynamo_tensor::Tensor;

use super::common::*;

const WIDTHS: [usize; 12] = [1, 3, 4, 7, 8, 15, 16, 17, 33, 64, 65, 1025];

/// Pseudo-random bools, about one in three true, with row 0 all true when `full_row` (a fully
/// masked softmax row).
fn bools(rows: usize, cols: usize, seed: u64, full_row: bool) -> Tensor {
    let v = (0..rows * cols)
        .map(|i| {
            let h = (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ seed;
            (full_row && i < cols) || h.rotate_left(17).is_multiple_of(3)
        })
        .collect();
    Tensor::from_vec(v, &[rows, cols]).unwrap()
}

/// The widening (load) and narrowing (store) instructions of each tier's vector bool forms.
fn vector_bool_forms(target: &str) -> [&'static str; 2] {
    match target {
        "x64-avx512" => ["vpmovzxbd zmm", "vpmovdb"],
        "x64-avx2" => ["vpmovzxbd ymm", "vpacksswb"],
        "x64-sse2" => ["punpcklbw", "packsswb"],
        _ => ["ushll", "xtn"],
    }
}

#[track_caller]
fn check_vectorised(src: &str) {
    for (b, _) in targets() {
        let exe = b.compile_exe(&parse(src).unwrap()).unwrap();
        let dump = exe.dump();
        for form in vector_bool_forms(b.target_name()) {
            assert!(
                dump.contains(form),
                "{}: no `{form}` in\n{dump}",
                b.target_name()
            );
        }
    }
}

#[test]
fn masked_softmax_with_bool_mask_and_bool_output_in_vector_loops() {
    for (i, &c) in WIDTHS.iter().enumerate() {
        let r = 3;
        let x = randn(&[r, c], i as u64);
        let m = bools(r, c, i as u64, true);
        let src = format!(
            "graph(%x: f32[{r}, {c}], %m: b8[{r}, {c}]):\n  %0: f32[{r}, {c}] = mul(%x, 0.125)\n  %1: f32[{r}, {c}] = masked_fill(%0, %m, -inf)\n  %2: f32[{r}, {c}] = softmax(%1, -1, None)\n  %3: b8[{r}, {c}] = eq(%1, -inf)\n  return (%2, %3)\n"
        );
        let exe = check(&src, &[x, m], 3e-6, 1e-7);
        if c > 1 {
            // (A softmax over one column is planned as a column reduction.)
            assert_eq!(exe.step_counts(), (1, 0), "{}", exe.dump());
        }
        check_vectorised(&src);
    }
}

#[test]
fn bool_logic_with_full_broadcast_and_scalar_masks() {
    for (i, &c) in WIDTHS.iter().enumerate() {
        let r = 5;
        let x = randn(&[r, c], 100 + i as u64);
        let (m, row) = (
            bools(r, c, i as u64, false),
            bools(1, c, 7 + i as u64, false),
        );
        for s in [false, true] {
            let s = Tensor::from_vec(vec![s], &[]).unwrap();
            let src = format!(
                "graph(%x: f32[{r}, {c}], %m: b8[{r}, {c}], %b: b8[1, {c}], %s: b8[]):\n  %0: b8[{r}, {c}] = logical_and(%m, %b)\n  %1: b8[{r}, {c}] = logical_or(%0, %s)\n  %2: f32[{r}, {c}] = where(%1, %x, 0.5)\n  %3: b8[{r}, {c}] = gt(%2, 0.0)\n  %4: b8[{r}, {c}] = logical_xor(%3, %m)\n  %5: f32[{r}, {c}] = to(%4, torch.float32, copy=False)\n  %6: f32[{r}, {c}] = add(%2, %5, alpha=1)\n  %7: b8[1, {c}] = logical_not(%b)\n  return (%4, %6, %1, %7)\n"
            );
            let inputs = [x.clone(), m.clone(), row.clone(), s];
            check(&src, &inputs, 0.0, 0.0);
            check_vectorised(&src);
        }
    }
}
