//! Constants pinned in registers for a vector loop (`x64/pins.rs`): the loop's free registers
//! come from decoding its code, and a softmax's exp loop reads its coefficients from registers.
//! Results stay those of eager (and of the unpinned scalar tails, bitwise: `ulp.rs`).

use dynasmrt::{DynasmApi, dynasm};

use super::common::*;
use crate::x64::pins::vector_registers;

#[test]
fn vector_registers_are_read_off_the_code() {
    let mut ops = dynasmrt::x64::Assembler::new().unwrap();
    dynasm!(ops
        ; .arch x64
        ; vfmadd231ps ymm3, ymm5, ymm14
        ; vmovups ymm2, [rax + 32]
        ; vaddss xmm9, xmm9, DWORD [r15 + 64]
        ; mov rax, [rbx + 8]
    );
    let code = ops.finalize().unwrap();
    let want = [2u32, 3, 5, 9, 14].iter().map(|r| 1u32 << r).sum::<u32>();
    assert_eq!(vector_registers(&code), want);
}

/// The copied exp loop of a softmax loads table constants into registers between its entry
/// check and its first iteration (the code does not depend on the sizes), and matches eager at
/// sizes with and without that loop.
#[test]
fn softmax_loops_read_pinned_constants() {
    for &cols in &[7usize, 64, 1000] {
        let src = exp_rows(
            3,
            cols,
            &format!("  %4: f32[3, {cols}] = div(%2, %3)\n"),
            "%4",
        );
        let x = randn(&[3, cols], cols as u64);
        check(&src, std::slice::from_ref(&x), 5e-7, 1e-37);
        for (b, sse2) in targets() {
            if sse2 {
                continue;
            }
            let exe = b.compile_exe(&rynamo_graph::parse(&src).unwrap()).unwrap();
            let d = exe.dump();
            let lines: Vec<&str> = d.lines().collect();
            let table_load = |l: &str| {
                l.contains(",[r15+") && (l.contains("vmovups") || l.contains("vbroadcastss"))
            };
            let pins = lines
                .windows(4)
                .filter(|w| w[0].contains(" jg ") && w[1..].iter().all(|l| table_load(l)))
                .count();
            assert!(pins >= 1, "{}: no pinned constants\n{d}", b.target_name());
        }
    }
}
