//! The rules data of each variant, transcribed from `shared/rules/<variant>.md`.

pub mod heian_dai_shogi;
pub mod shogi;
