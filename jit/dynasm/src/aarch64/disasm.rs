//! Listings of emitted AArch64 code through yaxpeax-arm (a pure-Rust decoder, so listings work
//! on every host, x86-64 included).

use yaxpeax_arch::{Decoder, U8Reader};
use yaxpeax_arm::armv8::a64::InstDecoder;

/// One instruction per line: offset, word, text (`.word` for anything the decoder rejects).
pub fn listing(code: &[u8], _addr: u64) -> String {
    let d = InstDecoder::default();
    let mut out = String::new();
    for (i, w) in code.chunks_exact(4).enumerate() {
        let word = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
        let mut r = U8Reader::new(w);
        let text = match d.decode(&mut r) {
            Ok(ins) => ins.to_string(),
            Err(_) => format!(".word {word:#010x}"),
        };
        out.push_str(&format!("{:6x}  {word:08x}  {text}\n", 4 * i));
    }
    out
}
