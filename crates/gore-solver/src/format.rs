//! The file of one solved layer: a 64-byte header, then V and the bounds
//! of every board packed in 2 bytes, by rank, then the boards that did not
//! fit. docs/SOLVED.md, "The files", describes it byte by byte.
//!
//! Each board's word (`u16`, little-endian) holds, from bit 0 up, V in
//! `v_bits`, V − LB in `lo_bits` and UB − V in `hi_bits` (`v_bits` is just
//! enough for `2n`; the other two are chosen per layer from the measured
//! maxima, so that the three fit in 16). A board whose differences do not
//! fit the widths has the word `0xFFFF` (never a packed word, see
//! [`ESCAPE`]) and its values in the exceptions table after the array:
//! entries of 8 bytes (rank `u32`, V, LB, UB, a zero byte), sorted by rank,
//! found by binary search.
//!
//! Checksums are CRC-32 (IEEE), from the `crc32fast` crate: well kept,
//! fast (SIMD: a layer of 400 MB checks in a fraction of a second, so every
//! file is checked whole when it is opened) and enough to catch the
//! damage files suffer (flipped bits, truncation, a torn write); nobody
//! forges these files.

use core::fmt;
use std::io::{self, Write};

use crate::index::layer_size;
use crate::values::{SolvedLayer, Values};

/// The first 8 bytes of every layer file.
pub const MAGIC: [u8; 8] = *b"GORESOLV";

/// The format version this crate writes and reads.
pub const VERSION: u16 = 1;

/// The header's size in bytes.
pub const HEADER_LEN: usize = 64;

/// The word of a board kept in the exceptions table.
pub const ESCAPE: u16 = 0xFFFF;

/// One exception entry's size in bytes.
pub const EXCEPTION_LEN: usize = 8;

/// The rules a file was solved under, as written in its header (byte 10).
pub fn rules_name(skip_origin: bool) -> &'static str {
    if skip_origin {
        "no-trades,skip-origin"
    } else {
        "no-trades"
    }
}

/// A layer file's header, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// Format version.
    pub version: u16,
    /// Rules `no-trades,skip-origin` (else `no-trades`).
    pub skip_origin: bool,
    /// The layer: seeds on the board.
    pub n: usize,
    /// Boards in the layer (`layer_size(n)`).
    pub boards: u64,
    /// Bits of V in a word.
    pub v_bits: u8,
    /// Bits of V − LB.
    pub lo_bits: u8,
    /// Bits of UB − V.
    pub hi_bits: u8,
    /// Entries in the exceptions table.
    pub exceptions: u64,
    /// CRC-32 of everything after the header.
    pub payload_crc: u32,
}

impl Header {
    /// The bytes after the header: the words and the exceptions.
    pub fn payload_len(&self) -> u64 {
        2 * self.boards + EXCEPTION_LEN as u64 * self.exceptions
    }

    fn to_bytes(self) -> [u8; HEADER_LEN] {
        let mut h = [0u8; HEADER_LEN];
        h[0..8].copy_from_slice(&MAGIC);
        h[8..10].copy_from_slice(&self.version.to_le_bytes());
        h[10] = self.skip_origin as u8;
        h[11] = self.n as u8;
        h[12..20].copy_from_slice(&self.boards.to_le_bytes());
        h[20] = self.v_bits;
        h[21] = self.lo_bits;
        h[22] = self.hi_bits;
        h[24..32].copy_from_slice(&self.exceptions.to_le_bytes());
        h[32..40].copy_from_slice(&self.payload_len().to_le_bytes());
        h[40..44].copy_from_slice(&self.payload_crc.to_le_bytes());
        let crc = crc32fast::hash(&h[..60]);
        h[60..64].copy_from_slice(&crc.to_le_bytes());
        h
    }
}

/// Why a layer file is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormatError {
    /// Shorter than its header says (or than a header).
    Truncated {
        /// The file's length.
        len: u64,
        /// The length its header announces (or the header's).
        expected: u64,
    },
    /// Longer than its header says.
    TrailingBytes {
        /// The file's length.
        len: u64,
        /// The length its header announces.
        expected: u64,
    },
    /// Not a layer file.
    Magic,
    /// A format version this build does not read.
    Version(u16),
    /// The header's checksum does not match it.
    HeaderChecksum,
    /// Solved under other rules.
    Rules {
        /// The file's rules.
        found: &'static str,
        /// The rules asked for.
        expected: &'static str,
    },
    /// Another layer.
    Layer {
        /// The file's layer.
        found: usize,
        /// The layer asked for.
        expected: usize,
    },
    /// The board count is not the layer's.
    Count {
        /// The file's count.
        found: u64,
        /// C(n + 7, 7).
        expected: u64,
    },
    /// The bit widths cannot hold the layer's values.
    Encoding(String),
    /// The payload's checksum does not match it: the file is damaged.
    PayloadChecksum,
    /// The exceptions table is out of order or names a board outside.
    Exceptions(String),
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FormatError::Truncated { len, expected } => {
                write!(f, "truncated: {len} bytes, expected {expected}")
            }
            FormatError::TrailingBytes { len, expected } => {
                write!(f, "{len} bytes, expected {expected}: bytes after the end")
            }
            FormatError::Magic => f.write_str("not a Goré solver layer file (wrong magic)"),
            FormatError::Version(v) => {
                write!(f, "format version {v}, this build reads version {VERSION}")
            }
            FormatError::HeaderChecksum => f.write_str("damaged header (checksum mismatch)"),
            FormatError::Rules { found, expected } => {
                write!(f, "solved under rules {found}, expected {expected}")
            }
            FormatError::Layer { found, expected } => {
                write!(f, "holds layer {found}, expected layer {expected}")
            }
            FormatError::Count { found, expected } => {
                write!(f, "{found} boards in the header, the layer has {expected}")
            }
            FormatError::Encoding(why) => write!(f, "bad encoding in the header: {why}"),
            FormatError::PayloadChecksum => f.write_str("damaged values (checksum mismatch)"),
            FormatError::Exceptions(why) => write!(f, "bad exceptions table: {why}"),
        }
    }
}

impl std::error::Error for FormatError {}

/// Bits needed for the numbers `0..=max`.
fn bits(max: u8) -> u8 {
    (8 - max.leading_zeros()) as u8
}

/// The packed form of a layer, ready to be written: the widths, the
/// exceptions and the payload's checksum, computed in one pass over the
/// values (the words themselves are made again while writing, so the
/// layer is never held twice).
pub struct Encoder<'a> {
    layer: &'a SolvedLayer,
    header: Header,
    exceptions: Vec<(u32, Values)>,
}

impl<'a> Encoder<'a> {
    /// Measures the layer and chooses its encoding.
    ///
    /// # Panics
    /// If the layer's values are not a layer's (a count other than
    /// C(n + 7, 7), or not LB ≤ V ≤ UB ≤ 2n): the solver's bug, not
    /// input.
    pub fn new(layer: &'a SolvedLayer, skip_origin: bool) -> Encoder<'a> {
        let n = layer.n;
        let boards = layer_size(n);
        assert_eq!(layer.values.len() as u64, boards, "layer {n} is incomplete");
        let all = 2 * n as u8;
        let (mut max_lo, mut max_hi) = (0u8, 0u8);
        for x in &layer.values {
            assert!(
                x.lb <= x.v && x.v <= x.ub && x.ub <= all,
                "bad values {x:?}"
            );
            max_lo = max_lo.max(x.v - x.lb);
            max_hi = max_hi.max(x.ub - x.v);
        }
        let v_bits = bits(all);
        let (mut lo_bits, mut hi_bits) = (bits(max_lo), bits(max_hi));
        // Too wide together: narrow the wider field; its largest values go
        // to the exceptions (there are few: the differences are small).
        while v_bits + lo_bits + hi_bits > 16 {
            if lo_bits >= hi_bits {
                lo_bits -= 1;
            } else {
                hi_bits -= 1;
            }
        }
        let mut e = Encoder {
            layer,
            header: Header {
                version: VERSION,
                skip_origin,
                n,
                boards,
                v_bits,
                lo_bits,
                hi_bits,
                exceptions: 0,
                payload_crc: 0,
            },
            exceptions: Vec::new(),
        };
        let mut crc = crc32fast::Hasher::new();
        let mut buf = Vec::with_capacity(CHUNK * 2);
        for (start, chunk) in layer.values.chunks(CHUNK).enumerate() {
            buf.clear();
            for (i, &x) in chunk.iter().enumerate() {
                let w = e.word(x);
                if w == ESCAPE {
                    e.exceptions.push(((start * CHUNK + i) as u32, x));
                }
                buf.extend_from_slice(&w.to_le_bytes());
            }
            crc.update(&buf);
        }
        for &(r, x) in &e.exceptions {
            crc.update(&exception_bytes(r, x));
        }
        e.header.exceptions = e.exceptions.len() as u64;
        e.header.payload_crc = crc.finalize();
        e
    }

    /// The header this layer gets.
    pub fn header(&self) -> Header {
        self.header
    }

    /// A board's word, or [`ESCAPE`] when it does not fit.
    #[inline]
    fn word(&self, x: Values) -> u16 {
        let h = &self.header;
        let (lo, hi) = ((x.v - x.lb) as u32, (x.ub - x.v) as u32);
        if lo >= 1 << h.lo_bits || hi >= 1 << h.hi_bits {
            return ESCAPE;
        }
        // With the three fields 16 bits wide, all ones could be a real
        // word: it is ESCAPE all the same, and the board goes to the
        // table (the caller pushes every ESCAPE), so ESCAPE means one thing.
        (x.v as u32 | lo << h.v_bits | hi << (h.v_bits + h.lo_bits)) as u16
    }

    /// Writes the file: header, words, exceptions.
    pub fn write_to(&self, w: &mut dyn Write) -> io::Result<()> {
        w.write_all(&self.header.to_bytes())?;
        let mut buf = Vec::with_capacity(CHUNK * 2);
        for chunk in self.layer.values.chunks(CHUNK) {
            buf.clear();
            for &x in chunk {
                buf.extend_from_slice(&self.word(x).to_le_bytes());
            }
            w.write_all(&buf)?;
        }
        for &(r, x) in &self.exceptions {
            w.write_all(&exception_bytes(r, x))?;
        }
        Ok(())
    }
}

/// Boards packed per write (and per checksum update).
const CHUNK: usize = 1 << 16;

fn exception_bytes(r: u32, x: Values) -> [u8; EXCEPTION_LEN] {
    let r = r.to_le_bytes();
    [r[0], r[1], r[2], r[3], x.v, x.lb, x.ub, 0]
}

/// The whole file of a layer, in memory.
///
/// ```
/// use gore_solver::{format::{encode, LayerView}, naive, Lookup};
/// let db = naive::memory(4, false);
/// let bytes = encode(&db.layers[4], false);
/// let view = LayerView::parse(&bytes, false, 4).unwrap();
/// assert_eq!(view.values(17), db.values(4, 17));
/// ```
pub fn encode(layer: &SolvedLayer, skip_origin: bool) -> Vec<u8> {
    let e = Encoder::new(layer, skip_origin);
    let mut out = Vec::with_capacity(HEADER_LEN + e.header.payload_len() as usize);
    e.write_to(&mut out).expect("a Vec takes every write");
    out
}

/// A layer file read in place (a memory map, or bytes in memory),
/// checked when parsed.
#[derive(Debug, Clone, Copy)]
pub struct LayerView<'a> {
    decoder: Decoder,
    file: &'a [u8],
}

/// How to read the values of a checked file: its header and the masks
/// and shifts of its words. It holds no borrow, so the `disk` feature's
/// `Database` keeps one beside each map.
#[derive(Debug, Clone, Copy)]
pub struct Decoder {
    header: Header,
    v_mask: u16,
    lo_mask: u16,
    lo_shift: u32,
    hi_shift: u32,
}

impl Decoder {
    /// The header of the file it reads.
    pub fn header(&self) -> Header {
        self.header
    }

    #[inline]
    fn word(&self, file: &[u8], rank: u64) -> u16 {
        let i = HEADER_LEN + 2 * rank as usize;
        u16::from_le_bytes([file[i], file[i + 1]])
    }

    /// The values of the board of rank `rank` in `file`, the whole file
    /// this decoder was made from by [`LayerView::parse`] (another file
    /// gives nonsense, or a panic on a short one, never unsafety).
    ///
    /// # Panics
    /// If `rank` is outside the layer.
    #[inline]
    pub fn values(&self, file: &[u8], rank: u64) -> Values {
        assert!(
            rank < self.header.boards,
            "rank {rank} is outside the layer"
        );
        let w = self.word(file, rank);
        if w == ESCAPE {
            return self.exception(file, rank);
        }
        let v = (w & self.v_mask) as u8;
        let lo = ((w as u32 >> self.lo_shift) as u16 & self.lo_mask) as u8;
        let hi = (w as u32 >> self.hi_shift) as u8;
        // Checked at write and guarded by the checksum; wrapping keeps a
        // forged file from panicking (it gives nonsense, not a crash).
        Values {
            v,
            lb: v.wrapping_sub(lo),
            ub: v.wrapping_add(hi),
        }
    }

    fn exceptions<'f>(&self, file: &'f [u8]) -> &'f [u8] {
        &file[HEADER_LEN + 2 * self.header.boards as usize..]
    }

    #[cold]
    fn exception(&self, file: &[u8], rank: u64) -> Values {
        let table = self.exceptions(file);
        let count = table.len() / EXCEPTION_LEN;
        let at = |i: usize| {
            let e = &table[i * EXCEPTION_LEN..];
            u32::from_le_bytes([e[0], e[1], e[2], e[3]]) as u64
        };
        let (mut lo, mut hi) = (0, count);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if at(mid) < rank {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        // Every escaped word has its entry (checked with the payload); in a
        // file whose payload was not checked, nonsense rather than a panic.
        match table.get(lo * EXCEPTION_LEN..(lo + 1) * EXCEPTION_LEN) {
            Some(e) => Values {
                v: e[4],
                lb: e[5],
                ub: e[6],
            },
            None => Values::default(),
        }
    }
}

impl<'a> LayerView<'a> {
    /// Reads and checks a file of layer `n` under rules `no-trades` (with
    /// `skip-origin` when `skip_origin`): its header, its length, its
    /// checksums and its exceptions table.
    pub fn parse(bytes: &'a [u8], skip_origin: bool, n: usize) -> Result<Self, FormatError> {
        let view = Self::parse_header(bytes, skip_origin, n)?;
        view.check_payload()?;
        Ok(view)
    }

    /// Checks what [`LayerView::parse`] checks except the payload (its
    /// checksum and its exceptions table), which it leaves to
    /// [`LayerView::check_payload`]: the header and the length only, no
    /// pass over the values. Lookups in a damaged payload then give
    /// nonsense, never a panic.
    pub fn parse_header(bytes: &'a [u8], skip_origin: bool, n: usize) -> Result<Self, FormatError> {
        let len = bytes.len() as u64;
        if bytes.len() < HEADER_LEN {
            return Err(if bytes.len() < 8 || bytes[..8] == MAGIC {
                FormatError::Truncated {
                    len,
                    expected: HEADER_LEN as u64,
                }
            } else {
                FormatError::Magic
            });
        }
        let h = &bytes[..HEADER_LEN];
        if h[..8] != MAGIC {
            return Err(FormatError::Magic);
        }
        let u64_at = |i: usize| u64::from_le_bytes(h[i..i + 8].try_into().expect("8 bytes"));
        let u32_at = |i: usize| u32::from_le_bytes(h[i..i + 4].try_into().expect("4 bytes"));
        let version = u16::from_le_bytes([h[8], h[9]]);
        if version != VERSION {
            return Err(FormatError::Version(version));
        }
        if crc32fast::hash(&h[..60]) != u32_at(60) {
            return Err(FormatError::HeaderChecksum);
        }
        if h[10] > 1 || h[10] != skip_origin as u8 {
            let found = match h[10] {
                0 => rules_name(false),
                1 => rules_name(true),
                _ => "unknown",
            };
            return Err(FormatError::Rules {
                found,
                expected: rules_name(skip_origin),
            });
        }
        let header = Header {
            version,
            skip_origin,
            n: h[11] as usize,
            boards: u64_at(12),
            v_bits: h[20],
            lo_bits: h[21],
            hi_bits: h[22],
            exceptions: u64_at(24),
            payload_crc: u32_at(40),
        };
        if header.n != n {
            return Err(FormatError::Layer {
                found: header.n,
                expected: n,
            });
        }
        if n > crate::index::MAX_SEEDS {
            return Err(FormatError::Encoding(format!("layer {n} is above 48")));
        }
        if header.boards != layer_size(n) {
            return Err(FormatError::Count {
                found: header.boards,
                expected: layer_size(n),
            });
        }
        let (vb, lb, hb) = (header.v_bits, header.lo_bits, header.hi_bits);
        // V takes just the bits of 2n, and no difference needs more.
        let need = bits(2 * n as u8);
        if vb != need || lb > need || hb > need || vb as u32 + lb as u32 + hb as u32 > 16 {
            return Err(FormatError::Encoding(format!(
                "widths {vb}+{lb}+{hb} bits are not an encoding of layer {n} ({need} bits for V)"
            )));
        }
        if header.exceptions > header.boards || u64_at(32) != header.payload_len() {
            return Err(FormatError::Encoding(format!(
                "payload of {} bytes for {} boards and {} exceptions",
                u64_at(32),
                header.boards,
                header.exceptions
            )));
        }
        let expected = HEADER_LEN as u64 + header.payload_len();
        if len < expected {
            return Err(FormatError::Truncated { len, expected });
        }
        if len > expected {
            return Err(FormatError::TrailingBytes { len, expected });
        }
        let decoder = Decoder {
            header,
            v_mask: ((1u32 << vb) - 1) as u16,
            lo_mask: ((1u32 << lb) - 1) as u16,
            lo_shift: vb as u32,
            hi_shift: vb as u32 + lb as u32,
        };
        Ok(LayerView {
            decoder,
            file: bytes,
        })
    }

    /// The payload's checksum and exceptions table (one pass over the
    /// file).
    pub fn check_payload(&self) -> Result<(), FormatError> {
        if crc32fast::hash(&self.file[HEADER_LEN..]) != self.decoder.header.payload_crc {
            return Err(FormatError::PayloadChecksum);
        }
        self.check_exceptions()
    }

    /// Sorted, inside the layer, each on an escaped word, values in order,
    /// and as many as the escaped words (one pass over the words, cheap
    /// beside the checksum's).
    fn check_exceptions(&self) -> Result<(), FormatError> {
        let d = &self.decoder;
        let h = d.header;
        let all = 2 * h.n as u8;
        let words = &self.file[HEADER_LEN..HEADER_LEN + 2 * h.boards as usize];
        let escaped = words
            .chunks_exact(2)
            .filter(|w| w[0] == 0xFF && w[1] == 0xFF)
            .count() as u64;
        if escaped != h.exceptions {
            return Err(FormatError::Exceptions(format!(
                "{escaped} escaped boards, {} entries",
                h.exceptions
            )));
        }
        let mut last: Option<u32> = None;
        for e in d.exceptions(self.file).chunks_exact(EXCEPTION_LEN) {
            let r = u32::from_le_bytes([e[0], e[1], e[2], e[3]]);
            if let Some(l) = last.filter(|&l| l >= r) {
                return Err(FormatError::Exceptions(format!("rank {r} after {l}")));
            }
            if r as u64 >= h.boards || d.word(self.file, r as u64) != ESCAPE {
                return Err(FormatError::Exceptions(format!(
                    "rank {r} is not an escaped board"
                )));
            }
            if !(e[5] <= e[4] && e[4] <= e[6] && e[6] <= all) {
                return Err(FormatError::Exceptions(format!(
                    "rank {r}: values out of order"
                )));
            }
            last = Some(r);
        }
        Ok(())
    }

    /// The header.
    pub fn header(&self) -> Header {
        self.decoder.header
    }

    /// How to read this file's values without holding the borrow.
    pub fn decoder(&self) -> Decoder {
        self.decoder
    }

    /// The values of the board of rank `rank`.
    ///
    /// # Panics
    /// If `rank` is outside the layer.
    #[inline]
    pub fn values(&self, rank: u64) -> Values {
        self.decoder.values(self.file, rank)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::naive;

    fn layer(n: usize, skip: bool) -> SolvedLayer {
        naive::memory(n, skip).layers.pop().unwrap()
    }

    #[test]
    fn round_trip_every_small_layer() {
        for skip in [false, true] {
            let db = naive::memory(12, skip);
            for l in &db.layers {
                let bytes = encode(l, skip);
                let view = LayerView::parse(&bytes, skip, l.n).unwrap();
                for (r, &x) in l.values.iter().enumerate() {
                    assert_eq!(view.values(r as u64), x, "layer {} rank {r}", l.n);
                }
            }
        }
    }

    /// A layer whose widths need narrowing: V of layer 20 takes 6 bits,
    /// and made-up differences of 39 would take 6 more each; narrowed to
    /// 5 + 5, the two boards beyond go to the table (by hand: V − LB = 39
    /// on one, UB − V = 39 on another; 30 and 10 still fit).
    #[test]
    fn exceptions_round_trip() {
        let n = 20;
        let mut big = SolvedLayer {
            n,
            values: vec![
                Values {
                    v: 20,
                    lb: 19,
                    ub: 21
                };
                layer_size(n) as usize
            ],
        };
        big.values[7] = Values {
            v: 30,
            lb: 0,
            ub: 40,
        };
        big.values[100_000] = Values {
            v: 1,
            lb: 0,
            ub: 40,
        };
        big.values[800_000] = Values {
            v: 39,
            lb: 0,
            ub: 40,
        };
        let bytes = encode(&big, true);
        let view = LayerView::parse(&bytes, true, n).unwrap();
        let h = view.header();
        assert_eq!((h.v_bits, h.lo_bits, h.hi_bits), (6, 5, 5));
        assert_eq!(h.exceptions, 2);
        for (r, &x) in big.values.iter().enumerate() {
            assert_eq!(view.values(r as u64), x, "rank {r}");
        }
        // The table is checked: an escaped word without its entry.
        let mut bad = bytes.clone();
        let at = HEADER_LEN + 2 * 5;
        bad[at..at + 2].copy_from_slice(&ESCAPE.to_le_bytes());
        let crc = crc32fast::hash(&bad[HEADER_LEN..]);
        bad[40..44].copy_from_slice(&crc.to_le_bytes());
        let hcrc = crc32fast::hash(&bad[..60]);
        bad[60..64].copy_from_slice(&hcrc.to_le_bytes());
        assert!(matches!(
            LayerView::parse(&bad, true, n),
            Err(FormatError::Exceptions(_))
        ));
        // An entry moved to a board not escaped.
        let mut moved = bytes.clone();
        let e0 = HEADER_LEN + 2 * layer_size(n) as usize;
        moved[e0..e0 + 4].copy_from_slice(&5u32.to_le_bytes());
        let crc = crc32fast::hash(&moved[HEADER_LEN..]);
        moved[40..44].copy_from_slice(&crc.to_le_bytes());
        let hcrc = crc32fast::hash(&moved[..60]);
        moved[60..64].copy_from_slice(&hcrc.to_le_bytes());
        assert!(matches!(
            LayerView::parse(&moved, true, n),
            Err(FormatError::Exceptions(_))
        ));
    }

    #[test]
    fn damage_is_refused() {
        let l = layer(6, false);
        let good = encode(&l, false);
        assert!(LayerView::parse(&good, false, 6).is_ok());
        // A flipped bit anywhere: the header or the values.
        for i in 0..good.len() {
            let mut bad = good.clone();
            bad[i] ^= 0x10;
            assert!(
                LayerView::parse(&bad, false, 6).is_err(),
                "byte {i} flipped"
            );
        }
        // Truncated anywhere.
        for len in [0, 7, 40, HEADER_LEN, good.len() / 2, good.len() - 1] {
            let e = LayerView::parse(&good[..len], false, 6).unwrap_err();
            assert!(matches!(e, FormatError::Truncated { .. }), "{len}: {e}");
        }
        let mut long = good.clone();
        long.push(0);
        assert!(matches!(
            LayerView::parse(&long, false, 6),
            Err(FormatError::TrailingBytes { .. })
        ));
    }

    /// Without the payload checked, a damaged word is not seen, and a
    /// lookup there gives nonsense without a panic; the check sees it.
    #[test]
    fn header_only_leaves_the_payload_to_check_payload() {
        let l = layer(6, false);
        let mut bad = encode(&l, false);
        bad[HEADER_LEN + 2 * 9] = 0xFF;
        bad[HEADER_LEN + 2 * 9 + 1] = 0xFF;
        let view = LayerView::parse_header(&bad, false, 6).unwrap();
        let _ = view.values(9);
        assert_eq!(view.check_payload(), Err(FormatError::PayloadChecksum));
        assert_eq!(
            LayerView::parse(&bad, false, 6).unwrap_err(),
            FormatError::PayloadChecksum
        );
    }

    #[test]
    fn wrong_headers_are_refused() {
        let l = layer(5, true);
        let good = encode(&l, true);
        assert_eq!(
            LayerView::parse(&good, false, 5).unwrap_err(),
            FormatError::Rules {
                found: "no-trades,skip-origin",
                expected: "no-trades"
            }
        );
        assert_eq!(
            LayerView::parse(&good, true, 4).unwrap_err(),
            FormatError::Layer {
                found: 5,
                expected: 4
            }
        );
        let mut bad = good.clone();
        bad[0] = b'X';
        assert_eq!(
            LayerView::parse(&bad, true, 5).unwrap_err(),
            FormatError::Magic
        );
        // A header rewritten consistently (its checksum too) but wrong.
        let reseal = |mut b: Vec<u8>| {
            let crc = crc32fast::hash(&b[..60]);
            b[60..64].copy_from_slice(&crc.to_le_bytes());
            b
        };
        let mut v2 = good.clone();
        v2[8] = 2;
        assert_eq!(
            LayerView::parse(&reseal(v2), true, 5).unwrap_err(),
            FormatError::Version(2)
        );
        let mut count = good.clone();
        count[12] ^= 1;
        assert!(matches!(
            LayerView::parse(&reseal(count), true, 5).unwrap_err(),
            FormatError::Count { .. }
        ));
        let mut widths = good.clone();
        widths[21] = 9;
        assert!(matches!(
            LayerView::parse(&reseal(widths), true, 5).unwrap_err(),
            FormatError::Encoding(_)
        ));
        for e in [
            FormatError::Magic,
            FormatError::PayloadChecksum,
            FormatError::Truncated {
                len: 3,
                expected: 64,
            },
        ] {
            assert!(!e.to_string().contains('\n'));
        }
    }
}
