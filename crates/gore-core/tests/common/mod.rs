//! A naive reference model of Goré, written straight from `docs/RULES.md`
//! and nothing else. It is deliberately slow and literal: seeds are sown
//! one by one in a loop, actions are strings in the token notation, and
//! every rule is a plain `if`. The integration tests compare the library
//! against it.
//!
//! Holes are indexed along the sowing cycle: a1..a4 = 0..3, b1..b4 = 4..7,
//! and "forward" is `i -> (i + 1) % 8`.
//!
//! Project decisions that fill gaps of RULES.md (from the brief): after an
//! accept or a decline the player to move does not change; a pass and an
//! offer hand the turn to the other player; offers list their holes in
//! board order.

#![allow(dead_code)]

use std::collections::BTreeSet;

/// The names of the holes, in board (sowing) order.
pub const NAMES: [&str; 8] = ["a1", "a2", "a3", "a4", "b1", "b2", "b3", "b4"];

/// Every hole starts with 6 seeds in the standard game; there are 48 in
/// all (8N under `seeds=N`).
pub const TOTAL: u32 = 48;

/// The price of one hole in a trade.
pub const PRICE: u32 = 6;

/// The index of a hole name, or `None`.
pub fn hole_index(name: &str) -> Option<usize> {
    NAMES.iter().position(|n| *n == name)
}

/// The other player.
pub fn other(p: char) -> char {
    if p == 'A' {
        'B'
    } else {
        'A'
    }
}

/// 0 for A, 1 for B.
pub fn pidx(p: char) -> usize {
    if p == 'A' {
        0
    } else {
        1
    }
}

/// The rule options that matter to a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Flags {
    pub skip_origin: bool,
    pub no_trades: bool,
    pub cede_all: bool,
    /// Seeds per hole at the start (`seeds=N`, 6 by default).
    pub seeds: u32,
}

impl Default for Flags {
    fn default() -> Flags {
        Flags {
            skip_origin: false,
            no_trades: false,
            cede_all: false,
            seeds: 6,
        }
    }
}

impl Flags {
    pub fn of(rules: &gore_core::Rules) -> Flags {
        let v = rules.variant;
        Flags {
            skip_origin: v.skip_origin,
            no_trades: v.no_trades,
            cede_all: v.cede_all,
            seeds: v.seeds_per_hole() as u32,
        }
    }

    /// The seeds in the game: 8 per-hole counts.
    pub fn total(&self) -> u32 {
        8 * self.seeds
    }
}

/// A parsed action token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    Sow(usize),
    Offer(Vec<usize>),
    Accept,
    Decline,
    Pass,
}

/// Reads an action token as RULES.md writes it: a hole name, `offer:` and
/// 1–3 hole names in board order joined by commas, `accept`, `decline`,
/// `pass`. Nothing else.
pub fn parse_token(s: &str) -> Option<Tok> {
    match s {
        "accept" => return Some(Tok::Accept),
        "decline" => return Some(Tok::Decline),
        "pass" => return Some(Tok::Pass),
        _ => {}
    }
    if let Some(i) = hole_index(s) {
        return Some(Tok::Sow(i));
    }
    let list = s.strip_prefix("offer:")?;
    let mut holes = Vec::new();
    for part in list.split(',') {
        let i = hole_index(part)?;
        if let Some(&last) = holes.last() {
            if i <= last {
                return None;
            }
        }
        holes.push(i);
    }
    if holes.is_empty() || holes.len() > 3 {
        return None;
    }
    Some(Tok::Offer(holes))
}

/// Writes an offer token.
pub fn offer_token(holes: &[usize]) -> String {
    let names: Vec<&str> = holes.iter().map(|&i| NAMES[i]).collect();
    format!("offer:{}", names.join(","))
}

/// The reference position.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Model {
    pub seeds: [u32; 8],
    pub ctrl: [char; 8],
    pub cap: [u32; 2],
    pub to_move: char,
    /// The pending offer's holes in board order; empty when none.
    pub offer: Vec<usize>,
    pub skip_origin: bool,
    pub no_trades: bool,
    pub cede_all: bool,
    /// Seeds per hole at the start (`seeds=N`).
    pub seeds_per_hole: u32,
}

/// What one sowing did (for statistics in the tests).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SowReport {
    pub last: usize,
    pub taken: Vec<usize>,
    pub seeds_taken: u32,
}

impl Model {
    /// The start: N seeds everywhere (6 by default), A controls a1..a4,
    /// B controls b1..b4, A to move.
    pub fn start(flags: Flags) -> Model {
        Model {
            seeds: [flags.seeds; 8],
            ctrl: ['A', 'A', 'A', 'A', 'B', 'B', 'B', 'B'],
            cap: [0, 0],
            to_move: 'A',
            offer: Vec::new(),
            skip_origin: flags.skip_origin,
            no_trades: flags.no_trades,
            cede_all: flags.cede_all,
            seeds_per_hole: flags.seeds,
        }
    }

    pub fn flags(&self) -> Flags {
        Flags {
            skip_origin: self.skip_origin,
            no_trades: self.no_trades,
            cede_all: self.cede_all,
            seeds: self.seeds_per_hole,
        }
    }

    /// The holes `p` controls, in board order.
    pub fn controlled(&self, p: char) -> Vec<usize> {
        (0..8).filter(|&i| self.ctrl[i] == p).collect()
    }

    /// Every hole holds at most 2 seeds, or (RULES.md, "A player without a
    /// hole") a player controls no hole: the game is over, no action.
    pub fn is_ended(&self) -> bool {
        self.seeds.iter().all(|&s| s <= 2)
            || self.controlled('A').is_empty()
            || self.controlled('B').is_empty()
    }

    pub fn total(&self) -> u32 {
        self.seeds.iter().sum::<u32>() + self.cap[0] + self.cap[1]
    }

    /// Each player's final total: captured plus the seeds in the holes he
    /// controls.
    pub fn sweep_totals(&self) -> [u32; 2] {
        let mut t = self.cap;
        for i in 0..8 {
            t[pidx(self.ctrl[i])] += self.seeds[i];
        }
        t
    }

    /// Writes GPN: `a1,..,a4/b1,..,b4 CCCC/CCCC capA-capB P offer`.
    pub fn gpn(&self) -> String {
        let s: Vec<String> = self.seeds.iter().map(|n| n.to_string()).collect();
        let c: String = self.ctrl.iter().collect();
        let offer = if self.offer.is_empty() {
            "-".to_string()
        } else {
            let names: Vec<&str> = self.offer.iter().map(|&i| NAMES[i]).collect();
            names.join("+")
        };
        format!(
            "{}/{} {}/{} {}-{} {} {}",
            s[..4].join(","),
            s[4..].join(","),
            &c[..4],
            &c[4..],
            self.cap[0],
            self.cap[1],
            self.to_move,
            offer
        )
    }

    /// Reads GPN (syntax), then checks validity.
    pub fn parse_gpn(text: &str, flags: Flags) -> Result<Model, String> {
        let m = Model::parse_gpn_syntax(text, flags)?;
        m.validate()?;
        Ok(m)
    }

    /// Reads GPN syntax only.
    pub fn parse_gpn_syntax(text: &str, flags: Flags) -> Result<Model, String> {
        fn num(s: &str) -> Result<u32, String> {
            if s.is_empty() || s.len() > 2 || !s.bytes().all(|b| b.is_ascii_digit()) {
                return Err(format!("bad number {s:?}"));
            }
            s.parse::<u32>().map_err(|e| e.to_string())
        }
        let fields: Vec<&str> = text.split(' ').collect();
        if fields.len() != 5 {
            return Err("not five fields".into());
        }
        // Seeds.
        let rows: Vec<&str> = fields[0].split('/').collect();
        if rows.len() != 2 {
            return Err("seeds: not two rows".into());
        }
        let mut seeds = [0u32; 8];
        for (r, row) in rows.iter().enumerate() {
            let parts: Vec<&str> = row.split(',').collect();
            if parts.len() != 4 {
                return Err("seeds: not four holes".into());
            }
            for (k, p) in parts.iter().enumerate() {
                seeds[4 * r + k] = num(p)?;
            }
        }
        // Controllers.
        let crow: Vec<&str> = fields[1].split('/').collect();
        if crow.len() != 2 {
            return Err("controllers: not two rows".into());
        }
        let mut ctrl = ['A'; 8];
        for (r, row) in crow.iter().enumerate() {
            let cs: Vec<char> = row.chars().collect();
            if cs.len() != 4 {
                return Err("controllers: not four letters".into());
            }
            for (k, &c) in cs.iter().enumerate() {
                if c != 'A' && c != 'B' {
                    return Err("controllers: not A or B".into());
                }
                ctrl[4 * r + k] = c;
            }
        }
        // Captured.
        let caps: Vec<&str> = fields[2].split('-').collect();
        if caps.len() != 2 {
            return Err("captured: not two numbers".into());
        }
        let cap = [num(caps[0])?, num(caps[1])?];
        // To move.
        let to_move = match fields[3] {
            "A" => 'A',
            "B" => 'B',
            _ => return Err("to move: not A or B".into()),
        };
        // Offer.
        let mut offer = Vec::new();
        if fields[4] != "-" {
            for part in fields[4].split('+') {
                let i = hole_index(part).ok_or("offer: not a hole")?;
                if let Some(&last) = offer.last() {
                    if i <= last {
                        return Err("offer: not in board order".into());
                    }
                }
                offer.push(i);
            }
        }
        Ok(Model {
            seeds,
            ctrl,
            cap,
            to_move,
            offer,
            skip_origin: flags.skip_origin,
            no_trades: flags.no_trades,
            cede_all: flags.cede_all,
            seeds_per_hole: flags.seeds,
        })
    }

    /// RULES.md: "A position is valid only if its holes and both captured
    /// totals add up to 48 (8N under `seeds=N`), each player controls at
    /// least one hole (unless cede-all), and a pending offer is one that
    /// could legally have been made."
    pub fn validate(&self) -> Result<(), String> {
        if self.total() != 8 * self.seeds_per_hole {
            return Err(format!("{} seeds", self.total()));
        }
        if !self.cede_all {
            for p in ['A', 'B'] {
                if self.controlled(p).is_empty() {
                    return Err(format!("{p} controls no hole"));
                }
            }
        }
        if !self.offer.is_empty() {
            // The offerer is the player not to move; the same board with
            // him to move and no offer pending must list this offer.
            let mut before = self.clone();
            before.offer.clear();
            before.to_move = other(self.to_move);
            let tok = offer_token(&self.offer);
            if !before.legal().contains(&tok) {
                return Err(format!("offer {tok} could not have been made"));
            }
        }
        Ok(())
    }

    /// The legal actions, sorted (order does not matter).
    pub fn legal(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.is_ended() {
            return out;
        }
        if !self.offer.is_empty() {
            out.push("accept".to_string());
            out.push("decline".to_string());
            out.sort();
            return out;
        }
        let me = self.to_move;
        let mine = self.controlled(me);
        let mut any_seeds = false;
        for &h in &mine {
            if self.seeds[h] > 0 {
                out.push(NAMES[h].to_string());
                any_seeds = true;
            }
        }
        if !any_seeds {
            out.push("pass".to_string());
        }
        if !self.no_trades {
            let opp_cap = self.cap[pidx(other(me))];
            // Every subset of my holes, by brute force over the 256 masks.
            for mask in 1u32..256 {
                let holes: Vec<usize> = (0..8).filter(|i| mask & (1 << i) != 0).collect();
                if holes.len() > 3 {
                    continue;
                }
                if !holes.iter().all(|&h| self.ctrl[h] == me) {
                    continue;
                }
                if !self.cede_all && holes.len() >= mine.len() {
                    continue; // he must keep at least one hole
                }
                if opp_cap < PRICE * holes.len() as u32 {
                    continue; // the opponent cannot pay
                }
                out.push(offer_token(&holes));
            }
        }
        out.sort();
        out
    }

    /// Plays an action token if it is legal. Returns the sowing report for
    /// a sowing.
    pub fn apply(&mut self, tok: &str) -> Result<Option<SowReport>, String> {
        if !self.legal().iter().any(|t| t == tok) {
            return Err(format!("{tok} is not legal in {}", self.gpn()));
        }
        let me = self.to_move;
        match parse_token(tok).expect("legal tokens parse") {
            Tok::Sow(h) => {
                let r = self.sow(h);
                self.to_move = other(me);
                return Ok(Some(r));
            }
            Tok::Offer(holes) => {
                self.offer = holes;
                self.to_move = other(me);
            }
            Tok::Accept => {
                let holes = std::mem::take(&mut self.offer);
                for h in holes {
                    self.ctrl[h] = me;
                    self.seeds[h] += PRICE;
                    self.cap[pidx(me)] -= PRICE;
                }
                // The same player goes on to take his normal turn.
            }
            Tok::Decline => {
                self.offer.clear();
                // The same player goes on to take his normal turn.
            }
            Tok::Pass => {
                self.to_move = other(me);
            }
        }
        Ok(None)
    }

    /// The seeds after sowing from `origin`, before any capture, and the
    /// hole the last seed fell in.
    fn distribute(&self, origin: usize) -> ([u32; 8], usize) {
        let mut seeds = self.seeds;
        let mut hand = seeds[origin];
        seeds[origin] = 0;
        let mut at = origin;
        while hand > 0 {
            at = (at + 1) % 8;
            if self.skip_origin && at == origin {
                continue;
            }
            seeds[at] += 1;
            hand -= 1;
        }
        (seeds, at)
    }

    /// The board after sowing from `origin`, before the capture.
    pub fn sown_board(&self, origin: usize) -> [u32; 8] {
        self.distribute(origin).0
    }

    /// Sows from `origin` seed by seed and makes the captures, for the
    /// player to move (the turn is not changed here).
    fn sow(&mut self, origin: usize) -> SowReport {
        let me = self.to_move;
        let (seeds, last) = self.distribute(origin);
        self.seeds = seeds;
        let mut report = SowReport {
            last,
            ..SowReport::default()
        };
        let two_or_four = |n: u32| n == 2 || n == 4;
        if self.ctrl[last] != me && two_or_four(self.seeds[last]) {
            let mut taken = [false; 8];
            taken[last] = true;
            let mut order = vec![last];
            // Backward.
            let mut i = (last + 7) % 8;
            while !taken[i] && two_or_four(self.seeds[i]) {
                taken[i] = true;
                order.push(i);
                i = (i + 7) % 8;
            }
            // Forward.
            let mut i = (last + 1) % 8;
            while !taken[i] && two_or_four(self.seeds[i]) {
                taken[i] = true;
                order.push(i);
                i = (i + 1) % 8;
            }
            for &h in &order {
                report.seeds_taken += self.seeds[h];
                self.cap[pidx(me)] += self.seeds[h];
                self.seeds[h] = 0;
            }
            order.sort();
            report.taken = order;
        }
        report
    }

    /// The number of legal action sequences of length `depth`.
    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let legal = self.legal();
        if depth == 1 {
            return legal.len() as u64;
        }
        let mut n = 0;
        for tok in legal {
            let mut next = self.clone();
            next.apply(&tok).expect("listed actions are legal");
            n += next.perft(depth - 1);
        }
        n
    }
}

/// A random valid position, for starting games away from the opening:
/// random seeds, random controllers, random captured totals, and sometimes
/// a pending offer.
pub fn random_model<R: rand::Rng>(rng: &mut R, flags: Flags) -> Model {
    loop {
        // Distribute the game's seeds over 10 bins (8 holes + 2 captured totals),
        // with a random weight per bin so that some bins are large.
        let mut bins = [0u32; 10];
        let weights: Vec<u32> = (0..10).map(|_| rng.gen_range(0..5u32)).collect();
        let wsum: u32 = weights.iter().sum();
        if wsum == 0 {
            continue;
        }
        for _ in 0..flags.total() {
            let mut x = rng.gen_range(0..wsum);
            let mut k = 0;
            while x >= weights[k] {
                x -= weights[k];
                k += 1;
            }
            bins[k] += 1;
        }
        let mut seeds = [0u32; 8];
        seeds.copy_from_slice(&bins[..8]);
        let mut ctrl = ['A', 'A', 'A', 'A', 'B', 'B', 'B', 'B'];
        if rng.gen_bool(0.6) {
            for c in ctrl.iter_mut() {
                *c = if rng.gen_bool(0.5) { 'A' } else { 'B' };
            }
        }
        let mut m = Model {
            seeds,
            ctrl,
            cap: [bins[8], bins[9]],
            to_move: if rng.gen_bool(0.5) { 'A' } else { 'B' },
            offer: Vec::new(),
            skip_origin: flags.skip_origin,
            no_trades: flags.no_trades,
            cede_all: flags.cede_all,
            seeds_per_hole: flags.seeds,
        };
        if m.validate().is_err() || m.is_ended() {
            continue;
        }
        if rng.gen_bool(0.5) {
            let offers: Vec<String> = m
                .legal()
                .into_iter()
                .filter(|t| t.starts_with("offer:"))
                .collect();
            if !offers.is_empty() {
                let tok = offers[rng.gen_range(0..offers.len())].clone();
                m.apply(&tok).unwrap();
            }
        }
        return m;
    }
}

/// Chooses a random legal action, biased towards trades: with an offer
/// pending, accept or decline 50/50; otherwise an offer with probability
/// `p_offer` when one is legal.
pub fn pick<R: rand::Rng>(rng: &mut R, legal: &[String], p_offer: f64) -> String {
    assert!(!legal.is_empty());
    let offers: Vec<&String> = legal.iter().filter(|t| t.starts_with("offer:")).collect();
    let others: Vec<&String> = legal.iter().filter(|t| !t.starts_with("offer:")).collect();
    if !offers.is_empty() && (others.is_empty() || rng.gen_bool(p_offer)) {
        return offers[rng.gen_range(0..offers.len())].clone();
    }
    others[rng.gen_range(0..others.len())].clone()
}

/// The distinct option combinations of the standard 6 seeds per hole
/// (without a ply cap).
pub fn all_flag_sets() -> Vec<Flags> {
    let mut v = Vec::new();
    for bits in 0..8u8 {
        v.push(Flags {
            skip_origin: bits & 1 != 0,
            no_trades: bits & 2 != 0,
            cede_all: bits & 4 != 0,
            seeds: 6,
        });
    }
    v
}

/// Every option combination with every `seeds=N`, 3 to 8.
pub fn all_variants() -> Vec<Flags> {
    let mut v = Vec::new();
    for seeds in 3..=8 {
        for f in all_flag_sets() {
            v.push(Flags { seeds, ..f });
        }
    }
    v
}

/// The `Variant` of a flag set, built from its fields (not parsed).
pub fn variant_of(f: Flags) -> gore_core::Variant {
    let mut v = gore_core::Variant::STANDARD
        .with_seeds_per_hole(f.seeds as u8)
        .expect("3 to 8 seeds per hole");
    v.skip_origin = f.skip_origin;
    v.no_trades = f.no_trades;
    v.cede_all = f.cede_all;
    v
}

/// `Rules` for a flag set (no ply cap).
pub fn rules_of(f: Flags) -> gore_core::Rules {
    gore_core::Rules::new(variant_of(f))
}

/// Sorted action strings of the library's legal list.
pub fn lib_legal(p: &gore_core::Position) -> Vec<String> {
    let mut v: Vec<String> = p.legal_actions().iter().map(|a| a.to_string()).collect();
    v.sort();
    v
}

/// Sorted, deduplicated (to detect duplicates, compare lengths).
pub fn as_set(v: &[String]) -> BTreeSet<String> {
    v.iter().cloned().collect()
}
