//! The value probe's positions: one piece, the most valuable non-royal one of the side that
//! loses it, taken off a seeded random middlegame; the same pairs for the same seed.

use shogi_zero::arena::probe::{probe_pairs, run_probe};
use shogi_zero::nn::config::NetworkConfig;
use shogi_zero::nn::Network;
use shogi_zero::rules::material::Material;
use shogi_zero::rules::VariantId;

#[test]
fn each_pair_differs_by_the_losing_side_s_most_valuable_piece() {
    for variant in VariantId::ALL {
        let pairs = probe_pairs(variant, 12, 7);
        assert_eq!(pairs.len(), 12, "{variant}");
        let material = Material::of(variant);
        for pair in &pairs {
            let before: Vec<_> = pair.untouched.pieces().collect();
            let after: Vec<_> = pair.stripped.pieces().collect();
            assert_eq!(before.len(), after.len() + 1, "{variant}: one piece fewer");
            let (square, taken) = *before.iter().find(|p| !after.contains(p)).expect("the taken piece");
            assert_eq!(taken.color, pair.loser);
            assert!(!pair.untouched.royal_squares(pair.loser).any(|sq| sq == square), "{variant}: a royal piece was taken");
            let royal: Vec<_> = pair.untouched.royal_squares(pair.loser).collect();
            let best = before.iter().filter(|(sq, p)| p.color == pair.loser && !royal.contains(sq)).map(|(_, p)| material.value(*p)).max();
            assert_eq!(Some(material.value(taken)), best, "{variant}");
            assert_eq!(pair.untouched.side_to_move(), pair.stripped.side_to_move());
            assert!(!pair.stripped.in_check(pair.stripped.side_to_move().opponent()));
        }
        // Both sides lose pieces across the set, and the set repeats for the seed.
        assert!(pairs.iter().any(|p| p.loser == p.untouched.side_to_move()));
        assert!(pairs.iter().any(|p| p.loser != p.untouched.side_to_move()));
        let again = probe_pairs(variant, 12, 7);
        assert!(pairs.iter().zip(&again).all(|(a, b)| a.stripped.hash() == b.stripped.hash()));
    }
}

#[test]
fn the_probe_scores_every_pair_once() {
    let config = NetworkConfig {
        blocks: 1,
        channels: 8,
        global_pool_every: 0,
        global_pool_channels: 4,
        policy_channels: 4,
        value_channels: 4,
        value_hidden: 8,
        encoding_version: None,
        recent_moves: None,
        auxiliary_heads: false,
    };
    let network = Network::new(VariantId::SHOGI, &config, tch::Device::Cpu).unwrap();
    let pairs = probe_pairs(VariantId::SHOGI, 16, 3);
    let result = run_probe(&network, &pairs).unwrap();
    assert_eq!(result.pairs, 16);
    assert!(result.passed <= 16);
    assert!((result.share() - result.passed as f64 / 16.0).abs() < 1e-12);
    assert!(result.mean_drop.abs() <= 1.0);
}
