//! The LFSR streams exactly as the FC core consumes them (docs/decisions.md D-LFSR-USE).
//!
//! The unfolded LFSR emits consecutive bits of one serial sequence, so a W-bit step made of
//! lanes of b bits is simply the next W/b chunks of b bits. [`ChunkStream`] produces those
//! chunks fast: with `y[n] = y[n-17] ^ y[n-14]`, a chunk of 9..=14 bits depends only on the
//! two chunks before it. It is checked against the serial model in the tests below.

use crate::golden::lfsr::{SerialLfsr, LFSR_PERIOD};
use bitvec::prelude::{BitVec, Lsb0};
use std::sync::OnceLock;

/// The whole period of the serial sequence from seed 1 (131,071 bits, plus 128 bits of
/// wrap-around so any window can be read with one unaligned load), and the position of
/// every 17-bit state in it. The bits are a `bitvec` `BitVec<u64, Lsb0>`: bit `t` of the
/// sequence is bit `t % 64` of word `t / 64`, the layout the chunk reads below take from
/// its raw words (two shifts per chunk, the golden training's inner loop).
struct Period {
    bits: BitVec<u64, Lsb0>,
    position: Vec<u32>,
}

impl Period {
    /// The words under the bits, with one zero word after them (a read at the very end
    /// looks at the next word).
    fn words(&self) -> &[u64] {
        self.bits.as_raw_slice()
    }
}

fn period() -> &'static Period {
    static P: OnceLock<Period> = OnceLock::new();
    P.get_or_init(|| {
        let n = LFSR_PERIOD as usize;
        let mut r = SerialLfsr::new(1);
        let mut position = vec![u32::MAX; 1 << 17];
        let mut bits: BitVec<u64, Lsb0> = BitVec::with_capacity(n + 128 + 128);
        for t in 0..n {
            position[r.state() as usize] = t as u32;
            bits.push(r.step());
        }
        bits.extend_from_within(..128);
        // Whole words, and one more: the unaligned read of the last chunk takes word i + 1.
        let padded = (bits.len() / 64 + 2) * 64;
        bits.resize(padded, false);
        Period { bits, position }
    })
}

/// Consecutive `b`-bit chunks (b <= 56) of the serial LFSR sequence from a seed, read from
/// the precomputed period: O(1) per chunk and O(1) to skip any number of chunks.
#[derive(Clone, Debug)]
pub struct PeriodicStream {
    b: u32,
    mask: u64,
    pos: u64,
    count: u64,
}

/// Random access to the chunks ahead of a stream position.
#[derive(Copy, Clone, Debug)]
pub struct Window<'a> {
    words: &'a [u64],
    base: u64,
    b: u64,
    mask: u64,
}

impl Window<'_> {
    /// Chunk `n` after the stream's position (`n * b` must be below the period).
    #[inline(always)]
    pub fn at(&self, n: u64) -> u32 {
        let mut pos = self.base + n * self.b;
        if pos >= LFSR_PERIOD {
            pos -= LFSR_PERIOD;
        }
        let (i, o) = ((pos >> 6) as usize, pos & 63);
        let v = (self.words[i] >> o) | ((self.words[i + 1] << 1) << (63 - o));
        (v & self.mask) as u32
    }
}

impl PeriodicStream {
    /// The stream of the LFSR loaded with `seed` (0 loads 1, as the hardware does).
    pub fn new(seed: u32, b: u32) -> Self {
        assert!((1..=56).contains(&b), "chunk width {b} must be in 1..=56");
        let s = seed & 0x1_ffff;
        let s = if s == 0 { 1 } else { s };
        PeriodicStream {
            b,
            mask: (1u64 << b) - 1,
            pos: period().position[s as usize] as u64,
            count: 0,
        }
    }

    #[inline(always)]
    fn read(&self, pos: u64) -> u32 {
        let w = period().words();
        let (i, o) = ((pos / 64) as usize, pos % 64);
        let lo = w[i] >> o;
        let hi = if o == 0 { 0 } else { w[i + 1] << (64 - o) };
        ((lo | hi) & self.mask) as u32
    }

    /// The next chunk (bit 0 the earliest).
    #[inline(always)]
    pub fn next_chunk(&mut self) -> u32 {
        let c = self.read(self.pos);
        self.pos += self.b as u64;
        if self.pos >= LFSR_PERIOD {
            self.pos -= LFSR_PERIOD;
        }
        self.count += 1;
        c
    }

    /// Fill `out` with the next chunks.
    pub fn fill(&mut self, out: &mut [u32]) {
        for c in out.iter_mut() {
            *c = self.next_chunk();
        }
    }

    /// A cursor reading chunks `n` ahead without advancing (for `n * b` below the period).
    pub fn window(&self) -> Window<'static> {
        Window {
            words: period().words(),
            base: self.pos,
            b: self.b as u64,
            mask: self.mask,
        }
    }

    /// Skip `n` chunks.
    pub fn skip(&mut self, n: u64) {
        self.pos = (self.pos + (n % LFSR_PERIOD) * self.b as u64 % LFSR_PERIOD) % LFSR_PERIOD;
        self.count += n;
    }

    /// Chunks handed out or skipped so far.
    pub fn position(&self) -> u64 {
        self.count
    }

    /// The 17-bit LFSR state a stream must be seeded with to continue exactly where this
    /// one is: `PeriodicStream::new(s.state(), b)` reads the same chunks from here on (how a
    /// checkpoint re-seeds the hardware's LFSR).
    pub fn state(&self) -> u32 {
        let p = period();
        p.position
            .iter()
            .position(|&t| t as u64 == self.pos)
            .expect("every position of the period has a state") as u32
    }
}

/// Consecutive `b`-bit chunks (b in 9..=14) of the serial LFSR sequence from a seed.
#[derive(Clone, Debug)]
pub struct ChunkStream {
    b: u32,
    mask: u32,
    /// The chunk before the previous one, and the previous one.
    c2: u32,
    c1: u32,
    /// How many chunks have been handed out.
    count: u64,
    /// The first two chunks come straight from the serial register.
    head: [u32; 2],
}

impl ChunkStream {
    /// The stream of the LFSR loaded with `seed` (0 loads 1, as the hardware does).
    pub fn new(seed: u32, b: u32) -> Self {
        assert!(
            (9..=14).contains(&b),
            "chunk width {b} must be in 9..=14 (two chunks must cover 17 bits)"
        );
        let mut serial = SerialLfsr::new(seed);
        let c0 = serial.next_bits(b as usize) as u32;
        let c1 = serial.next_bits(b as usize) as u32;
        ChunkStream {
            b,
            mask: (1 << b) - 1,
            c2: c0,
            c1,
            count: 0,
            head: [c0, c1],
        }
    }

    /// The next chunk (bit 0 the earliest).
    #[inline(always)]
    pub fn next_chunk(&mut self) -> u32 {
        let n = self.count;
        self.count += 1;
        if n < 2 {
            return self.head[n as usize];
        }
        // Window starting 17 bits back: top (17 - b) bits of c2, then c1.
        let b = self.b;
        let back17 = ((self.c2 >> (2 * b - 17)) | (self.c1 << (17 - b))) & self.mask;
        let back14 = if b == 14 {
            self.c1
        } else {
            ((self.c2 >> (2 * b - 14)) | (self.c1 << (14 - b))) & self.mask
        };
        let c = back17 ^ back14;
        self.c2 = self.c1;
        self.c1 = c;
        c
    }

    /// Skip `n` chunks.
    pub fn skip(&mut self, n: u64) {
        for _ in 0..n {
            self.next_chunk();
        }
    }

    /// Chunks handed out so far.
    pub fn position(&self) -> u64 {
        self.count
    }
}

/// The local-classifier weights of one core: `b[n][o]`, the 6-bit slice o of the LFSR's
/// n-th `classes * weight_bits`-bit step (bit 0 earliest), read as two's complement with the
/// most negative value mapped to the next one (-32 -> -31), for LC input neuron n
/// (spec §7-14). The core reseeds this LFSR at every LS_INF and LS_BK, so the matrix is
/// fixed.
pub fn lc_weights(seed: u32, inputs: usize, classes: usize, weight_bits: u32) -> Vec<Vec<i64>> {
    let mut serial = SerialLfsr::new(seed);
    (0..inputs)
        .map(|_| {
            (0..classes)
                .map(|_| lc_weight(serial.next_bits(weight_bits as usize), weight_bits))
                .collect()
        })
        .collect()
}

/// One LC weight from `weight_bits` LFSR bits: two's complement, the most negative value
/// read as the next one (-32 -> -31 for 6 bits).
pub fn lc_weight(bits: u64, weight_bits: u32) -> i64 {
    let v = crate::golden::arith::sext(bits, weight_bits);
    v.max(1 - (1i64 << (weight_bits - 1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_seeded_with_its_state_continues_it() {
        for (seed, b, skip) in [
            (1u32, 14u32, 0u64),
            (0x1abcd, 14, 12_345),
            (77, 9, 999_999),
            (5, 56, 3),
        ] {
            let mut s = PeriodicStream::new(seed, b);
            s.skip(skip);
            let mut t = PeriodicStream::new(s.state(), b);
            for _ in 0..1000 {
                assert_eq!(
                    s.next_chunk(),
                    t.next_chunk(),
                    "seed {seed:#x}, b {b}, skip {skip}"
                );
            }
        }
    }

    #[test]
    fn chunk_stream_equals_serial_bits() {
        for b in [9u32, 11, 13, 14] {
            for seed in [1u32, 0x1_2345, 0x1_ffff, 0] {
                let mut s = ChunkStream::new(seed, b);
                let mut r = SerialLfsr::new(seed);
                for k in 0..5000 {
                    assert_eq!(
                        s.next_chunk() as u64,
                        r.next_bits(b as usize),
                        "b {b} seed {seed:#x} chunk {k}"
                    );
                }
            }
        }
    }

    #[test]
    fn periodic_stream_equals_serial_bits_and_skips() {
        for b in [14u32, 6, 56, 1] {
            for seed in [1u32, 0x1_2345, 0x1_ffff, 0] {
                let mut s = PeriodicStream::new(seed, b);
                let mut c = ChunkStream::new(seed, 14);
                let mut r = SerialLfsr::new(seed);
                for k in 0..3000 {
                    let want = r.next_bits(b as usize) as u32;
                    assert_eq!(s.next_chunk(), want, "b {b} seed {seed:#x} chunk {k}");
                }
                if b == 14 {
                    let mut s2 = PeriodicStream::new(seed, 14);
                    s2.skip(1234);
                    c.skip(1234);
                    for _ in 0..300 {
                        assert_eq!(s2.next_chunk(), c.next_chunk());
                    }
                    let win = PeriodicStream::new(seed, 14);
                    let mut lin = win.clone();
                    for n in 0..5000u64 {
                        assert_eq!(win.window().at(n), lin.next_chunk(), "window {n}");
                    }
                    // A whole period later the stream repeats.
                    let mut s3 = PeriodicStream::new(seed, 14);
                    let first = s3.next_chunk();
                    s3.skip(LFSR_PERIOD - 1);
                    assert_eq!(s3.next_chunk(), first);
                }
            }
        }
    }

    #[test]
    fn lc_weights_are_six_bit_slices_without_minus_32() {
        let b = lc_weights(0x1ACE, 480, 10, 6);
        assert_eq!(b.len(), 480);
        assert!(b.iter().flatten().all(|&w| (-31..=31).contains(&w)));
        let mut r = SerialLfsr::new(0x1ACE);
        let first = r.next_bits(60);
        assert_eq!(b[0][0], crate::golden::arith::sext(first & 63, 6).max(-31));
        assert_eq!(b[0][9], crate::golden::arith::sext(first >> 54, 6).max(-31));
    }
}
