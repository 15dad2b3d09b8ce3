//! Display names: what a player is called on the board, in lists and in
//! records. Pure: no storage, no clock (the caller gives the randomness of
//! a generated name).
//!
//! A name is 3 to 20 letters (of any script), digits, `-` and `_`, in one
//! script (a Latin name with one Cyrillic `а` in it is refused: that is how
//! look-alikes are made), beginning and ending with a letter or digit. It is
//! kept in Unicode NFC. Refused too: the names of the AI and of the site's
//! roles (`gore-ai`, `admin`, `root`, …), names that look like them
//! (compared by their UTS #39 skeleton, so `G0RE-AI` and `gоre-ai` with a
//! Cyrillic `о` are the same, and then with digits read as letters and
//! accents dropped, so `G0re-A1` and `admín` are too), and a short list of insults in the app's four languages,
//! looked for inside the skeleton. What a list cannot catch, a player's
//! report can (issue 13, chat).
//!
//! ```
//! use gore_domain::names::{Name, NameError};
//! assert_eq!(Name::parse(" Ayla-4821 ").unwrap().as_str(), "Ayla-4821");
//! assert_eq!(Name::parse("Kóffi").unwrap().as_str(), "Kóffi");
//! assert!(matches!(Name::parse("ab"), Err(NameError::Length { .. })));
//! assert!(matches!(Name::parse("gore-AI"), Err(NameError::Reserved)));
//! ```

use std::fmt;

use rand::Rng;
use unicode_normalization::UnicodeNormalization;
use unicode_security::MixedScript;

/// The fewest characters of a name.
pub const MIN_CHARS: usize = 3;
/// The most characters of a name.
pub const MAX_CHARS: usize = 20;

/// A display name that passed every check ([`Name::parse`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Name(String);

/// Why a name is refused: each names its rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// Too short or too long.
    #[error("a name has {MIN_CHARS} to {MAX_CHARS} characters, not {found}")]
    Length {
        /// Its characters.
        found: usize,
    },
    /// A character other than a letter, a digit, `-` or `_`.
    #[error("a name has letters, digits, - and _ only, not {0:?}")]
    Character(char),
    /// Begins or ends with `-` or `_`.
    #[error("a name begins and ends with a letter or a digit")]
    Edge,
    /// Letters of several scripts (a look-alike of another name).
    #[error("a name is written in one script (letters of several look like other names)")]
    MixedScript,
    /// The AI's or a role's name, or one that looks like it.
    #[error("this name is the computer's or the site's, or looks like it: choose another")]
    Reserved,
    /// An insult.
    #[error("this name is not allowed: choose another")]
    Offensive,
}

impl NameError {
    /// The refusal as the API says it: this sentence, and a reason a page
    /// says in its own words (`name_length` with `min`, `max`, `found`…).
    pub fn said(&self) -> super::Said {
        let said = |reason| super::Said::new(reason, self.to_string());
        match self {
            NameError::Length { found } => said("name_length")
                .with("min", MIN_CHARS)
                .with("max", MAX_CHARS)
                .with("found", *found),
            NameError::Character(c) => said("name_character").with("char", c.to_string()),
            NameError::Edge => said("name_edge"),
            NameError::MixedScript => said("name_mixed_script"),
            NameError::Reserved => said("name_reserved"),
            NameError::Offensive => said("name_offensive"),
        }
    }
}

/// The names nobody may take (compared by skeleton, without `-` and `_`):
/// the AI's, as the records name it, and the site's roles.
const RESERVED: &[&str] = &[
    "goreai",
    "gore",
    "ai",
    "computer",
    "ordinateur",
    "ordenador",
    "ordenagailua",
    "admin",
    "administrator",
    "moderator",
    "mod",
    "system",
    "server",
    "anonymous",
    "perfect",
    "player",
    "playera",
    "playerb",
    "root",
    "superuser",
    "sysop",
    "webmaster",
];

/// Insults looked for inside a name's skeleton (lowercase ASCII; the
/// skeleton maps look-alikes such as `0` or a Cyrillic `о` to them first).
/// Short on purpose: a floor, not a filter that refuses innocent names.
const OFFENSIVE: &[&str] = &[
    "fuck",
    "shit",
    "cunt",
    "nigger",
    "nigga",
    "faggot",
    "whore",
    "bitch",
    "rape",
    "nazi",
    "hitler",
    "puta",
    "puto",
    "mierda",
    "cabron",
    "maricon",
    "gilipollas",
    "coño",
    "pute",
    "merde",
    "connard",
    "salope",
    "encule",
    "negre",
    "pede",
    "txerri",
    "kabroi",
    "putakume",
];

/// Given names for generated names, from the game's country and elsewhere.
const GIVEN: &[&str] = &[
    "Ayla", "Awa", "Koffi", "Aya", "Yao", "Adjoua", "Kouassi", "Amani", "Ama", "Kwame", "Fatou",
    "Moussa", "Aminata", "Ibrahim", "Mariam", "Seydou", "Nadia", "Omar", "Lucia", "Mateo", "Irati",
    "Unai", "Ane", "Jon", "Chloé", "Louis", "Inès", "Hugo", "Mei", "Kenji", "Priya", "Arjun",
    "Sofia", "Lars", "Olga", "Yusuf", "Leila", "Tomás", "Nia", "Zoé",
];

/// A name's skeleton for comparisons: UTS #39's (look-alikes made equal),
/// lowercased, without `-` and `_`. A capital `I` looks like an `l`, so
/// `AyIa` and `Ayla` share theirs.
pub fn skeleton(s: &str) -> String {
    unicode_security::skeleton(s)
        .flat_map(char::to_lowercase)
        .filter(|c| *c != '-' && *c != '_')
        .collect()
}

/// The two keys two names look alike by: the [`skeleton`] as written, and
/// the skeleton of the name in lowercase (so that `GORE-AI` is `gore-ai`,
/// though a capital `I` alone would look like an `l`).
pub fn keys(s: &str) -> [String; 2] {
    [skeleton(s), skeleton(&s.to_lowercase())]
}

/// A looser form for the insults: the [`keys`] with the digits people write
/// for letters read as those letters, and `l` as `i` (`sh1t`).
fn loose(s: &str) -> Vec<String> {
    keys(s)
        .iter()
        .map(|k| {
            k.chars()
                .map(|c| match c {
                    'l' | '1' => 'i',
                    '3' => 'e',
                    '4' => 'a',
                    '5' => 's',
                    '7' => 't',
                    '0' => 'o',
                    c => c,
                })
                .collect()
        })
        .collect()
}

/// The loosest form, for the reserved names only: [`loose`] after the
/// accents are dropped (`admín`, `Adm1n` and `ÁDMIN` are `admin`). Not for
/// the insults, which are looked for inside names: there it would refuse
/// innocent names (`coño` would be `cono`, inside `Conor`).
fn plain(s: &str) -> Vec<String> {
    let bare: String = s
        .nfd()
        .filter(|c| !unicode_normalization::char::is_combining_mark(*c))
        .collect();
    loose(&bare)
}

/// Whether `name` is a reserved name written with look-alikes, digits for
/// letters or accents (compared whole), or has the AI's name inside it.
fn reserved(name: &str) -> bool {
    let own = plain(name);
    RESERVED
        .iter()
        .any(|r| plain(r).iter().any(|k| own.contains(k)))
        || own
            .iter()
            .any(|k| plain("goreai").iter().any(|g| k.contains(g.as_str())))
}

/// Whether two names look alike (share a key).
pub fn look_alike(a: &str, b: &str) -> bool {
    let (ka, kb) = (keys(a), keys(b));
    ka.iter().any(|k| kb.contains(k))
}

impl Name {
    /// Checks a name (spaces around it dropped, NFC) against every rule.
    pub fn parse(s: &str) -> Result<Name, NameError> {
        let s: String = s.trim().nfc().collect();
        let found = s.chars().count();
        if !(MIN_CHARS..=MAX_CHARS).contains(&found) {
            return Err(NameError::Length { found });
        }
        if let Some(c) = s
            .chars()
            .find(|c| !(c.is_alphanumeric() || *c == '-' || *c == '_'))
        {
            return Err(NameError::Character(c));
        }
        let edge = |c: Option<char>| c.is_some_and(|c| c == '-' || c == '_');
        if edge(s.chars().next()) || edge(s.chars().last()) {
            return Err(NameError::Edge);
        }
        if !s.is_single_script() {
            return Err(NameError::MixedScript);
        }
        if RESERVED.iter().any(|r| look_alike(r, &s)) || reserved(&s) {
            return Err(NameError::Reserved);
        }
        let own_loose = loose(&s);
        let insult = |w: &str| {
            let lw = loose(w);
            own_loose
                .iter()
                .any(|k| lw.iter().any(|x| k.contains(x.as_str())))
        };
        if OFFENSIVE.iter().any(|w| insult(w)) {
            return Err(NameError::Offensive);
        }
        Ok(Name(s))
    }

    /// A generated name, `Ayla-4821`: a given name and four digits.
    pub fn generate(rng: &mut impl Rng) -> Name {
        let given = GIVEN[rng.gen_range(0..GIVEN.len())];
        Name(format!("{given}-{:04}", rng.gen_range(0..10_000)))
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Its skeleton ([`skeleton`]): two names with the same one look alike.
    pub fn skeleton(&self) -> String {
        skeleton(&self.0)
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn names_of_any_script_with_digits_dashes_and_underscores() {
        for ok in [
            "Ayla-4821",
            "Kóffi",
            "abc",
            "a_b",
            "Ирина",
            "李小龍",
            "ΑΘΗΝΑ",
            "Irati_2",
            "ab3",
            "x234567890123456789z",
        ] {
            assert_eq!(
                Name::parse(ok).map(|n| n.to_string()),
                Ok(ok.to_string()),
                "{ok}"
            );
        }
        // NFC: an e and a combining acute are kept as é.
        assert_eq!(Name::parse("Che\u{301}ri").unwrap().as_str(), "Chéri");
    }

    #[test]
    fn each_rule_names_itself() {
        let cases: &[(&str, NameError)] = &[
            ("ab", NameError::Length { found: 2 }),
            ("x2345678901234567890z", NameError::Length { found: 21 }),
            ("   ", NameError::Length { found: 0 }),
            ("Ay la", NameError::Character(' ')),
            ("<b>hi</b>", NameError::Character('<')),
            ("Ayla\u{200b}x", NameError::Character('\u{200b}')),
            ("a'b", NameError::Character('\'')),
            ("-Ayla", NameError::Edge),
            ("Ayla_", NameError::Edge),
            // A Latin name with a Cyrillic а.
            ("Ayl\u{430}", NameError::MixedScript),
            ("gore-ai", NameError::Reserved),
            ("GORE_AI_12", NameError::Reserved),
            ("Admin", NameError::Reserved),
            ("g0re-ai", NameError::Reserved),
            ("moderator", NameError::Reserved),
            // Digits for letters, accents, and `root` (issue 25, point 15).
            ("Adm1n", NameError::Reserved),
            ("admín", NameError::Reserved),
            ("ÁDMIN", NameError::Reserved),
            ("G0re-A1", NameError::Reserved),
            ("xG0reA1x", NameError::Reserved),
            ("root", NameError::Reserved),
            ("r00t", NameError::Reserved),
            ("5uperuser", NameError::Reserved),
            ("xFuCkx", NameError::Offensive),
            ("Sh1t-happens", NameError::Offensive),
            ("connard", NameError::Offensive),
        ];
        for (name, why) in cases {
            assert_eq!(Name::parse(name).as_ref(), Err(why), "{name:?}");
        }
        // The message says what to do.
        let e = Name::parse("ab").unwrap_err().to_string();
        assert!(e.contains("3 to 20"), "{e}");
    }

    #[test]
    fn look_alikes_share_a_skeleton() {
        // Latin o and digit 0 and Cyrillic о; l, I and 1.
        assert_eq!(skeleton("Koffi"), skeleton("K0ffi"));
        assert_eq!(skeleton("Koffi"), skeleton("K\u{43e}ffi"));
        assert_eq!(skeleton("Ayla"), skeleton("AyIa"));
        assert_eq!(skeleton("ayla-1"), skeleton("Ayla_1"));
        assert_ne!(skeleton("Ayla"), skeleton("Ayda"));
        assert!(look_alike("GORE-AI", "gore-ai"));
        assert!(look_alike("AyIa", "ayla"));
        assert!(!look_alike("Awa", "Ama"));
    }

    #[test]
    fn generated_names_pass_every_check() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for _ in 0..2_000 {
            let n = Name::generate(&mut rng);
            assert_eq!(Name::parse(n.as_str()).as_ref(), Ok(&n), "{n}");
            let (given, digits) = n.as_str().rsplit_once('-').unwrap();
            assert!(GIVEN.contains(&given) && digits.len() == 4, "{n}");
        }
        for g in GIVEN {
            Name::parse(g).unwrap_or_else(|e| panic!("{g}: {e}"));
        }
    }
}
