//! Proves the LibTorch set-up: a tiny network runs forward and backward on the CPU through tch,
//! and its output equals the same arithmetic done by hand.

use tch::nn::{self, Module, OptimizerConfig};
use tch::{Device, Kind, Tensor};

#[test]
fn tiny_network_forward_matches_hand_computation() {
    tch::manual_seed(7);
    let vs = nn::VarStore::new(Device::Cpu);
    let root = vs.root();
    let first = nn::linear(&root / "first", 4, 8, Default::default());
    let second = nn::linear(&root / "second", 8, 3, Default::default());
    let input = Tensor::randn([5, 4], (Kind::Float, Device::Cpu));

    let output = second.forward(&first.forward(&input).relu());
    assert_eq!(output.size(), vec![5, 3]);

    let hidden = (input.matmul(&first.ws.tr()) + first.bs.as_ref().unwrap()).clamp_min(0.0);
    let by_hand = hidden.matmul(&second.ws.tr()) + second.bs.as_ref().unwrap();
    let difference = (&output - &by_hand).abs().max().double_value(&[]);
    assert!(difference < 1e-5, "forward pass differs from the hand computation by {difference}");
}

#[test]
fn one_optimizer_step_lowers_the_loss() {
    tch::manual_seed(11);
    let vs = nn::VarStore::new(Device::Cpu);
    let layer = nn::linear(vs.root() / "layer", 6, 1, Default::default());
    let mut optimizer = nn::Sgd::default().build(&vs, 0.1).unwrap();
    let input = Tensor::randn([32, 6], (Kind::Float, Device::Cpu));
    let target = input.sum_dim_intlist([1i64].as_slice(), true, Kind::Float);
    let loss = |l: &nn::Linear| (l.forward(&input) - &target).square().mean(Kind::Float);
    let before = loss(&layer);
    optimizer.backward_step(&before);
    let after = loss(&layer);
    assert!(
        after.double_value(&[]) < before.double_value(&[]),
        "loss did not fall: {} -> {}",
        before.double_value(&[]),
        after.double_value(&[])
    );
}
