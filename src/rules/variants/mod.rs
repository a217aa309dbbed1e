//! The rules data of each variant, transcribed from `shared/rules/<variant>.md`.

pub mod chu_shogi;
pub mod dai_shogi;
pub mod heian_dai_shogi;
mod large;
pub mod shogi;
pub mod tenjiku_shogi;
