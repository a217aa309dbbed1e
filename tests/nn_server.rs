//! The inference server answers concurrent clients with exactly what a direct forward pass
//! gives, takes a swapped-in network for every later request while clients run, and refuses bad
//! requests with errors.

mod common;
mod nn_support;

use std::sync::Arc;
use std::thread;
use std::time::Duration;

use crossbeam_channel::TryRecvError;

use nn_support::{encode_batch, sample_games, tiny_config, Batch};
use shogi_zero::nn::{Evaluation, Inference, InferenceServer, Network, ServerClient, ServerError};
use shogi_zero::rules::VariantId;
use tch::Device;

fn network(id: VariantId, seed: i64) -> Network {
    tch::manual_seed(seed);
    Network::new(id, &tiny_config(), Device::Cpu).unwrap()
}

/// The evaluations of every position of `batch` by one direct inference pass.
fn direct(net: &Network, batch: &Batch) -> Vec<Evaluation> {
    let mut inference = Inference::default();
    net.infer_into(&batch.planes, &batch.legal, &mut inference);
    (0..batch.legal.len()).map(|i| inference.evaluation(i)).collect()
}

/// Whether two evaluations agree up to float rounding (batches of other sizes may use other
/// convolution kernels).
fn same(a: &Evaluation, b: &Evaluation) -> bool {
    let close = |x: &f32, y: &f32| (x - y).abs() <= 1e-5 * (1.0 + x.abs());
    a.priors.len() == b.priors.len()
        && a.priors.iter().zip(&b.priors).all(|(x, y)| close(x, y))
        && a.wdl.iter().zip(&b.wdl).all(|(x, y)| close(x, y))
        && close(&a.moves_left, &b.moves_left)
}

#[test]
fn concurrent_clients_get_what_a_direct_forward_pass_gives() {
    for id in [VariantId::SHOGI, VariantId::HEIAN_DAI_SHOGI] {
        let batch = Arc::new(encode_batch(&sample_games(id, 24, 7)));
        let net = network(id, 11);
        let expected = Arc::new(direct(&net, &batch));
        let len = net.input_len();
        let server = InferenceServer::start(net, 8, Duration::from_micros(300));
        let workers: Vec<_> = (0..4)
            .map(|t| {
                let mut client = server.client();
                let (batch, expected) = (batch.clone(), expected.clone());
                thread::spawn(move || {
                    for round in 0..3 {
                        let mine: Vec<usize> = (0..24).filter(|i| i % 4 == t).collect();
                        for &i in &mine {
                            client.submit(i as u64, &batch.planes[i * len..(i + 1) * len], &batch.legal[i]).unwrap();
                        }
                        for _ in &mine {
                            let (tag, e) = client.receive().unwrap();
                            assert!(
                                same(&e, &expected[tag as usize]),
                                "{id} round {round} position {tag}: {e:?} != {:?}",
                                expected[tag as usize]
                            );
                        }
                        assert_eq!(client.outstanding(), 0);
                    }
                })
            })
            .collect();
        for w in workers {
            w.join().unwrap();
        }
        let (positions, batches) = server.counts();
        assert_eq!(positions, 72);
        assert!(batches < positions, "requests were batched ({batches} batches)");
    }
}

#[test]
fn a_swapped_network_answers_every_later_request() {
    let id = VariantId::SHOGI;
    let batch = Arc::new(encode_batch(&sample_games(id, 8, 2)));
    let (old, new) = (network(id, 1), network(id, 2));
    let (old_answers, new_answers) = (Arc::new(direct(&old, &batch)), Arc::new(direct(&new, &batch)));
    assert!(!same(&old_answers[0], &new_answers[0]), "the two networks differ");
    let len = old.input_len();
    let server = InferenceServer::start(old, 4, Duration::from_micros(100));
    let (stop_tx, stop_rx) = crossbeam_channel::bounded::<()>(0);
    let clients: Vec<_> = (0..3)
        .map(|_| {
            let mut client = server.client();
            let (batch, old_answers, new_answers, stop) = (batch.clone(), old_answers.clone(), new_answers.clone(), stop_rx.clone());
            thread::spawn(move || {
                let mut i = 0;
                while stop.try_recv() == Err(TryRecvError::Empty) {
                    let k = i % 8;
                    let e = client.evaluate(&batch.planes[k * len..(k + 1) * len], &batch.legal[k]).unwrap();
                    assert!(same(&e, &old_answers[k]) || same(&e, &new_answers[k]), "answer from neither network");
                    i += 1;
                }
                i
            })
        })
        .collect();
    thread::sleep(Duration::from_millis(50));
    server.swap(new).unwrap();
    let mut client = server.client();
    for k in 0..8 {
        let e = client.evaluate(&batch.planes[k * len..(k + 1) * len], &batch.legal[k]).unwrap();
        assert!(same(&e, &new_answers[k]), "position {k} after the swap");
    }
    drop(stop_tx);
    for c in clients {
        assert!(c.join().unwrap() > 0, "the client kept running");
    }
}

#[test]
fn receive_any_answers_each_client_from_its_own_server() {
    let id = VariantId::SHOGI;
    let batch = encode_batch(&sample_games(id, 6, 4));
    let (first, second) = (network(id, 5), network(id, 6));
    let answers = [direct(&first, &batch), direct(&second, &batch)];
    assert!(!same(&answers[0][0], &answers[1][0]), "the two networks differ");
    let len = first.input_len();
    let servers =
        [InferenceServer::start(first, 4, Duration::from_micros(100)), InferenceServer::start(second, 4, Duration::from_micros(100))];
    let mut clients = vec![servers[0].client(), servers[1].client()];
    assert_eq!(ServerClient::receive_any(&mut clients).err(), Some(ServerError::NothingOutstanding));
    // Positions 0..3 go to the first server, 3..6 to the second; tags name the position.
    for k in 0..6 {
        clients[k / 3].submit(k as u64, &batch.planes[k * len..(k + 1) * len], &batch.legal[k]).unwrap();
    }
    let mut seen = Vec::new();
    for _ in 0..6 {
        let (index, tag, e) = ServerClient::receive_any(&mut clients).unwrap();
        let k = tag as usize;
        assert_eq!(index, k / 3, "position {k} came back through the other client");
        assert!(same(&e, &answers[index][k]), "position {k}: not the answer of server {index}");
        seen.push(k);
    }
    seen.sort();
    assert_eq!(seen, [0, 1, 2, 3, 4, 5]);
    assert_eq!((clients[0].outstanding(), clients[1].outstanding()), (0, 0));
    // A stopped server wakes a client waiting on it.
    clients[1].submit(9, &batch.planes[..len], &batch.legal[0]).unwrap();
    let [first, second] = servers;
    second.stop();
    let outcome = ServerClient::receive_any(&mut clients);
    assert!(matches!(outcome, Ok((1, 9, _)) | Err(ServerError::Stopped)), "{outcome:?}");
    drop(first);
}

#[test]
fn bad_requests_and_a_stopped_server_give_errors() {
    let id = VariantId::SHOGI;
    let batch = encode_batch(&sample_games(id, 1, 3));
    let net = network(id, 3);
    let (len, size) = (net.input_len(), net.layout().policy_size);
    let server = InferenceServer::start(net, 4, Duration::from_micros(100));
    let mut client = server.client();
    assert_eq!(client.submit(0, &batch.planes[1..], &batch.legal[0]), Err(ServerError::InputSize { expected: len, found: len - 1 }));
    assert_eq!(client.submit(0, &batch.planes, &[size as u32]), Err(ServerError::PolicyIndex { index: size as u32, size }));
    assert_eq!(client.submit(0, &batch.planes, &[]), Err(ServerError::NoLegalMoves));
    assert_eq!(client.receive(), Err(ServerError::NothingOutstanding));
    assert!(matches!(server.swap(network(VariantId::HEIAN_DAI_SHOGI, 4)), Err(ServerError::Incompatible { .. })));
    assert!(client.evaluate(&batch.planes, &batch.legal[0]).is_ok());
    client.submit(5, &batch.planes, &batch.legal[0]).unwrap();
    server.stop();
    // The request in flight may have been answered before the stop; after it, nothing is.
    let _ = client.receive();
    assert_eq!(client.evaluate(&batch.planes, &batch.legal[0]), Err(ServerError::Stopped));
}
