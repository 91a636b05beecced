//! Calls from kernel code into scalar helpers (`crate::helpers`, libm): every vector register,
//! the caller-saved GP registers and the NaN-flag opmasks are saved around them (SysV: all of
//! them are caller-saved).

use dynasmrt::DynasmApi;

use super::asm::{Mem, W, x64};
use super::emit::{Emitter, RSP};

/// The caller-saved GP registers the kernel keeps live (rcx, rsi, rdi, r8-r11).
const SAVED_GP: [u8; 7] = [1, 6, 7, 8, 9, 10, 11];

impl Emitter<'_> {
    /// Calls a scalar helper with every register saved; the result lands in `d`.
    pub fn call(&mut self, f: usize, args: &[u8], double: bool, d: u8) {
        self.save_all();
        let w = if double { W::Sd } else { W::Ss };
        for (i, &r) in args.iter().enumerate() {
            let m = self.mem(RSP, self.frame.save + self.frame.vs * i32::from(r));
            self.a.load(w, i as u8, m);
        }
        let res = self.mem(RSP, self.frame.call);
        self.raw_call(f);
        self.a.store(W::Sd, res, 0);
        self.restore_all();
        self.a.load(w, d, res);
    }

    /// Calls `f` with rdi/rsi/rdx already set by the caller (after [`Emitter::save_all`]).
    pub fn raw_call(&mut self, f: usize) {
        if self.a.avx() {
            x64!(self.a.ops ; vzeroupper);
        }
        let f = f as i64;
        x64!(self.a.ops ; mov rax, QWORD f ; call rax);
    }

    /// Saves every vector register (all of a zmm on AVX-512), the live caller-saved GP
    /// registers and the NaN-flag opmasks.
    pub fn save_all(&mut self) {
        for r in 0..16u8 {
            let m = self.mem(RSP, self.frame.save + self.frame.vs * i32::from(r));
            self.a.store(W::Ps, m, r);
        }
        for (i, &g) in SAVED_GP.iter().enumerate() {
            let o = self.frame.gp_save + 8 * i as i32;
            x64!(self.a.ops ; mov [rsp + o], Rq(g));
        }
        for (m, k) in self.nan_k_slots() {
            self.a.z_kstore(m, k);
        }
    }

    /// Where `save_all` keeps each NaN-flag opmask (`k2`-`k4`): 2 bytes each in the 8 that the
    /// GP registers leave of their 64.
    fn nan_k_slots(&self) -> Vec<(Mem, u8)> {
        let mut ks: Vec<u8> = self.nan_k.values().copied().collect();
        ks.sort_unstable();
        let base = self.frame.gp_save + 8 * SAVED_GP.len() as i32;
        ks.into_iter()
            .map(|k| (Mem::vec(RSP, base + 2 * i32::from(k - 2)), k))
            .collect()
    }

    /// Restores what [`Emitter::save_all`] saved.
    pub fn restore_all(&mut self) {
        for r in 0..16u8 {
            let m = self.mem(RSP, self.frame.save + self.frame.vs * i32::from(r));
            self.a.load(W::Ps, r, m);
        }
        for (i, &g) in SAVED_GP.iter().enumerate() {
            let o = self.frame.gp_save + 8 * i as i32;
            x64!(self.a.ops ; mov Rq(g), [rsp + o]);
        }
        for (m, k) in self.nan_k_slots() {
            self.a.z_kload(k, m);
        }
    }
}
