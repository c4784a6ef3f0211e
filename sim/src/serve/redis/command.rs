//! A command's words read into the Redis model's [`Command`], or into
//! what the server answers itself (PING, the connection set-up commands,
//! scripts).
//!
//! Scripts: the model runs its own three scripts in place of Lua
//! (`COMPARE_AND_DELETE_LUA` and the others, by their exact text), and
//! recognises a client library's compare-and-delete by what it does —
//! a `get` of `KEYS[1]` compared with `ARGV[1]`, then a `del` of
//! `KEYS[1]`, and nothing else that writes (redis-py's `Lock.release`
//! script). Any other script is refused with an error that says so.

use locksmith_model::redis::{
    Command, Expiry, Key, SetCondition, Value, COMPARE_AND_DELETE_LUA, COMPARE_AND_EXTEND_LUA,
    SET_NX_PX_INCR_LUA,
};

/// A script the model can run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Script {
    CompareAndDelete,
    CompareAndExtend,
    SetNxPxIncr,
}

impl Script {
    /// What `SCRIPT LOAD` answers for it: the id a client then `EVALSHA`s
    /// (a real server answers the body's SHA-1; a client that computed
    /// that itself is told `NOSCRIPT` and loads the script, as redis-py
    /// does, and from then on uses this id).
    pub fn id(self) -> &'static str {
        match self {
            Script::CompareAndDelete => "locksmith-compare-and-delete",
            Script::CompareAndExtend => "locksmith-compare-and-extend",
            Script::SetNxPxIncr => "locksmith-set-nx-px-incr",
        }
    }

    pub fn by_id(id: &str) -> Option<Script> {
        [
            Script::CompareAndDelete,
            Script::CompareAndExtend,
            Script::SetNxPxIncr,
        ]
        .into_iter()
        .find(|s| s.id() == id)
    }

    /// The script a body is, if the model runs it.
    pub fn recognise(body: &str) -> Option<Script> {
        if body == COMPARE_AND_DELETE_LUA {
            return Some(Script::CompareAndDelete);
        }
        if body == COMPARE_AND_EXTEND_LUA {
            return Some(Script::CompareAndExtend);
        }
        if body == SET_NX_PX_INCR_LUA {
            return Some(Script::SetNxPxIncr);
        }
        let squeezed: String = body
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
            .replace('"', "'");
        let calls = squeezed.matches("redis.call(").count();
        let compare_and_delete = calls == 2
            && squeezed.contains("redis.call('get',KEYS[1])")
            && squeezed.contains("redis.call('del',KEYS[1])")
            && squeezed.contains("ARGV[1]");
        compare_and_delete.then_some(Script::CompareAndDelete)
    }
}

/// A command, read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Parsed {
    Model(Command),
    Ping,
    /// Connection set-up the server accepts and ignores (`CLIENT SETINFO`,
    /// `SELECT 0`).
    Ok,
    /// `SCRIPT LOAD`: the script, if the model runs it.
    ScriptLoad(Option<Script>),
    /// `EVALSHA` of an id no script was loaded as.
    NoScript,
    /// `HELLO [2|3]`: the server's hello in that protocol.
    Hello(u8),
    /// `CLIENT ID`: the connection's number.
    ClientId,
    /// `FLUSHDB` / `FLUSHALL`: every key goes (a fresh model server).
    Flush,
    /// `INFO [section]`: the server section only.
    Info,
    /// `EXISTS key …`: how many of the keys exist (read off the keyspace;
    /// not a command of the model's, which no lock needs).
    Exists(Vec<Key>),
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn int(b: &[u8], what: &str) -> Result<i64, String> {
    text(b)
        .parse()
        .map_err(|_| format!("ERR value is not an integer or out of range ({what})"))
}

/// Reads one command; the error is the reply's text (without the `-`).
pub fn parse(words: &[Vec<u8>], now_unix_ms: i64) -> Result<Parsed, String> {
    let Some((name, args)) = words.split_first() else {
        return Err("ERR empty command".into());
    };
    let name = text(name).to_ascii_uppercase();
    let value = |b: &[u8]| Value::from_wire(b, now_unix_ms);
    let key = |b: &[u8]| Key::new(&text(b));
    let arity = |n: usize| {
        if args.len() == n {
            Ok(())
        } else {
            Err(format!(
                "ERR wrong number of arguments for '{}' command",
                name.to_ascii_lowercase()
            ))
        }
    };
    let one = |make: fn(Key) -> Command| -> Result<Parsed, String> {
        arity(1)?;
        Ok(Parsed::Model(make(key(&args[0]))))
    };
    match name.as_str() {
        "PING" => Ok(Parsed::Ping),
        "HELLO" => match args.first().map(|a| text(a)).as_deref() {
            None | Some("2") => Ok(Parsed::Hello(2)),
            Some("3") if args.len() == 1 => Ok(Parsed::Hello(3)),
            Some("3") => Err("ERR locksmith serve: HELLO with AUTH or SETNAME is not served".into()),
            Some(_) => Err("NOPROTO unsupported protocol version".into()),
        },
        "CLIENT" if args.first().is_some_and(|a| a.eq_ignore_ascii_case(b"id")) => {
            Ok(Parsed::ClientId)
        }
        "CLIENT" => Ok(Parsed::Ok),
        "FLUSHDB" | "FLUSHALL" => Ok(Parsed::Flush),
        "INFO" => Ok(Parsed::Info),
        "SELECT" if args.first().map(|a| a.as_slice()) == Some(b"0") => Ok(Parsed::Ok),
        "EXISTS" if !args.is_empty() => Ok(Parsed::Exists(args.iter().map(|a| key(a)).collect())),
        "GET" => one(|key| Command::Get { key }),
        "DEL" => one(|key| Command::Del { key }),
        "PTTL" => one(|key| Command::PTtl { key }),
        "INCR" => one(|key| Command::Incr { key }),
        "SETNX" | "GETSET" => {
            arity(2)?;
            let (key, value) = (key(&args[0]), value(&args[1]));
            Ok(Parsed::Model(if name == "SETNX" {
                Command::SetNx { key, value }
            } else {
                Command::GetSet { key, value }
            }))
        }
        "EXPIRE" | "PEXPIRE" => {
            arity(2)?;
            let (key, n) = (key(&args[0]), int(&args[1], "ttl")?);
            Ok(Parsed::Model(if name == "EXPIRE" {
                Command::Expire { key, seconds: n }
            } else {
                Command::PExpire { key, ms: n }
            }))
        }
        "SET" => set(args, now_unix_ms),
        "SCRIPT" => match args {
            [sub, body] if text(sub).eq_ignore_ascii_case("load") => {
                Ok(Parsed::ScriptLoad(Script::recognise(&text(body))))
            }
            _ => Err("ERR locksmith serve answers SCRIPT LOAD only".into()),
        },
        "EVAL" | "EVALSHA" => {
            let [first, numkeys, rest @ ..] = args else {
                return Err(format!(
                    "ERR wrong number of arguments for '{}' command",
                    name.to_ascii_lowercase()
                ));
            };
            let script = if name == "EVAL" {
                Script::recognise(&text(first)).ok_or_else(|| {
                    "ERR locksmith serve: this script is not one the model runs (docs/serve.md)"
                        .to_string()
                })?
            } else {
                match Script::by_id(&text(first)) {
                    Some(s) => s,
                    None => return Ok(Parsed::NoScript),
                }
            };
            let n = usize::try_from(int(numkeys, "numkeys")?)
                .map_err(|_| "ERR Number of keys can't be negative".to_string())?;
            let (keys, argv) = rest.split_at(n.min(rest.len()));
            script_command(script, keys, argv, now_unix_ms).map(Parsed::Model)
        }
        other => Err(format!(
            "ERR unknown command '{}': locksmith serve runs the Redis model's commands (docs/serve.md)",
            other.to_ascii_lowercase()
        )),
    }
}

fn set(args: &[Vec<u8>], now_unix_ms: i64) -> Result<Parsed, String> {
    let [k, v, options @ ..] = args else {
        return Err("ERR wrong number of arguments for 'set' command".into());
    };
    let mut condition = SetCondition::Always;
    let mut expiry = None;
    let mut i = 0;
    while i < options.len() {
        let o = text(&options[i]).to_ascii_uppercase();
        match o.as_str() {
            "NX" if condition == SetCondition::Always => condition = SetCondition::Nx,
            "XX" if condition == SetCondition::Always => condition = SetCondition::Xx,
            "PX" | "EX" if expiry.is_none() => {
                let n = options
                    .get(i + 1)
                    .ok_or_else(|| "ERR syntax error".to_string())?;
                let n = int(n, "expire")?;
                expiry = Some(if o == "PX" {
                    Expiry::Px(n)
                } else {
                    Expiry::Ex(n)
                });
                i += 1;
            }
            _ => return Err("ERR syntax error".into()),
        }
        i += 1;
    }
    Ok(Parsed::Model(Command::Set {
        key: Key::new(&text(k)),
        value: Value::from_wire(v, now_unix_ms),
        condition,
        expiry,
    }))
}

fn script_command(
    script: Script,
    keys: &[Vec<u8>],
    argv: &[Vec<u8>],
    now_unix_ms: i64,
) -> Result<Command, String> {
    let wrong =
        || "ERR the script's keys and arguments are not the model's (docs/serve.md)".to_string();
    let key = |b: &Vec<u8>| Key::new(&text(b));
    let value = |b: &Vec<u8>| Value::from_wire(b, now_unix_ms);
    Ok(match (script, keys, argv) {
        (Script::CompareAndDelete, [k], [v]) => Command::CompareAndDelete {
            key: key(k),
            value: value(v),
        },
        (Script::CompareAndExtend, [k], [v, ms]) => Command::CompareAndExtend {
            key: key(k),
            value: value(v),
            ms: int(ms, "ms")?,
        },
        (Script::SetNxPxIncr, [k, fence], [v, ms]) => Command::SetNxPxIncr {
            key: key(k),
            value: value(v),
            ms: int(ms, "ms")?,
            fence: key(fence),
        },
        _ => return Err(wrong()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &[&str]) -> Vec<Vec<u8>> {
        s.iter().map(|w| w.as_bytes().to_vec()).collect()
    }

    const NOW: i64 = 1_800_000_000_000;

    #[test]
    fn set_nx_px_reads_as_the_models_set_and_bad_options_are_syntax_errors() {
        let p = parse(&words(&["set", "lock", "tok", "NX", "PX", "500"]), NOW).unwrap();
        assert_eq!(
            p,
            Parsed::Model(Command::Set {
                key: Key::new("lock"),
                value: Value::text("tok"),
                condition: SetCondition::Nx,
                expiry: Some(Expiry::Px(500)),
            })
        );
        for bad in [
            &["SET", "k", "v", "NX", "XX"][..],
            &["SET", "k", "v", "PX"],
            &["SET", "k", "v", "KEEPTTL"],
        ] {
            assert_eq!(
                parse(&words(bad), NOW),
                Err("ERR syntax error".into()),
                "{bad:?}"
            );
        }
        assert!(parse(&words(&["GET"]), NOW)
            .unwrap_err()
            .contains("wrong number"));
        assert!(parse(&words(&["HSET", "h", "f", "v"]), NOW)
            .unwrap_err()
            .contains("unknown command 'hset'"));
    }

    #[test]
    fn a_libraries_compare_and_delete_script_is_recognised_by_what_it_does() {
        // The shape of redis-py's `Lock.release` script.
        let release = "
            local token = redis.call('get', KEYS[1])
            if not token or token ~= ARGV[1] then
                return 0
            end
            redis.call('del', KEYS[1])
            return 1
        ";
        assert_eq!(Script::recognise(release), Some(Script::CompareAndDelete));
        assert_eq!(
            Script::recognise(COMPARE_AND_DELETE_LUA),
            Some(Script::CompareAndDelete)
        );
        let more = format!("{release} redis.call('set', KEYS[2], 1)");
        assert_eq!(Script::recognise(&more), None);
        let p = parse(
            &words(&["EVALSHA", Script::CompareAndDelete.id(), "1", "lock", "tok"]),
            NOW,
        );
        assert_eq!(
            p,
            Ok(Parsed::Model(Command::CompareAndDelete {
                key: Key::new("lock"),
                value: Value::text("tok"),
            }))
        );
        assert_eq!(
            parse(&words(&["EVALSHA", "ab12", "1", "lock", "tok"]), NOW),
            Ok(Parsed::NoScript)
        );
        assert_eq!(
            parse(&words(&["SCRIPT", "LOAD", release]), NOW),
            Ok(Parsed::ScriptLoad(Some(Script::CompareAndDelete)))
        );
    }
}
