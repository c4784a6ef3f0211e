//! Fixed sequences: the rules the model's unit tests
//! (`model/src/redis/tests.rs`) pin, each run on the real server too.

use crate::ops::Step;
use locksmith_model::redis::{Command, Expiry, Key, SetCondition, Value};

fn send(cmd: Command) -> Step {
    Step::Send { conn: 0, cmd }
}

fn k() -> Key {
    Key::new("lock")
}

fn set(value: Value, condition: SetCondition, expiry: Option<Expiry>) -> Step {
    send(Command::Set {
        key: k(),
        value,
        condition,
        expiry,
    })
}

fn get() -> Step {
    send(Command::Get { key: k() })
}

fn pttl() -> Step {
    send(Command::PTtl { key: k() })
}

fn incr() -> Step {
    send(Command::Incr { key: k() })
}

pub fn fixed_cases() -> Vec<(&'static str, Vec<Step>)> {
    use SetCondition::*;
    vec![
        (
            "SET NX only on a missing key, XX only on an existing one",
            vec![
                set(Value::Int(2), Xx, None),
                set(Value::Int(1), Nx, None),
                set(Value::Int(2), Nx, None),
                get(),
                set(Value::Int(3), Xx, None),
                get(),
            ],
        ),
        (
            "a non-positive or overflowing TTL is an error, before NX is looked at",
            vec![
                set(Value::Int(1), Always, Some(Expiry::Px(0))),
                set(Value::Int(1), Always, Some(Expiry::Ex(-1))),
                set(Value::Int(1), Always, Some(Expiry::Ex(i64::MAX))),
                get(),
                set(Value::Int(1), Always, None),
                set(Value::Int(2), Nx, Some(Expiry::Px(0))),
                send(Command::Expire {
                    key: k(),
                    seconds: i64::MAX,
                }),
            ],
        ),
        (
            "PTTL -2, -1, then the TTL; SET without PX removes it; GETSET removes it",
            vec![
                pttl(),
                set(Value::Int(1), Always, None),
                pttl(),
                set(Value::Int(1), Always, Some(Expiry::Ex(300))),
                pttl(),
                set(Value::Int(2), Xx, None),
                pttl(),
                send(Command::PExpire {
                    key: k(),
                    ms: 200_000,
                }),
                send(Command::GetSet {
                    key: k(),
                    value: Value::Stamp(5),
                }),
                pttl(),
                get(),
            ],
        ),
        (
            "a short lease is gone after it ran out; SET NX takes the key again",
            vec![
                set(Value::Stamp(20), Nx, Some(Expiry::Px(20))),
                Step::Sleep { ms: 50 },
                get(),
                pttl(),
                set(Value::Int(2), Nx, None),
                get(),
            ],
        ),
        (
            "EXPIRE on a missing key is 0; a non-positive one deletes",
            vec![
                send(Command::Expire {
                    key: k(),
                    seconds: 5,
                }),
                set(Value::Int(1), Always, None),
                send(Command::Expire {
                    key: k(),
                    seconds: 200,
                }),
                pttl(),
                send(Command::PExpire { key: k(), ms: 0 }),
                get(),
            ],
        ),
        (
            "INCR counts from 0, keeps the TTL, refuses text and overflows",
            vec![
                incr(),
                send(Command::PExpire {
                    key: k(),
                    ms: 500_000,
                }),
                incr(),
                pttl(),
                set(Value::text("abc"), Always, None),
                incr(),
                set(Value::Stamp(41), Always, None),
                incr(),
                get(),
                set(Value::text(&(i64::MAX - 1).to_string()), Always, None),
                incr(),
                incr(),
            ],
        ),
        (
            "the scripts compare bytes; extend by 0 deletes",
            vec![
                send(Command::CompareAndDelete {
                    key: k(),
                    value: Value::Int(1),
                }),
                set(Value::Int(7), Always, Some(Expiry::Px(300_000))),
                send(Command::CompareAndExtend {
                    key: k(),
                    value: Value::Int(8),
                    ms: 500_000,
                }),
                pttl(),
                send(Command::CompareAndExtend {
                    key: k(),
                    value: Value::Int(7),
                    ms: 500_000,
                }),
                pttl(),
                send(Command::CompareAndDelete {
                    key: k(),
                    value: Value::Int(8),
                }),
                send(Command::CompareAndDelete {
                    key: k(),
                    value: Value::Int(7),
                }),
                get(),
                set(Value::Int(7), Always, None),
                send(Command::CompareAndExtend {
                    key: k(),
                    value: Value::Int(7),
                    ms: 0,
                }),
                get(),
            ],
        ),
        (
            "the lock-with-a-token script: a token only when it sets the key",
            vec![
                send(lock_with_token(1)),
                pttl(),
                send(lock_with_token(2)),
                send(Command::Get {
                    key: Key::new("fence"),
                }),
                send(Command::Del { key: k() }),
                send(lock_with_token(3)),
                get(),
                // INCR fails on text after the SET: the key stays set.
                send(Command::Del { key: k() }),
                send(Command::Set {
                    key: Key::new("fence"),
                    value: Value::text("abc"),
                    condition: Always,
                    expiry: None,
                }),
                send(lock_with_token(4)),
                get(),
                pttl(),
            ],
        ),
    ]
}

fn lock_with_token(token: i64) -> Command {
    Command::SetNxPxIncr {
        key: k(),
        value: Value::Int(token),
        ms: 300_000,
        fence: Key::new("fence"),
    }
}
