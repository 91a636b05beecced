//! PyTorch's CPU random stream: a 32-bit Mersenne Twister (the `mt19937` crate) seeded and
//! consumed as ATen's `CPUGeneratorImpl` does, so that `torch.manual_seed(s)` followed by the same
//! random calls gives the numbers PyTorch gives. What has to match, and where ATen defines it:
//! - seeding: the reference `init_genrand` with the seed's low 32 bits; the initial seed is kept
//!   whole (`initial_seed`);
//! - `u32` is one engine output, `u64` two (the first one is the high half);
//! - a uniform float takes the low 24 bits of a `u32` times `2^-24` (53 bits of a `u64` for
//!   `f64`); `f16` and `bf16` round that `f32`;
//! - Box-Muller normals in double precision cache their second value in the generator, and a
//!   re-seed drops the cache;
//! - the state bytes (`torch.get_rng_state`) have the layout of ATen's `CPUGeneratorImplState`
//!   (5,056 bytes, little-endian), so a state saved by PyTorch restores here and back.

use mt19937::MT19937;
use rand_core::TryRng;

use crate::Result;
use crate::error::bail;

/// Words of Mersenne Twister state.
const N: usize = mt19937::N;

/// One generator's stream: the engine, the seed it was started from, and the cached second
/// normal sample of the last double-precision Box-Muller pair.
pub struct Engine {
    seed: u64,
    mt: MT19937,
    next_normal: Option<f64>,
    next_float_normal: Option<f32>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("seed", &self.seed)
            .finish_non_exhaustive()
    }
}

impl Engine {
    /// A stream started from `seed` (its low 32 bits seed the twister, as in ATen).
    pub fn new(seed: u64) -> Engine {
        let mut state = [0u32; N];
        state[0] = seed as u32;
        for i in 1..N {
            let prev = state[i - 1];
            state[i] = 1_812_433_253u32
                .wrapping_mul(prev ^ (prev >> 30))
                .wrapping_add(i as u32);
        }
        let mut mt = MT19937::default();
        mt.set_state(&state);
        mt.set_index(N);
        Engine {
            seed,
            mt,
            next_normal: None,
            next_float_normal: None,
        }
    }

    /// The seed this stream started from.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// One engine output (ATen's `random()`).
    pub fn u32(&mut self) -> u32 {
        let Ok(v) = self.mt.try_next_u32();
        v
    }

    /// Two engine outputs, the first as the high half (ATen's `random64()`).
    pub fn u64(&mut self) -> u64 {
        let hi = u64::from(self.u32());
        (hi << 32) | u64::from(self.u32())
    }

    /// A uniform `f32` in `[0, 1)` with 24 bits, from one `u32` (also the draw for `f16` and
    /// `bf16`, rounded afterwards).
    pub fn uniform_f32(&mut self) -> f32 {
        (self.u32() & 0x00ff_ffff) as f32 * (1.0 / (1u32 << 24) as f32)
    }

    /// A uniform `f64` in `[0, 1)` with 53 bits, from one `u64`.
    pub fn uniform_f64(&mut self) -> f64 {
        (self.u64() & ((1u64 << 53) - 1)) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A standard normal `f64` by Box-Muller; every other call returns the cached second value
    /// of the pair (ATen's `normal_distribution<double>`).
    pub fn normal_f64(&mut self) -> f64 {
        if let Some(v) = self.next_normal.take() {
            return v;
        }
        let u1 = self.uniform_f64();
        let u2 = self.uniform_f64();
        let r = (-2.0 * (-u2).ln_1p()).sqrt();
        let theta = 2.0 * std::f64::consts::PI * u1;
        self.next_normal = Some(r * theta.sin());
        r * theta.cos()
    }

    /// Size of [`Engine::state_bytes`]: ATen's `CPUGeneratorImplState`.
    pub const STATE_LEN: usize = 5056;

    /// The state in ATen's `CPUGeneratorImplState` layout: initial seed (i64), `left` and
    /// `seeded` (i32), `next` (u64), the 624 state words (each as u64), three doubles of which
    /// only `normal_y` is used (the cached normal), `normal_is_valid` (i32), padding, then the
    /// float normal cache (f32) and its flag (u8), padding.
    pub fn state_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(Self::STATE_LEN);
        let index = self.mt.get_index();
        out.extend(self.seed.to_le_bytes());
        // ATen counts down `left` to the next refill; the twister counts up `index`.
        out.extend(((N + 1 - index) as i32).to_le_bytes());
        out.extend(1i32.to_le_bytes());
        // `next`: the index of the next word. A used-up block (index N) is written as 0 where
        // ATen writes 624; both restore the same stream (a refill comes first either way).
        out.extend(((index % N) as u64).to_le_bytes());
        for w in self.mt.get_state() {
            out.extend(u64::from(*w).to_le_bytes());
        }
        out.extend(0f64.to_le_bytes());
        out.extend(self.next_normal.unwrap_or(0.0).to_le_bytes());
        out.extend(0f64.to_le_bytes());
        out.extend(i32::from(self.next_normal.is_some()).to_le_bytes());
        out.extend([0u8; 4]);
        out.extend(self.next_float_normal.unwrap_or(0.0).to_le_bytes());
        out.push(u8::from(self.next_float_normal.is_some()));
        out.resize(Self::STATE_LEN, 0);
        out
    }

    /// Restores [`Engine::state_bytes`] (or a state saved by PyTorch), with ATen's checks.
    pub fn from_state_bytes(b: &[u8]) -> Result<Engine> {
        if b.len() != Self::STATE_LEN {
            bail!(
                Runtime,
                "Expected a CPUGeneratorImplState of size {} but found the input RNG state size to be {}",
                Self::STATE_LEN,
                b.len()
            );
        }
        let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().expect("8 bytes"));
        let i32_at = |o: usize| i32::from_le_bytes(b[o..o + 4].try_into().expect("4 bytes"));
        let (left, seeded, next) = (i32_at(8), i32_at(12), u64_at(16));
        if seeded == 0 || left <= 0 || left as usize > N || next > N as u64 {
            bail!(Runtime, "Invalid mt19937 state");
        }
        let mut words = [0u32; N];
        for (i, w) in words.iter_mut().enumerate() {
            *w = u64_at(24 + 8 * i) as u32;
        }
        let mut mt = MT19937::default();
        mt.set_state(&words);
        mt.set_index(N + 1 - left as usize);
        let after_words = 24 + 8 * N;
        let normal_valid = i32_at(after_words + 24) != 0;
        let float_valid = b[after_words + 36] != 0;
        let float_at = after_words + 32;
        Ok(Engine {
            seed: u64_at(0),
            mt,
            next_normal: normal_valid.then(|| {
                f64::from_le_bytes(
                    b[after_words + 8..after_words + 16]
                        .try_into()
                        .expect("8 bytes"),
                )
            }),
            next_float_normal: float_valid.then(|| {
                f32::from_le_bytes(b[float_at..float_at + 4].try_into().expect("4 bytes"))
            }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference Mersenne Twister's first outputs for `init_genrand(5489)` (the C++
    /// standard's `std::mt19937` default seed; its 10000th output is pinned by the standard).
    #[test]
    fn the_stream_is_the_reference_mt19937() {
        let mut e = Engine::new(5489);
        assert_eq!(e.u32(), 3_499_211_612);
        let mut e = Engine::new(5489);
        let last = (0..10_000).map(|_| e.u32()).last();
        assert_eq!(last, Some(4_123_659_995));
    }

    #[test]
    fn state_bytes_round_trip_mid_block_and_with_a_cached_normal() {
        let mut e = Engine::new(7);
        for _ in 0..700 {
            e.u32();
        }
        e.normal_f64();
        let bytes = e.state_bytes();
        assert_eq!(bytes.len(), Engine::STATE_LEN);
        let mut f = Engine::from_state_bytes(&bytes).unwrap();
        assert_eq!(f.seed(), 7);
        assert_eq!(e.normal_f64().to_bits(), f.normal_f64().to_bits());
        assert_eq!(e.u64(), f.u64());
        let fresh = Engine::new(3).state_bytes();
        let mut g = Engine::from_state_bytes(&fresh).unwrap();
        assert_eq!(g.u32(), Engine::new(3).u32());
    }

    #[test]
    fn bad_state_bytes_are_refused() {
        let err = Engine::from_state_bytes(&[0u8; 10])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("found the input RNG state size to be 10"),
            "{err}"
        );
        let mut b = Engine::new(1).state_bytes();
        b[8..12].copy_from_slice(&0i32.to_le_bytes());
        assert!(Engine::from_state_bytes(&b).is_err());
    }
}
