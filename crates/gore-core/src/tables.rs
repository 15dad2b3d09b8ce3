//! Tables computed at compile time: sowing increments and Zobrist keys.
//!
//! They are constants, not global state: nothing here changes at run time.

/// The most seeds a game holds (8 holes of `seeds=8`), so the most any
/// hole or captured total can hold.
pub(crate) const MAX_TOTAL: usize = 8 * crate::rules::MAX_SEEDS_PER_HOLE as usize;
/// Table rows per seed count: 0 to [`MAX_TOTAL`].
const N: usize = MAX_TOTAL + 1;

/// A hole's seeds as a byte of a `u64`: byte `i` is hole `i`.
pub(crate) const LO: u64 = 0x0101_0101_0101_0101;
pub(crate) const HI: u64 = 0x8080_8080_8080_8080;

/// What sowing `n` seeds from `origin` adds to each hole (the origin's own
/// seeds are removed separately), and where the last seed lands.
pub(crate) struct SowTable {
    pub add: [[[u64; N]; 8]; 2],
    pub last: [[[u8; N]; 8]; 2],
}

const fn build_sow() -> SowTable {
    let mut t = SowTable {
        add: [[[0; N]; 8]; 2],
        last: [[[0; N]; 8]; 2],
    };
    let mut skip = 0;
    while skip < 2 {
        let mut origin = 0;
        while origin < 8 {
            let mut n = 1;
            while n < N {
                // Seed k (1-based) goes k steps forward, stepping over the
                // origin when skipping.
                let mut add = 0u64;
                let mut pos = origin;
                let mut k = 0;
                while k < n {
                    pos = (pos + 1) & 7;
                    if skip == 1 && pos == origin {
                        pos = (pos + 1) & 7;
                    }
                    add += 1u64 << (8 * pos);
                    k += 1;
                }
                t.add[skip][origin][n] = add;
                t.last[skip][origin][n] = pos as u8;
                n += 1;
            }
            origin += 1;
        }
        skip += 1;
    }
    t
}

pub(crate) static SOW: SowTable = build_sow();

/// A bit mask of holes expanded to a byte mask: bit `i` → `0xff` at byte `i`.
pub(crate) const fn build_expand() -> [u64; 256] {
    let mut t = [0u64; 256];
    let mut m = 0;
    while m < 256 {
        let mut i = 0;
        while i < 8 {
            if m & (1 << i) != 0 {
                t[m] |= 0xff << (8 * i);
            }
            i += 1;
        }
        m += 1;
    }
    t
}

pub(crate) static EXPAND: [u64; 256] = build_expand();

/// Gathers the high bit of each byte into an 8-bit mask (bit `i` = byte `i`).
#[inline(always)]
pub(crate) const fn gather(high_bits: u64) -> u8 {
    (((high_bits >> 7) & LO).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u8
}

/// Holes holding at least one seed (every byte ≤ 64 < 128, so no carry crosses bytes).
#[inline(always)]
pub(crate) const fn nonempty(holes: u64) -> u8 {
    gather(holes.wrapping_add(0x7f * LO) & HI)
}

/// Holes holding exactly `c` seeds.
#[inline(always)]
pub(crate) const fn equal(holes: u64, c: u8) -> u8 {
    !nonempty(holes ^ (c as u64 * LO))
}

/// Sum of all bytes (the total is ≤ 64, so it fits the top byte).
#[inline(always)]
pub(crate) const fn byte_sum(x: u64) -> u32 {
    (x.wrapping_mul(LO) >> 56) as u32
}

/// Whether every byte is ≤ 2: the end of the game.
#[inline(always)]
pub(crate) const fn all_at_most_two(holes: u64) -> bool {
    holes.wrapping_add(0x7d * LO) & HI == 0
}

/// Zobrist keys for the position hash.
pub(crate) struct Zobrist {
    pub seeds: [[u64; N]; 8],
    pub b_controls: [u64; 8],
    pub captured: [[u64; N]; 2],
    pub offer: [u64; 8],
    pub b_to_move: u64,
}

const fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

const fn build_zobrist() -> Zobrist {
    let mut s = 0x6f72_e947_6f72_e947u64;
    let mut z = Zobrist {
        seeds: [[0; N]; 8],
        b_controls: [0; 8],
        captured: [[0; N]; 2],
        offer: [0; 8],
        b_to_move: 0,
    };
    let mut i = 0;
    while i < 8 {
        let mut c = 0;
        while c < 49 {
            z.seeds[i][c] = splitmix(&mut s);
            c += 1;
        }
        z.b_controls[i] = splitmix(&mut s);
        z.offer[i] = splitmix(&mut s);
        i += 1;
    }
    let mut p = 0;
    while p < 2 {
        let mut c = 0;
        while c < 49 {
            z.captured[p][c] = splitmix(&mut s);
            c += 1;
        }
        p += 1;
    }
    z.b_to_move = splitmix(&mut s);
    // Counts above 48 (from `seeds=7` up) drawn last, so that the keys of
    // the standard game stay what they were.
    let mut c = 49;
    while c < N {
        let mut i = 0;
        while i < 8 {
            z.seeds[i][c] = splitmix(&mut s);
            i += 1;
        }
        z.captured[0][c] = splitmix(&mut s);
        z.captured[1][c] = splitmix(&mut s);
        c += 1;
    }
    z
}

pub(crate) static ZOBRIST: Zobrist = build_zobrist();

/// `BINOM[n][k]` for n ≤ 8, k ≤ 3: counts offers without listing them.
pub(crate) const BINOM: [[u8; 4]; 9] = {
    let mut t = [[0u8; 4]; 9];
    let mut n = 0;
    while n <= 8 {
        t[n][0] = 1;
        let mut k = 1;
        while k < 4 {
            t[n][k] = if n == 0 {
                0
            } else {
                t[n - 1][k - 1] + t[n - 1][k]
            };
            k += 1;
        }
        n += 1;
    }
    t
};
