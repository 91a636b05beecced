//! The streaming-store variant ([`crate::stream`]) against the ordinary code: bit-identical
//! outputs on every target, with parked values in scratch, split across threads and not, on
//! re-tiled single rows with tails; built exactly for the outputs whose rows stay aligned.

use rynamo_backend::Executable;
use rynamo_graph::parse;
use rynamo_tensor::Tensor;

use super::common::*;
use crate::{runtime, stream};

fn softmax(rows: usize, cols: usize) -> String {
    exp_rows(
        rows,
        cols,
        &format!("  %4: f32[{rows}, {cols}] = div(%2, %3)\n"),
        "%4",
    )
}

/// Two pointwise outputs, one of them broadcast against a row vector, and a row sum.
fn two_outputs(rows: usize, cols: usize) -> String {
    format!(
        "graph(%x: f32[{rows}, {cols}], %y: f32[{cols}]):
  %0: f32[{rows}, {cols}] = add(%x, %y, alpha=1)
  %1: f32[{rows}, {cols}] = sigmoid(%0)
  %2: f32[{rows}, {cols}] = mul(%1, %x)
  %3: f32[{rows}, 1] = sum(%2, [-1], True)
  return (%1, %2, %3)
"
    )
}

#[cfg(target_arch = "x86_64")]
fn vector_bytes(b: &crate::DynasmBackend) -> usize {
    4 * lanes(b)
}

/// NEON builds no variant (no target alignment), so any value does.
#[cfg(not(target_arch = "x86_64"))]
fn vector_bytes(_: &crate::DynasmBackend) -> usize {
    16
}

/// Runs `src` with and without the variant on every target: the outputs must be equal bit for
/// bit, and the variant must exist exactly when `expect(align)` says so.
fn same_with_and_without(src: &str, inputs: &[Tensor], expect: impl Fn(usize) -> bool) {
    let _turn = turn();
    let g = parse(src).unwrap();
    for (b, _) in targets() {
        let align = vector_bytes(&b);
        stream::set_min_bytes(Some(usize::MAX));
        let plain = b.compile_exe(&g).unwrap();
        stream::set_min_bytes(Some(0));
        let streaming = b.compile_exe(&g).unwrap();
        stream::set_min_bytes(None);
        let what = format!("{}:\n{}", b.target_name(), streaming.dump());
        assert_eq!(plain.streaming_steps(), 0, "{what}");
        let want = usize::from(cfg!(target_arch = "x86_64") && expect(align));
        assert_eq!(streaming.streaming_steps(), want, "{what}");
        for par_work in [usize::MAX, 0] {
            runtime::set_par_work(par_work);
            let a = plain.run(inputs).unwrap();
            let s = streaming.run(inputs).unwrap();
            runtime::set_par_work(runtime::PAR_WORK);
            for (i, (x, y)) in s.iter().zip(&a).enumerate() {
                assert_close(
                    x,
                    y,
                    0.0,
                    0.0,
                    &format!("output {i}, split {par_work}: {what}"),
                );
            }
        }
    }
}

#[test]
fn softmax_parks_in_scratch_and_matches() {
    // 1024 columns keep every row aligned; 1000 (4000 bytes) only for 16- and 32-byte vectors;
    // 37 rows of 19 columns for none but a single row.
    for (rows, cols) in [(64, 1024), (33, 1000), (37, 19), (1, 19), (5, 1043)] {
        let x = randn(&[rows, cols], rows as u64);
        let row_bytes = cols * 4;
        same_with_and_without(&softmax(rows, cols), &[x], |align| {
            rows == 1 || row_bytes.is_multiple_of(align)
        });
    }
}

#[test]
fn pointwise_outputs_stream_and_the_row_sum_does_not() {
    // One long row is re-tiled (and split) by the runtime, with a tail of 3 columns.
    for (rows, cols) in [(16, 512), (1, 3 * 8192 + 3), (3, 100)] {
        let x = randn(&[rows, cols], 7);
        let y = randn(&[cols], 8);
        let row_bytes = cols * 4;
        same_with_and_without(&two_outputs(rows, cols), &[x, y], |align| {
            rows == 1 || row_bytes.is_multiple_of(align)
        });
    }
}

#[test]
fn the_default_thresholds_depend_on_transcendentals() {
    let _turn = turn();
    // 4 MiB outputs: enough for a memory-bound kernel, not for softmax (16 MiB).
    let mul =
        parse("graph(%x: f32[1024, 1024]):\n  %0: f32[1024, 1024] = mul(%x, 1.5)\n  return (%0)\n");
    let (mul, soft) = (mul.unwrap(), parse(&softmax(1024, 1024)).unwrap());
    for (b, _) in targets() {
        let expect = usize::from(cfg!(target_arch = "x86_64"));
        assert_eq!(b.compile_exe(&mul).unwrap().streaming_steps(), expect);
        assert_eq!(b.compile_exe(&soft).unwrap().streaming_steps(), 0);
        stream::set_min_bytes(Some(usize::MAX));
        assert_eq!(b.compile_exe(&mul).unwrap().streaming_steps(), 0);
        stream::set_min_bytes(None);
    }
}
