//! Kernel emission for x86-64: the row loop, each phase's column loops (instruction selection in
//! [`super::isel`]) and reductions. See [`crate::loop_ir`] for the loop structure.
//!
//! Registers (SysV):
//! ```text
//!   rbx  argument block          r12  rows left         r14  constant pool
//!   rbp  caller's frame          r13  column limit      r15  math table
//!   rcx  column index            rax, rdx  scratch
//!   rsi rdi r8-r11  base pointers of the phase's first six accesses (others are re-read)
//!   xmm0-9  allocatable          xmm10  SSE2 fix-ups      xmm11-15  math temporaries
//!                                                         (xmm13-15 also reload spilled operands)
//!   (xmm/ymm/zmm by tier)        k1     AVX-512 masks (never live across instructions)
//!                                k2-k4  AVX-512 NaN flags of a vector phase's max/min reductions
//! ```
//! Argument block (u64 words): `[nrows, ncols, consts, table, (ptr, rs, cs) per access]`, strides in
//! bytes; the kernel advances each `ptr` by its `rs` after every row.

use std::collections::HashMap;

use dynasmrt::{DynasmApi, DynasmLabelApi};

use super::asm::{Asm, Mem, W, x64};
use super::div::{Recips, Stub};
use super::frame::Frame;
use super::frame::{SlotUsers, cs_off, prepare, ptr_off, rs_off};
use super::unroll::{self, Copied};
use crate::loop_ir::{AccessKind, ColStride, Inst, Kernel, Phase, Ty, V};
use crate::poly::{K, off};
use crate::regalloc::{Loc, PhasePlan};

pub(super) const RAX: u8 = 0;
pub(super) const RDX: u8 = 2;
pub(super) const RSP: u8 = 4;
pub(super) const R14: u8 = 14;
const R15: u8 = 15;

/// Emits one kernel.
pub struct Emitter<'k> {
    /// The assembler.
    pub a: Asm,
    pub(super) k: &'k Kernel,
    /// Frame layout.
    pub frame: Frame,
    pub(super) locs: Vec<Option<Loc>>,
    pub(super) bases: HashMap<u32, u8>,
    /// Whether bools are lane masks in the current phase.
    pub(super) masks: bool,
    /// Shared sin/cos of the current phase: value -> (its pair's slot, whether it is the first).
    pub(super) trig_share: HashMap<V, (Mem, bool)>,
    /// In a copied body (see `unroll.rs`): per node, its copy (that many vectors on).
    pub(super) copy_of_node: Vec<u8>,
    /// In a copied body: per store, its copy.
    pub(super) copy_of_store: Vec<u8>,
    /// Accesses whose next row the current phase's vector loop prefetches.
    pub(super) prefetch: Vec<u32>,
    /// Per node of the current phase: the access of a contiguous f32 load, which a spilled
    /// copy of reloads from its source instead of a spill slot.
    pub(super) remat: Vec<Option<u32>>,
    /// Per node of the current phase: never positive (see `vmath/nonpos.rs`).
    pub(super) nonpos: Vec<bool>,
    /// The current phase's hoisted divisors and their reciprocals' slots (see `div.rs`).
    pub(super) recips: Recips,
    /// Out-of-line division stubs of the current vector loop.
    pub(super) stubs: Vec<Stub>,
    /// Values the current vector body has just stored as contiguous f32 with a plain store:
    /// value -> (access, displacement of its copy). Their f32 sums convert from memory (see
    /// `reduce.rs`).
    pub(super) stored_now: HashMap<V, (u32, i32)>,
    /// Where the current phase writes its row slots: `frame.rows`, or `frame.ahead` for the
    /// first phase running one row ahead.
    pub(super) row_base: i32,
    /// How many rows ahead later phases prefetch the first phase's streamed inputs.
    pub(super) prefetch_rows: u8,
    /// In a copied body: its number of copies (see `div.rs`), else 0.
    pub(super) copies: usize,
    /// The current phase's f32 max/min reductions whose vector loops flag NaNs in an opmask
    /// register: NaN-flag register `a1` -> `k` (AVX-512, see `reduce.rs`).
    pub(super) nan_k: HashMap<u8, u8>,
}

/// Whether the first phase runs one row ahead, just before the last phase: a row's last phase
/// then overlaps the next row's first, and the next row's later phases find the first phase's
/// results long done. A row phase ends in reductions whose latency chains (horizontal fold,
/// reciprocal, ~50-70 cycles each) the out-of-order window cannot hide on its own, as a phase
/// of a 1024-column row is more instructions than the window holds. The first phase must not
/// store elements (a later phase of the current row may read what it would overwrite: parked
/// values in a scratch row have row stride 0); its row slots go to `frame.ahead` and are copied
/// over at the end of the row.
fn runs_ahead(k: &Kernel) -> bool {
    k.phases.len() >= 2 && k.phases[0].stores.is_empty()
}

/// Emits `k`; returns the assembler positioned after the code, and the entry offset.
pub fn emit(mut a: Asm, k: &Kernel) -> Result<(Asm, dynasmrt::AssemblyOffset), String> {
    let avx = a.avx();
    let (phases, frame) = prepare(k, avx, a.slot())?;
    let entry = a.ops.offset();
    let (size, align) = (frame.size + frame.vs, -frame.vs);
    x64!(a.ops
        ; push rbp ; mov rbp, rsp ; push rbx ; push r12 ; push r13 ; push r14 ; push r15
        ; sub rsp, size ; and rsp, align
        ; mov rbx, rdi ; mov r14, [rbx + 16] ; mov r15, [rbx + 24] ; mov r12, [rbx]
    );
    let (row, done) = (a.label(), a.label());
    x64!(a.ops ; test r12, r12 ; jz =>done);
    let row_base = frame.rows;
    let mut e = Emitter {
        a,
        k,
        frame,
        locs: Vec::new(),
        bases: HashMap::new(),
        masks: false,
        trig_share: HashMap::new(),
        copy_of_node: Vec::new(),
        copy_of_store: Vec::new(),
        prefetch: Vec::new(),
        remat: Vec::new(),
        nonpos: Vec::new(),
        recips: Recips::new(),
        stubs: Vec::new(),
        stored_now: HashMap::new(),
        row_base,
        prefetch_rows: 1,
        copies: 0,
        nan_k: HashMap::new(),
    };
    // Rows are often one 4 KiB page, where the hardware streamer stops, so every row would
    // start with demand misses in its first phase. The later phases (the row is in L1 by then)
    // prefetch the next row of what the first phase streams in, one line per 64 bytes of row.
    let streamed: Vec<u32> = k.phases.first().map_or_else(Vec::new, |p0| {
        let mut v: Vec<u32> = p0
            .body
            .iter()
            .filter_map(|n| match n.inst {
                Inst::Load(a)
                    if k.accesses[a as usize].col == ColStride::Contig
                        && k.accesses[a as usize].ty == Ty::F32 =>
                {
                    Some(a)
                }
                _ => None,
            })
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    });
    let first = (&k.phases[0], &phases[0]);
    let ahead = runs_ahead(k);
    if ahead {
        e.phase(
            first.0,
            &first.1.plan,
            &first.1.slots,
            first.1.copied.as_ref(),
        )?;
        // The first phase of row i+1 has already read what the later phases of row i would
        // prefetch for it.
        e.prefetch_rows = 2;
    }
    e.a.bind(row);
    let last = k.phases.len() - 1;
    for (i, (p, prep)) in k.phases.iter().zip(&phases).enumerate() {
        if ahead && i == 0 {
            continue;
        }
        if ahead && i == last {
            e.first_phase_of_next_row(first.0, first.1)?;
        }
        e.prefetch = if i > 0 && prep.plan.vector {
            streamed.clone()
        } else {
            Vec::new()
        };
        e.phase(p, &prep.plan, &prep.slots, prep.copied.as_ref())?;
    }
    if ahead {
        // The next row's first-phase results become the current row's.
        for r in &k.phases[0].reduces {
            let d = e.frame.vs * r.slot as i32;
            let (from, to) = (e.frame.ahead + d, e.frame.rows + d);
            x64!(e.a.ops ; mov rax, [rsp + from] ; mov [rsp + to], rax);
        }
    }
    for i in 0..k.accesses.len() {
        let (po, ro) = (ptr_off(i), rs_off(i));
        x64!(e.a.ops ; mov rax, [rbx + ro] ; add [rbx + po], rax);
    }
    x64!(e.a.ops ; dec r12 ; jnz =>row);
    e.a.bind(done);
    if k.accesses.iter().any(|a| a.kind == AccessKind::StreamStore) {
        // Non-temporal stores are weakly ordered: fence them before the launch reports the
        // rows done to another thread.
        x64!(e.a.ops ; sfence);
    }
    if avx {
        x64!(e.a.ops ; vzeroupper);
    }
    x64!(e.a.ops ; lea rsp, [rbp - 40] ; pop r15 ; pop r14 ; pop r13 ; pop r12 ; pop rbx ; pop rbp ; ret);
    Ok((e.a, entry))
}

impl Emitter<'_> {
    /// The first phase for the next row, unless this is the last row: its accesses advance by a
    /// row around it, and its row slots go to `frame.ahead`.
    fn first_phase_of_next_row(
        &mut self,
        p: &Phase,
        prep: &super::frame::Prepared,
    ) -> Result<(), String> {
        let skip = self.a.label();
        x64!(self.a.ops ; cmp r12, 1 ; je =>skip);
        let n = self.k.accesses.len();
        for i in 0..n {
            let (po, ro) = (ptr_off(i), rs_off(i));
            x64!(self.a.ops ; mov rax, [rbx + ro] ; add [rbx + po], rax);
        }
        (self.row_base, self.prefetch) = (self.frame.ahead, Vec::new());
        self.phase(p, &prep.plan, &prep.slots, prep.copied.as_ref())?;
        self.row_base = self.frame.rows;
        for i in 0..n {
            let (po, ro) = (ptr_off(i), rs_off(i));
            x64!(self.a.ops ; mov rax, [rbx + ro] ; sub [rbx + po], rax);
        }
        self.a.bind(skip);
        Ok(())
    }

    /// A full-vector (or scalar) operand: data, spill, scratch and call slots.
    pub(super) fn mem(&self, base: u8, disp: i32) -> Mem {
        Mem::vec(base, disp)
    }

    /// Table entry `k`: a broadcast constant (see [`Mem`]).
    pub fn tab(&self, k: K) -> Mem {
        Mem::bcast(R15, off(k))
    }

    /// Takes on `plan` for `p`: locations, base registers, shared sin/cos slots, the hoisted
    /// values (which touch neither `rcx` nor the accumulators) and the divisors' reciprocals.
    pub(super) fn enter(
        &mut self,
        p: &Phase,
        plan: &PhasePlan,
        slots: &SlotUsers,
    ) -> Result<(), String> {
        self.locs = plan.alloc.locs.clone();
        self.bases = plan.bases.clone();
        self.masks = plan.vector;
        self.remat = unroll::rematerializable(self.k, p);
        self.nonpos = crate::vmath::nonpos::analyse(self.k, p);
        self.trig_share.clear();
        for (i, &(first, second)) in slots.pairs.iter().enumerate() {
            let slot = self.mem(RSP, self.frame.trig + self.frame.vs * i as i32);
            self.trig_share.insert(first, (slot, true));
            self.trig_share.insert(second, (slot, false));
        }
        for (&acc, &r) in &plan.bases {
            let o = ptr_off(acc as usize);
            x64!(self.a.ops ; mov Rq(r), [rbx + o]);
        }
        for &v in &plan.order[..plan.hoisted] {
            self.inst(p, v, plan.vector)?;
        }
        self.enter_divisors(&slots.divisors);
        Ok(())
    }

    pub(super) fn phase(
        &mut self,
        p: &Phase,
        plan: &PhasePlan,
        slots: &SlotUsers,
        copied: Option<&(Copied, SlotUsers)>,
    ) -> Result<(), String> {
        if let Some((d, slots2)) = copied {
            // Several vectors per iteration first; the single-vector loop and the tail finish.
            self.enter(&d.phase, &d.plan, slots2)?;
            if d.plan.accs.first() != plan.accs.first()
                || d.plan.accs.len() != d.copies * plan.accs.len()
            {
                return Err("invariant: copies accumulate into the single loop's registers".into());
            }
            self.acc_init_all(p, plan);
            self.copy_of_node.clone_from(&d.copy_of_node);
            self.copy_of_store.clone_from(&d.copy_of_store);
            self.copies = d.copies;
            let w2 = (d.copies * self.a.lanes()) as i32;
            // While rcx + w2 <= ncols: rcx <= ncols - w2, signed (the difference may be
            // negative; `and` with -w2 would need a power of two).
            x64!(self.a.ops ; xor ecx, ecx ; mov r13, [rbx + 8] ; sub r13, w2);
            self.vector_loop(&d.phase, &d.plan, w2, true, true)?;
            self.copy_of_node.clear();
            self.copy_of_store.clear();
            self.copies = 0;
            self.enter(p, plan, slots)?;
        } else {
            self.enter(p, plan, slots)?;
            self.acc_init_all(p, plan);
            x64!(self.a.ops ; xor ecx, ecx);
        }
        if plan.vector {
            let w = self.a.lanes() as i32;
            x64!(self.a.ops ; mov r13, [rbx + 8] ; and r13, -w);
            // After a copied loop this one runs fewer iterations than there are copies: loading
            // pins would cost more than they save.
            self.vector_loop(p, plan, w, false, copied.is_none())?;
        }
        for (r, &(a0, a1)) in p.reduces.iter().zip(&plan.accs) {
            self.acc_collapse(r.op, p.body[r.value as usize].ty, a0, a1);
        }
        let (top, out) = (self.a.label(), self.a.label());
        x64!(self.a.ops ; mov r13, [rbx + 8]);
        self.a.bind(top);
        x64!(self.a.ops ; cmp rcx, r13 ; jae =>out);
        self.body(p, plan, false)?;
        x64!(self.a.ops ; inc rcx ; jmp =>top);
        self.a.bind(out);
        for (r, &(a0, a1)) in p.reduces.iter().zip(&plan.accs) {
            self.acc_finish(r.op, p.body[r.value as usize].ty, a0, a1, r.slot);
        }
        for &(acc, slot) in &p.row_stores {
            let (po, so) = (
                ptr_off(acc as usize),
                self.row_base + self.frame.vs * slot as i32,
            );
            if self.k.slots[slot as usize] == Ty::F32 {
                x64!(self.a.ops ; mov rax, [rbx + po] ; mov edx, [rsp + so] ; mov [rax], edx);
            } else {
                x64!(self.a.ops ; mov rax, [rbx + po] ; mov rdx, [rsp + so] ; mov [rax], rdx);
            }
        }
        Ok(())
    }

    pub(super) fn body(&mut self, p: &Phase, plan: &PhasePlan, vec: bool) -> Result<(), String> {
        if vec {
            // One prefetch per 64-byte line the iteration covers (copies * one vector).
            let copies = self
                .copy_of_node
                .iter()
                .max()
                .map_or(1, |&c| usize::from(c) + 1);
            let lines = (4 * self.a.lanes() * copies).div_ceil(64) as i32;
            for i in 0..self.prefetch.len() {
                let a = self.prefetch[i] as usize;
                let (po, ro) = (ptr_off(a), rs_off(a));
                x64!(self.a.ops ; mov rax, [rbx + po]);
                for _ in 0..self.prefetch_rows {
                    x64!(self.a.ops ; add rax, [rbx + ro]);
                }
                for l in 0..lines {
                    let d = 64 * l;
                    x64!(self.a.ops ; prefetcht0 [rax + rcx * 4 + d]);
                }
            }
        }
        for &v in &plan.order[plan.hoisted..] {
            self.inst(p, v, vec)?;
        }
        self.stored_now.clear();
        for (j, &(acc, v)) in p.stores.iter().enumerate() {
            let r = self.src(v, 13, vec);
            let mut m = self.addr(acc, vec);
            let access = self.k.accesses[acc as usize];
            if let Some(&c) = self.copy_of_store.get(j) {
                m.disp += (access.ty.size() * self.a.lanes() * usize::from(c)) as i32;
            }
            let plain = access.kind == AccessKind::Store && access.col == ColStride::Contig;
            if vec && plain && access.ty == Ty::F32 {
                self.stored_now.insert(v, (acc, m.disp));
            }
            match access.ty {
                Ty::F32 if vec && access.kind == AccessKind::StreamStore => self.a.store_nt(m, r),
                Ty::F32 => self.a.store(if vec { W::Ps } else { W::Ss }, m, r),
                Ty::F64 | Ty::I64 => self.a.store(W::Sd, m, r),
                Ty::Bool => self.store_bool(m, r, vec),
            }
        }
        // Reductions into one slot (the copies of an unrolled body) are consecutive.
        let mut i = 0;
        while i < p.reduces.len() {
            let r = p.reduces[i];
            let n = p.reduces[i..]
                .iter()
                .take_while(|q| q.slot == r.slot)
                .count();
            let values: Vec<V> = p.reduces[i..i + n].iter().map(|q| q.value).collect();
            let (a0, a1) = plan.accs[i];
            self.acc_steps(r.op, p.body[r.value as usize].ty, a0, a1, &values, vec);
            i += n;
        }
        Ok(())
    }

    /// The address of access `a` at the current column, in `[rax]` (or the base for broadcasts).
    pub(super) fn addr(&mut self, a: u32, _vec: bool) -> Mem {
        let acc = self.k.accesses[a as usize];
        let base = match self.bases.get(&a) {
            Some(&r) => r,
            None => {
                let o = ptr_off(a as usize);
                x64!(self.a.ops ; mov rax, [rbx + o]);
                RAX
            }
        };
        let es = acc.ty.size();
        match acc.col {
            ColStride::Broadcast => self.mem(base, 0),
            ColStride::Contig => {
                match es {
                    1 => x64!(self.a.ops ; lea rax, [Rq(base) + rcx]),
                    4 => x64!(self.a.ops ; lea rax, [Rq(base) + rcx * 4]),
                    _ => x64!(self.a.ops ; lea rax, [Rq(base) + rcx * 8]),
                }
                self.mem(RAX, 0)
            }
            ColStride::Strided => {
                let co = cs_off(a as usize);
                x64!(self.a.ops ; mov rdx, rcx ; imul rdx, [rbx + co] ; lea rax, [Rq(base) + rdx]);
                self.mem(RAX, 0)
            }
        }
    }

    pub(super) fn w(&self, ty: Ty, vec: bool) -> W {
        match ty {
            Ty::F32 if vec => W::Ps,
            Ty::F32 => W::Ss,
            Ty::Bool if self.masks && vec => W::Ps,
            Ty::Bool if self.masks => W::Ss,
            _ => W::Sd,
        }
    }

    /// The register holding `v`, reloading a spilled value into `reload`.
    pub(super) fn src(&mut self, v: V, reload: u8, vec: bool) -> u8 {
        match self.locs[v as usize] {
            Some(Loc::Reg(r)) => r,
            Some(Loc::Slot(_)) if self.remat[v as usize].is_some() => {
                let a = self.remat[v as usize].expect("invariant: checked above");
                let mut m = self.addr(a, vec);
                if let Some(&c) = self.copy_of_node.get(v as usize) {
                    m.disp += 4 * (self.a.lanes() * usize::from(c)) as i32;
                }
                self.a.load(if vec { W::Ps } else { W::Ss }, reload, m);
                reload
            }
            Some(Loc::Slot(s)) => {
                let m = self.mem(RSP, self.frame.spill + self.frame.vs * s as i32);
                self.a.load(if vec { W::Ps } else { W::Sd }, reload, m);
                reload
            }
            None => reload,
        }
    }

    pub(super) fn dst(&self, v: V) -> u8 {
        match self.locs[v as usize] {
            Some(Loc::Reg(r)) => r,
            _ => 13,
        }
    }

    pub(super) fn commit(&mut self, v: V, r: u8) {
        if self.remat.get(v as usize).is_some_and(Option::is_some) {
            // Reloaded from its source when used.
            return;
        }
        if let Some(Loc::Slot(s)) = self.locs[v as usize] {
            let m = self.mem(RSP, self.frame.spill + self.frame.vs * s as i32);
            self.a.store(W::Ps, m, r);
        }
    }

    pub(super) fn mask_to_01(&mut self, d: u8) {
        if !self.masks {
            self.a.mask01(d);
            self.a.movq_from_gp(d, RAX);
        }
    }
}
