//! Swiss tournaments (in progress).
