//! RESP2, the server's side: a command is an array of bulk strings
//! (`*2\r\n$3\r\nGET\r\n$4\r\nlock\r\n`), or an inline line of words
//! (`PING\r\n`, what `redis-cli` and telnet send); replies are simple
//! strings, errors, integers, bulk strings (nil as `$-1`) and arrays.

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt};

/// The longest bulk string a command may carry here (Redis allows 512 MB;
/// a lock's key, token or script is far shorter).
const MAX_BULK: usize = 1 << 20;
/// The most arguments one command may have.
const MAX_ARGS: usize = 1024;

/// One command's words, or `None` at the end of the stream. An error is a
/// client that does not speak RESP (the connection is closed).
pub async fn read_command<R: AsyncBufRead + Unpin>(
    r: &mut R,
) -> Result<Option<Vec<Vec<u8>>>, String> {
    let Some(first) = line(r).await? else {
        return Ok(None);
    };
    let Some(count) = first.strip_prefix('*') else {
        // An inline command.
        return Ok(Some(
            first
                .split_whitespace()
                .map(|w| w.as_bytes().to_vec())
                .collect(),
        ));
    };
    let n = number(count, "array length")?;
    if n > MAX_ARGS {
        return Err(format!("a command of {n} arguments (at most {MAX_ARGS})"));
    }
    let mut words = Vec::with_capacity(n);
    for _ in 0..n {
        let Some(head) = line(r).await? else {
            return Err("the stream ended inside a command".into());
        };
        let len = head
            .strip_prefix('$')
            .ok_or_else(|| format!("expected a bulk string ($len), got {head:?}"))?;
        let len = number(len, "bulk length")?;
        if len > MAX_BULK {
            return Err(format!("a bulk string of {len} bytes (at most {MAX_BULK})"));
        }
        let mut word = vec![0u8; len + 2];
        r.read_exact(&mut word)
            .await
            .map_err(|e| format!("reading a bulk string: {e}"))?;
        word.truncate(len);
        words.push(word);
    }
    Ok(Some(words))
}

async fn line<R: AsyncBufRead + Unpin>(r: &mut R) -> Result<Option<String>, String> {
    let mut buf = Vec::new();
    let n = r
        .read_until(b'\n', &mut buf)
        .await
        .map_err(|e| format!("reading a line: {e}"))?;
    if n == 0 {
        return Ok(None);
    }
    let text = String::from_utf8(buf).map_err(|_| "a line that is not UTF-8".to_string())?;
    Ok(Some(text.trim_end_matches(['\r', '\n']).to_string()))
}

fn number(s: &str, what: &str) -> Result<usize, String> {
    s.parse()
        .map_err(|_| format!("expected a {what}, got {s:?}"))
}

pub fn simple(s: &str) -> Vec<u8> {
    format!("+{s}\r\n").into_bytes()
}

pub fn error(s: &str) -> Vec<u8> {
    format!("-{s}\r\n").into_bytes()
}

pub fn integer(n: i64) -> Vec<u8> {
    format!(":{n}\r\n").into_bytes()
}

pub fn bulk(b: &[u8]) -> Vec<u8> {
    let mut out = format!("${}\r\n", b.len()).into_bytes();
    out.extend_from_slice(b);
    out.extend_from_slice(b"\r\n");
    out
}

/// A map of bulk-string keys (RESP3's `%`, RESP2's flat array), values
/// already encoded.
pub fn map(entries: &[(&str, Vec<u8>)], resp3: bool) -> Vec<u8> {
    let mut out = if resp3 {
        format!("%{}\r\n", entries.len())
    } else {
        format!("*{}\r\n", entries.len() * 2)
    }
    .into_bytes();
    for (k, v) in entries {
        out.extend(bulk(k.as_bytes()));
        out.extend_from_slice(v);
    }
    out
}

/// The nil reply: RESP2's null bulk string, RESP3's null.
pub fn nil(resp3: bool) -> Vec<u8> {
    if resp3 {
        b"_\r\n".to_vec()
    } else {
        b"$-1\r\n".to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(bytes: &[u8]) -> Result<Option<Vec<Vec<u8>>>, String> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(read_command(&mut &bytes[..]))
    }

    #[test]
    fn arrays_and_inline_commands_read_as_words_and_bad_input_says_why() {
        let set = read(b"*3\r\n$3\r\nSET\r\n$4\r\nlock\r\n$2\r\nab\r\n").unwrap();
        assert_eq!(
            set,
            Some(vec![b"SET".to_vec(), b"lock".to_vec(), b"ab".to_vec()])
        );
        assert_eq!(read(b"PING\r\n").unwrap(), Some(vec![b"PING".to_vec()]));
        assert_eq!(read(b"").unwrap(), None);
        let bad = read(b"*1\r\n:3\r\n").unwrap_err();
        assert!(bad.contains("bulk string"), "{bad}");
        assert!(read(b"*x\r\n").unwrap_err().contains("array length"));
        assert_eq!(bulk(b"ok"), b"$2\r\nok\r\n");
        assert_eq!(integer(-2), b":-2\r\n");
    }
}
