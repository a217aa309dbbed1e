//! The evaluation arena: players, paired matches, Elo with confidence, SPRT, ladders.
