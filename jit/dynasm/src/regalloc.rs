//! Linear-scan register allocation for one phase (Poletto and Sarkar), shared by all targets.
//!
//! The phase is linearised as `hoisted ++ loop`. Values defined before the loop and read in it
//! live to the loop's end, so one location per value stays valid across iterations. A value that
//! does not get a register lives in a stack slot for its whole life (no splitting): the emitter
//! reloads it into a scratch register at each use.

use crate::loop_ir::V;

/// Where a value lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loc {
    /// A register from the pool (its hardware number).
    Reg(u8),
    /// A stack slot index.
    Slot(u32),
}

/// The allocation of one phase.
#[derive(Clone, Debug)]
pub struct Alloc {
    /// Location per value (`None` for values never computed, e.g. dead ones).
    pub locs: Vec<Option<Loc>>,
    /// Stack slots used.
    pub slots: u32,
}

/// Allocates `order` (emission order; the first `hoisted` entries run once before the loop) from
/// `pool`. `uses[v]` lists the positions in `order` where `v` is read; `end` is the position of
/// the loop's end (stores and reductions read there).
pub fn allocate(
    n_values: usize,
    order: &[V],
    hoisted: usize,
    uses: &[Vec<usize>],
    pool: &[u8],
) -> Alloc {
    let end = order.len();
    let mut pos = vec![usize::MAX; n_values];
    for (i, &v) in order.iter().enumerate() {
        pos[v as usize] = i;
    }
    // (start, end, value)
    let mut intervals: Vec<(usize, usize, V)> = Vec::new();
    for &v in order {
        let s = pos[v as usize];
        let mut e = uses[v as usize].iter().copied().max().unwrap_or(s);
        if s < hoisted && uses[v as usize].iter().any(|&u| u >= hoisted) {
            e = end;
        }
        intervals.push((s, e, v));
    }
    let mut locs = vec![None; n_values];
    let mut free: Vec<u8> = pool.iter().rev().copied().collect();
    let mut active: Vec<(usize, V, u8)> = Vec::new();
    let mut slots = 0u32;
    for &(s, e, v) in &intervals {
        // A value whose last read is this instruction frees its register for the result.
        active.retain(|&(ae, _, r)| {
            if ae <= s && ae != usize::MAX {
                free.push(r);
                false
            } else {
                true
            }
        });
        if let Some(r) = free.pop() {
            locs[v as usize] = Some(Loc::Reg(r));
            active.push((e, v, r));
            continue;
        }
        // Spill whichever lives longest: the newcomer or the furthest active interval.
        let (idx, &(fe, fv, fr)) = active
            .iter()
            .enumerate()
            .max_by_key(|(_, a)| a.0)
            .expect("invariant: no free register means some are active");
        if fe > e {
            locs[fv as usize] = Some(Loc::Slot(slots));
            slots += 1;
            active.remove(idx);
            locs[v as usize] = Some(Loc::Reg(fr));
            active.push((e, v, fr));
        } else {
            locs[v as usize] = Some(Loc::Slot(slots));
            slots += 1;
        }
    }
    Alloc { locs, slots }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reuses_registers_and_spills_the_longest() {
        // v0 lives to the end; v1 and v2 overlap it, so one of the three spills.
        let uses = vec![vec![4], vec![3], vec![3], vec![4], vec![]];
        let a = allocate(5, &[0, 1, 2, 3, 4], 0, &uses, &[0, 1]);
        assert!(a.locs.iter().all(Option::is_some));
        let regs = a
            .locs
            .iter()
            .filter(|l| matches!(l, Some(Loc::Reg(_))))
            .count();
        assert!(regs >= 3, "{a:?}");
        assert!(a.slots >= 1);
    }

    #[test]
    fn hoisted_values_live_across_the_loop() {
        // v0 hoisted, read at 2; v1 and v2 in the loop may not take v0's register.
        let uses = vec![vec![2], vec![2], vec![]];
        let a = allocate(3, &[0, 1, 2], 1, &uses, &[0, 1, 2]);
        assert_ne!(a.locs[0], a.locs[1]);
        assert_ne!(a.locs[0], a.locs[2]);
    }
}
