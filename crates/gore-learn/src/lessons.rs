//! (lessons: to be written.)
