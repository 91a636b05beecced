//! Listings of emitted code through iced-x86 (Intel syntax).

use iced_x86::{Decoder, DecoderOptions, Formatter, IntelFormatter};

/// One instruction per line: offset, bytes, text.
pub fn listing(code: &[u8], addr: u64) -> String {
    let mut d = Decoder::with_ip(64, code, addr, DecoderOptions::NONE);
    let mut f = IntelFormatter::new();
    let mut out = String::new();
    let mut text = String::new();
    while d.can_decode() {
        let ins = d.decode();
        text.clear();
        f.format(&ins, &mut text);
        let start = (ins.ip() - addr) as usize;
        let bytes: String = code[start..start + ins.len()]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        out.push_str(&format!("{:6x}  {bytes:<24} {text}\n", start));
    }
    out
}
