//! The random ops, checked statistically (their streams differ from PyTorch's by design, so they
//! cannot be compared value by value): ranges, moments, permutations and seeding.

use crate::random::{self, Generator};
use crate::{DType, Tensor};

fn moments(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    (
        m,
        v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0),
    )
}

#[test]
fn rand_is_uniform_in_unit_interval() {
    let g = Generator::new(1);
    for dt in [
        DType::Float32,
        DType::Float64,
        DType::Float16,
        DType::BFloat16,
    ] {
        let t = random::rand(&[20_000], Some(dt), Some(&g)).unwrap();
        assert_eq!(t.dtype(), dt);
        let v = t.to_vec::<f64>();
        assert!(v.iter().all(|&x| (0.0..=1.0).contains(&x)), "{dt}");
        let (m, var) = moments(&v);
        // Uniform: mean 1/2, variance 1/12; 5 standard errors.
        assert!(
            (m - 0.5).abs() < 5.0 * (1.0f64 / 12.0 / 20_000.0).sqrt(),
            "{dt}: mean {m}"
        );
        assert!((var - 1.0 / 12.0).abs() < 0.005, "{dt}: var {var}");
    }
    let f32s = random::rand(&[100_000], None, Some(&g))
        .unwrap()
        .to_vec::<f32>();
    assert!(
        f32s.iter().all(|&x| x < 1.0),
        "float32 rand never reaches 1"
    );
}

#[test]
fn randn_is_standard_normal() {
    let g = Generator::new(2);
    let v = random::randn(&[50_000], Some(DType::Float64), Some(&g))
        .unwrap()
        .to_vec::<f64>();
    let (m, var) = moments(&v);
    assert!(m.abs() < 5.0 / (50_000f64).sqrt(), "mean {m}");
    assert!((var - 1.0).abs() < 0.03, "var {var}");
    let tail = v.iter().filter(|x| x.abs() > 1.96).count() as f64 / v.len() as f64;
    assert!((tail - 0.05).abs() < 0.005, "two-sided 5% tail: {tail}");
}

#[test]
fn randint_covers_its_range_only() {
    let g = Generator::new(3);
    let v = random::randint(-3, 4, &[10_000], None, Some(&g)).unwrap();
    assert_eq!(v.dtype(), DType::Int64);
    let v = v.to_vec::<i64>();
    for k in -3..4 {
        let c = v.iter().filter(|&&x| x == k).count();
        assert!((1_200..1_650).contains(&c), "value {k} drawn {c} times");
    }
    assert!(v.iter().all(|x| (-3..4).contains(x)));
    let e = random::randint(2, 2, &[1], None, Some(&g)).unwrap_err();
    assert!(e.to_string().contains("from=2 >= to=2"));
}

#[test]
fn randperm_is_a_permutation_and_seeding_repeats() {
    let g = Generator::new(4);
    let mut p = random::randperm(1000, None, Some(&g))
        .unwrap()
        .to_vec::<i64>();
    assert_ne!(p, (0..1000).collect::<Vec<_>>(), "shuffled");
    p.sort_unstable();
    assert_eq!(p, (0..1000).collect::<Vec<_>>());
    let (a, b) = (Generator::new(9), Generator::new(9));
    assert_eq!(
        random::randn(&[64], None, Some(&a))
            .unwrap()
            .to_vec::<f32>(),
        random::randn(&[64], None, Some(&b))
            .unwrap()
            .to_vec::<f32>()
    );
    a.manual_seed(5);
    b.manual_seed(5);
    assert_eq!(
        random::rand(&[8], None, Some(&a)).unwrap().to_vec::<f32>(),
        random::rand(&[8], None, Some(&b)).unwrap().to_vec::<f32>()
    );
}

#[test]
fn normal_and_uniform_fill_in_place() {
    let g = Generator::new(6);
    let t = Tensor::zeros(&[40_000], DType::Float64);
    let v0 = t.version();
    random::normal_(&t, 3.0, 2.0, Some(&g)).unwrap();
    assert!(t.version() > v0, "in-place writes bump the version");
    let (m, var) = moments(&t.to_vec::<f64>());
    assert!(
        (m - 3.0).abs() < 0.05 && (var - 4.0).abs() < 0.15,
        "mean {m} var {var}"
    );
    random::uniform_(&t, -2.0, 6.0, Some(&g)).unwrap();
    let v = t.to_vec::<f64>();
    assert!(v.iter().all(|x| (-2.0..6.0).contains(x)));
    let (m, var) = moments(&v);
    assert!(
        (m - 2.0).abs() < 0.1 && (var - 64.0 / 12.0).abs() < 0.2,
        "mean {m} var {var}"
    );
    let ints = Tensor::zeros(&[2], DType::Int64);
    assert!(random::normal_(&ints, 0.0, 1.0, None).is_err());
    assert!(random::uniform_(&t, 1.0, 0.0, None).is_err());
    assert!(random::normal_(&t, 0.0, -1.0, None).is_err());
}

#[test]
fn dropout_zeroes_and_rescales() {
    let g = Generator::new(7);
    let x = Tensor::ones(&[20_000], DType::Float32);
    let y = random::dropout(&x, 0.25, true, Some(&g))
        .unwrap()
        .to_vec::<f32>();
    let zeros = y.iter().filter(|&&v| v == 0.0).count() as f64 / y.len() as f64;
    assert!((zeros - 0.25).abs() < 0.015, "dropped {zeros}");
    assert!(y.iter().all(|&v| v == 0.0 || (v - 1.0 / 0.75).abs() < 1e-6));
    let same = random::dropout(&x, 0.25, false, Some(&g)).unwrap();
    assert_eq!(same.to_vec::<f32>(), x.to_vec::<f32>());
    assert!(random::dropout(&x, 1.5, true, None).is_err());
}

#[test]
fn generator_state_round_trips() {
    let g = Generator::new(11);
    let _ = random::rand(&[17], None, Some(&g)).unwrap();
    let state = g.get_state();
    assert_eq!(state.len(), Generator::STATE_LEN);
    let a = random::randn(&[33], None, Some(&g))
        .unwrap()
        .to_vec::<f32>();
    // Restoring replays the stream, here and in another generator.
    g.set_state(&state).unwrap();
    assert_eq!(
        random::randn(&[33], None, Some(&g))
            .unwrap()
            .to_vec::<f32>(),
        a
    );
    let other = Generator::new(99);
    other.set_state(&state).unwrap();
    assert_eq!(other.initial_seed(), 11);
    assert_eq!(
        random::randn(&[33], None, Some(&other))
            .unwrap()
            .to_vec::<f32>(),
        a
    );
    // A wrong length is an error, and leaves the generator as it was.
    let before = other.get_state();
    assert!(other.set_state(&state[..10]).is_err());
    assert_eq!(other.get_state(), before);
}
