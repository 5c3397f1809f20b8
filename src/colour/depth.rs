//! The depth of a converted frame's packed pixels: 8-bit channels in RGBA8 words or 10-bit
//! ones in RGB10A2 words, as every pass that reads the frame takes them.

/// The depth of the samples counted: 8-bit channels (a frame's pixels packed RGBA8, red in the
/// low byte) or 10-bit (packed RGB10A2: red in bits 0–9, green 10–19, blue 20–29).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Depth {
    #[default]
    Eight,
    Ten,
}

impl Depth {
    /// The depth of frames with `bits` bits per channel (8 or 10).
    pub fn from_bits(bits: u32) -> Self {
        if bits > 8 {
            Depth::Ten
        } else {
            Depth::Eight
        }
    }

    pub fn bits(self) -> u32 {
        match self {
            Depth::Eight => 8,
            Depth::Ten => 10,
        }
    }

    /// The largest code value, 2^b − 1.
    pub fn max_code(self) -> u32 {
        (1 << self.bits()) - 1
    }

    /// A pixel's channels from its packed word.
    #[inline]
    pub fn unpack(self, word: u32) -> [u32; 3] {
        match self {
            Depth::Eight => [word & 0xff, (word >> 8) & 0xff, (word >> 16) & 0xff],
            Depth::Ten => [word & 0x3ff, (word >> 10) & 0x3ff, (word >> 20) & 0x3ff],
        }
    }
}

/// Packs 10-bit channels as RGB10A2 (alpha opaque).
pub fn pack_rgb10(r: u32, g: u32, b: u32) -> u32 {
    (r & 0x3ff) | (g & 0x3ff) << 10 | (b & 0x3ff) << 20 | 3 << 30
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_words_unpack_at_their_depth() {
        let word = pack_rgb10(1023, 512, 1);
        assert_eq!(Depth::Ten.unpack(word), [1023, 512, 1]);
        assert_eq!(word >> 30, 3);
        assert_eq!(Depth::Eight.unpack(u32::from_le_bytes([10, 20, 30, 255])), [10, 20, 30]);
    }
}
