//! FNV-1a, 64 bits: a small, stable, dependency-free hash for layout descriptions (policy map,
//! input planes), variant rules and checksums of weight files. Not for anything adversarial.

/// An FNV-1a 64-bit hasher.
#[derive(Copy, Clone, Debug)]
pub struct Fnv1a(u64);

impl Default for Fnv1a {
    fn default() -> Self {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv1a {
    /// Feeds bytes.
    pub fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    /// Feeds a string followed by a separator, so that consecutive strings cannot run together.
    pub fn write_str(&mut self, text: &str) {
        self.write(text.as_bytes());
        self.write(&[0xff]);
    }

    /// The hash of everything written so far.
    pub fn finish(&self) -> u64 {
        self.0
    }
}

/// The FNV-1a hash of `bytes`.
pub fn hash(bytes: &[u8]) -> u64 {
    let mut h = Fnv1a::default();
    h.write(bytes);
    h.finish()
}

#[cfg(test)]
mod tests {
    #[test]
    fn matches_the_reference_values() {
        assert_eq!(super::hash(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(super::hash(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(super::hash(b"foobar"), 0x8594_4171_f739_67e8);
    }
}
