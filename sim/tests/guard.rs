//! The simulator only simulates when built with `--cfg madsim`, which the
//! repository's `.cargo/config.toml` turns on. A `RUSTFLAGS` variable in the
//! environment (even an empty one) silently overrides that file; this test
//! makes that loud.

const SIMULATING: bool = cfg!(madsim);

#[test]
fn madsim_cfg_is_on() {
    let on = std::hint::black_box(SIMULATING);
    assert!(
        on,
        "built without --cfg madsim: unset RUSTFLAGS (it overrides .cargo/config.toml) and rebuild"
    );
}
