//! Accounts and the browser's name: `/api/me`, `/api/account/*`.

use serde::{Deserialize, Serialize};

/// The answer to `GET /api/me` and `POST /api/me/name`, and the body of
/// the latter: the browser's display name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Me {
    /// 3 to 20 letters (any script), digits, `-` and `_`.
    pub name: String,
    /// The player's public id (absent in a rename's body).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Logged in to an account (the name is its username).
    #[serde(default)]
    pub account: bool,
}

/// The body of `POST /api/account/signup` and `…/login`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Credentials {
    /// The username.
    pub username: String,
    /// The password.
    pub password: String,
}

/// The body of `POST /api/account/password`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewPassword {
    /// The current password.
    pub current: String,
    /// The new one.
    pub new: String,
}
