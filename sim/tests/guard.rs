//! The simulator only simulates when built with `--cfg madsim`, which the
//! repository's `.cargo/config.toml` turns on. A `RUSTFLAGS` variable in the
//! environment (even an empty one) silently overrides that file; this test
//! makes that loud.

#[test]
fn madsim_cfg_is_on() {
    assert!(
        cfg!(madsim),
        "built without --cfg madsim: unset RUSTFLAGS (it overrides .cargo/config.toml) and rebuild"
    );
}
