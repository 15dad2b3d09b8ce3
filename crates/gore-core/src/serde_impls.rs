//! Serde support: every type serializes as its notation string.

use alloc::string::{String, ToString};
use core::str::FromStr;

use serde::{de::Error as _, Deserialize, Deserializer, Serialize, Serializer};

use crate::{Action, Hole, Player, Rules, Setup, Variant};

macro_rules! via_string {
    ($($t:ty),*) => {$(
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.to_string())
            }
        }
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = String::deserialize(d)?;
                <$t>::from_str(&text).map_err(D::Error::custom)
            }
        }
    )*};
}

via_string!(Action, Hole, Player, Rules, Setup, Variant);
