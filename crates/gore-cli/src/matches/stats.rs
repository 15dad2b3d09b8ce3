//! The statistics of `gore match`: the score, a logistic Elo difference with
//! its 95% interval, and a sequential probability ratio test (SPRT).
//!
//! - Elo: `elo(s) = -400·log10(1/s − 1)` for the score `s` (wins + half the
//!   draws, over the games), the logistic model used by cutechess.
//! - Interval: the per-game score variance `σ² = Σ p·(x − s)²` over the three
//!   results (1, ½, 0) gives the standard error `σ/√n`; the score bounds
//!   `s ± 1.96·σ/√n` map through `elo` and half their distance is the margin
//!   (as cutechess computes it).
//! - SPRT: the trinomial GSPRT approximation (Van den Bergh; cutechess,
//!   fastchess, OpenBench): with `s0`, `s1` the scores of `elo0`, `elo1`,
//!   `LLR = n·(s1 − s0)·(2s − s0 − s1) / (2σ²)`, compared with the bounds
//!   `ln(β/(1−α))` and `ln((1−β)/α)`. The approximation is close when the
//!   observed score lies near `s0` and `s1` (the case an SPRT is for:
//!   engines of similar strength); in a lopsided match it overstates the
//!   evidence and stops sooner than the exact test would, always towards
//!   the hypothesis the score is nearer.

/// 1.96: the two-sided 95% quantile of the normal distribution.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Wins, draws and losses from one player's point of view.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

impl Tally {
    /// Games counted.
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Adds one game: 1 a win, ½ a draw, 0 a loss (by its sign).
    pub fn add(&mut self, result: std::cmp::Ordering) {
        match result {
            std::cmp::Ordering::Greater => self.wins += 1,
            std::cmp::Ordering::Equal => self.draws += 1,
            std::cmp::Ordering::Less => self.losses += 1,
        }
    }

    /// The mean score per game, 0 to 1 (0.5 when no game was played).
    pub fn score(&self) -> f64 {
        score_of(self.wins as f64, self.draws as f64, self.losses as f64)
    }

    /// The variance of one game's score (1, ½ or 0) around the mean.
    pub fn variance(&self) -> f64 {
        variance_of(self.wins as f64, self.draws as f64, self.losses as f64)
    }

    /// The logistic Elo difference of the score (±infinity at 100% / 0%).
    pub fn elo(&self) -> f64 {
        elo_of_score(self.score())
    }

    /// Half the width of the 95% Elo interval (infinite when a bound of the
    /// score interval reaches 0% or 100%).
    pub fn elo_margin(&self) -> f64 {
        let n = self.games() as f64;
        if n == 0.0 {
            return f64::INFINITY;
        }
        let s = self.score();
        if s <= 0.0 || s >= 1.0 {
            return f64::INFINITY;
        }
        let se = (self.variance() / n).sqrt();
        let lo = elo_of_score(s - Z95 * se);
        let hi = elo_of_score(s + Z95 * se);
        (hi - lo) / 2.0
    }
}

fn score_of(w: f64, d: f64, l: f64) -> f64 {
    let n = w + d + l;
    if n == 0.0 {
        0.5
    } else {
        (w + d / 2.0) / n
    }
}

fn variance_of(w: f64, d: f64, l: f64) -> f64 {
    let n = w + d + l;
    if n == 0.0 {
        return 0.0;
    }
    let s = score_of(w, d, l);
    (w * (1.0 - s).powi(2) + d * (0.5 - s).powi(2) + l * s.powi(2)) / n
}

/// The logistic Elo difference that gives this expected score.
pub fn elo_of_score(s: f64) -> f64 {
    if s <= 0.0 {
        f64::NEG_INFINITY
    } else if s >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / s - 1.0).log10()
    }
}

/// The expected score of a logistic Elo difference.
pub fn score_of_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// An SPRT's hypotheses and error rates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

/// What an SPRT concludes so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// `elo0` holds: the LLR fell to the lower bound.
    H0,
    /// `elo1` holds: the LLR rose to the upper bound.
    H1,
    /// Neither bound reached.
    Continue,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::H0 => "H0",
            Verdict::H1 => "H1",
            Verdict::Continue => "continue",
        }
    }
}

impl Sprt {
    /// Reads `elo0,elo1[,alpha,beta]` (alpha and beta default to 0.05).
    pub fn parse(s: &str) -> Result<Sprt, String> {
        let parts: Vec<&str> = s.split(',').map(str::trim).collect();
        if parts.len() != 2 && parts.len() != 4 {
            return Err(format!(
                "`{s}`: expected elo0,elo1 or elo0,elo1,alpha,beta (e.g. 0,10 or 0,10,0.05,0.05)"
            ));
        }
        let num = |t: &str, what: &str| -> Result<f64, String> {
            t.parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| format!("`{s}`: {what} `{t}` is not a number"))
        };
        let elo0 = num(parts[0], "elo0")?;
        let elo1 = num(parts[1], "elo1")?;
        let (alpha, beta) = if parts.len() == 4 {
            (num(parts[2], "alpha")?, num(parts[3], "beta")?)
        } else {
            (0.05, 0.05)
        };
        if elo1 <= elo0 {
            return Err(format!("`{s}`: elo1 must be greater than elo0"));
        }
        for (name, p) in [("alpha", alpha), ("beta", beta)] {
            if !(p > 0.0 && p < 0.5) {
                return Err(format!("`{s}`: {name} must lie strictly between 0 and 0.5"));
            }
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }

    /// The lower bound of the LLR: below it, H0 is accepted.
    pub fn lower(&self) -> f64 {
        (self.beta / (1.0 - self.alpha)).ln()
    }

    /// The upper bound of the LLR: above it, H1 is accepted.
    pub fn upper(&self) -> f64 {
        ((1.0 - self.beta) / self.alpha).ln()
    }

    /// The log-likelihood ratio of `elo1` against `elo0` for these results.
    ///
    /// While every game has had the same result the variance is zero and
    /// the formula undefined; the counts are then regularised with half a
    /// game of each result (as if one win, one draw and one loss had been
    /// played at half weight), so that a short run of wins moves the LLR
    /// gradually instead of at once.
    pub fn llr(&self, t: &Tally) -> f64 {
        if t.games() == 0 {
            return 0.0;
        }
        let (mut w, mut d, mut l) = (t.wins as f64, t.draws as f64, t.losses as f64);
        if t.variance() == 0.0 {
            w += 0.5;
            d += 0.5;
            l += 0.5;
        }
        let n = w + d + l;
        let s = score_of(w, d, l);
        let var = variance_of(w, d, l);
        let s0 = score_of_elo(self.elo0);
        let s1 = score_of_elo(self.elo1);
        n * (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * var)
    }

    /// Where the LLR stands against the bounds.
    pub fn verdict(&self, llr: f64) -> Verdict {
        if llr >= self.upper() {
            Verdict::H1
        } else if llr <= self.lower() {
            Verdict::H0
        } else {
            Verdict::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally(wins: u64, draws: u64, losses: u64) -> Tally {
        Tally {
            wins,
            draws,
            losses,
        }
    }

    fn close(a: f64, b: f64, eps: f64) -> bool {
        (a - b).abs() < eps
    }

    #[test]
    fn elo_of_known_scores() {
        // 75%: -400·log10(1/3) = 400·0.477121 = 190.8485.
        assert!(close(elo_of_score(0.75), 190.8485, 1e-3));
        assert!(close(elo_of_score(0.25), -190.8485, 1e-3));
        assert_eq!(elo_of_score(0.5), 0.0);
        // 10/11 ≈ 90.9%: 1/s - 1 = 0.1, so exactly +400.
        assert!(close(elo_of_score(10.0 / 11.0), 400.0, 1e-9));
        assert_eq!(elo_of_score(1.0), f64::INFINITY);
        assert_eq!(elo_of_score(0.0), f64::NEG_INFINITY);
        assert!(close(score_of_elo(190.8485), 0.75, 1e-6));
    }

    #[test]
    fn score_variance_and_margin() {
        // 150 wins, 10 draws, 40 losses: s = 155/200 = 0.775,
        // σ² = (150·0.225² + 10·0.275² + 40·0.775²)/200 = 0.161875,
        // se = √(0.161875/200) = 0.028450; bounds 0.719240 and 0.830760
        // give +163.42 and +276.39 Elo: margin 56.49.
        let t = tally(150, 10, 40);
        assert_eq!(t.games(), 200);
        assert!(close(t.score(), 0.775, 1e-12));
        assert!(close(t.variance(), 0.161875, 1e-12));
        assert!(close(t.elo(), 214.848, 1e-3));
        assert!(close(t.elo_margin(), 56.487, 1e-3));
        // Every game drawn: no spread at all.
        let t = tally(0, 10, 0);
        assert_eq!(t.elo(), 0.0);
        assert_eq!(t.elo_margin(), 0.0);
        // Every game won: infinite.
        let t = tally(20, 0, 0);
        assert_eq!(t.elo(), f64::INFINITY);
        assert_eq!(t.elo_margin(), f64::INFINITY);
    }

    #[test]
    fn sprt_bounds_and_llr() {
        let sprt = Sprt::parse("0,10").unwrap();
        assert_eq!((sprt.alpha, sprt.beta), (0.05, 0.05));
        // ln(0.05/0.95) = -2.944439, ln(0.95/0.05) = +2.944439.
        assert!(close(sprt.lower(), -2.944439, 1e-6));
        assert!(close(sprt.upper(), 2.944439, 1e-6));
        // 60-20-20: s = 0.7, σ² = (60·0.09 + 20·0.04 + 20·0.49)/100 = 0.16;
        // s0 = 0.5, s1 = 1/(1+10^(-1/40)) = 0.5143872;
        // LLR = 100·0.0143872·(1.4 − 1.0143872)/0.32 = 1.73371.
        let t = tally(60, 20, 20);
        assert!(close(sprt.llr(&t), 1.73371, 1e-4));
        assert_eq!(sprt.verdict(sprt.llr(&t)), Verdict::Continue);
        // 45-10-45: s = 0.5, σ² = 0.225; LLR = 100·0.0143872·(−0.0143872)/0.45
        // = −0.0459980.
        let t = tally(45, 10, 45);
        assert!(close(sprt.llr(&t), -0.045998, 1e-5));
        // Larger samples decide.
        assert_eq!(sprt.verdict(sprt.llr(&tally(600, 200, 200))), Verdict::H1);
        assert_eq!(sprt.verdict(sprt.llr(&tally(400, 100, 500))), Verdict::H0);
        assert_eq!(sprt.llr(&Tally::default()), 0.0);
    }

    #[test]
    fn sprt_of_identical_results_is_regularised() {
        // One win: counts 1.5-0.5-0.5, n = 2.5, s = 1.75/2.5 = 0.7,
        // σ² = (1.5·0.09 + 0.5·0.04 + 0.5·0.49)/2.5 = 0.16;
        // LLR = 2.5·0.0143872·0.3856128/0.32 = 0.0433428.
        let sprt = Sprt::parse("0,10").unwrap();
        let llr = sprt.llr(&tally(1, 0, 0));
        assert!(close(llr, 0.0433428, 1e-6));
        // A long run of wins ends in H1, of losses in H0, and stays finite.
        let llr = sprt.llr(&tally(200, 0, 0));
        assert!(llr.is_finite() && sprt.verdict(llr) == Verdict::H1);
        let llr = sprt.llr(&tally(0, 0, 200));
        assert!(llr.is_finite() && sprt.verdict(llr) == Verdict::H0);
    }

    #[test]
    fn sprt_parse_errors() {
        assert!(Sprt::parse("0,10,0.1,0.2").is_ok());
        assert!(Sprt::parse("10,0").is_err());
        assert!(Sprt::parse("0").is_err());
        assert!(Sprt::parse("0,x").is_err());
        assert!(Sprt::parse("0,10,0.7,0.05").is_err());
        assert!(Sprt::parse("0,10,0.05").is_err());
    }
}
