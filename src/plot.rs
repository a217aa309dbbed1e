//! PNG line charts for training metrics and arena ladders.
