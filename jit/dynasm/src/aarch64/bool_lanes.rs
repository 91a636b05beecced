//! Bool loads and stores on NEON, as on x86-64 (see `x64/bool_lanes.rs`): one byte per element in
//! memory, a 0/1 integer in scalar phases, an all-ones lane mask in vector phases (the 4-lane
//! loop and its scalar tail). A vector load widens 4 bytes to 32-bit lanes and tests them
//! against zero; a vector store narrows `mask >> 31` back to bytes.

use dynasmrt::DynasmApi;

use super::asm::{K0, Mem, X10, a64};
use super::emit::Emitter;

impl Emitter<'_> {
    /// Loads the bool at `m` into `d`; `bcast`: one byte for every lane.
    pub(super) fn load_bool(&mut self, d: u8, m: Mem, vec: bool, bcast: bool) {
        let b = m.base;
        a64!(self.a.ops ; ldrb w10, [X(b)]);
        if !self.masks {
            self.a.fmov_from_gp(d, X10);
            return;
        }
        if !vec || bcast {
            a64!(self.a.ops ; cmp w10, 0 ; csetm w10, ne);
            self.a.fmov_from_gp(d, X10);
            if vec {
                a64!(self.a.ops ; dup V(d).S4, V(d).S[0]);
            }
            return;
        }
        a64!(self.a.ops
            ; ldr S(d), [X(b)]
            ; uxtl V(d).H8, V(d).B8
            ; uxtl V(d).S4, V(d).H4
            ; cmtst V(d).S4, V(d).S4, V(d).S4
        );
    }

    /// Stores the bool in `r` at `m`.
    pub(super) fn store_bool(&mut self, m: Mem, r: u8, vec: bool) {
        let b = m.base;
        if !vec {
            self.a.fmov_to_gp(X10, r);
            if self.masks {
                a64!(self.a.ops ; and w10, w10, 1);
            }
            a64!(self.a.ops ; strb w10, [X(b)]);
            return;
        }
        a64!(self.a.ops
            ; ushr V(K0).S4, V(r).S4, 31
            ; xtn V(K0).H4, V(K0).S4
            ; xtn V(K0).B8, V(K0).H8
            ; str S(K0), [X(b)]
        );
    }
}
