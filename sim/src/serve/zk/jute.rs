//! Jute, ZooKeeper's record encoding, as far as the client protocol uses
//! it: big-endian integers, a boolean as one byte, a buffer or string as
//! its length (−1 for null) then its bytes, a vector as its count then its
//! items.

/// Reads one request's body. Every read says what it was reading when the
/// bytes ran out or made no sense, so a client that sends something the
/// server does not understand gets a clear log line, never a panic.
pub struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, at: 0 }
    }

    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let Some(end) = end else {
            return Err(format!(
                "{what}: wanted {n} bytes at offset {}, the frame has {}",
                self.at,
                self.bytes.len()
            ));
        };
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    pub fn int(&mut self, what: &str) -> Result<i32, String> {
        let b = self.take(4, what)?;
        Ok(i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub fn long(&mut self, what: &str) -> Result<i64, String> {
        let b = self.take(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(i64::from_be_bytes(a))
    }

    pub fn boolean(&mut self, what: &str) -> Result<bool, String> {
        Ok(self.take(1, what)?[0] != 0)
    }

    /// A buffer; null (length −1) reads as empty, as the server treats it.
    pub fn buffer(&mut self, what: &str) -> Result<Vec<u8>, String> {
        let len = self.int(what)?;
        if len < 0 {
            return Ok(Vec::new());
        }
        Ok(self.take(len as usize, what)?.to_vec())
    }

    pub fn string(&mut self, what: &str) -> Result<String, String> {
        let bytes = self.buffer(what)?;
        String::from_utf8(bytes).map_err(|_| format!("{what}: not UTF-8"))
    }

    pub fn strings(&mut self, what: &str) -> Result<Vec<String>, String> {
        let n = self.int(what)?;
        (0..n.max(0)).map(|_| self.string(what)).collect()
    }
}

/// Writes one reply's body.
#[derive(Default)]
pub struct Writer {
    bytes: Vec<u8>,
}

impl Writer {
    pub fn int(&mut self, v: i32) -> &mut Self {
        self.bytes.extend_from_slice(&v.to_be_bytes());
        self
    }

    pub fn long(&mut self, v: i64) -> &mut Self {
        self.bytes.extend_from_slice(&v.to_be_bytes());
        self
    }

    pub fn boolean(&mut self, v: bool) -> &mut Self {
        self.bytes.push(u8::from(v));
        self
    }

    pub fn buffer(&mut self, v: &[u8]) -> &mut Self {
        self.int(v.len() as i32);
        self.bytes.extend_from_slice(v);
        self
    }

    pub fn string(&mut self, v: &str) -> &mut Self {
        self.buffer(v.as_bytes())
    }

    pub fn strings<S: AsRef<str>>(&mut self, v: &[S]) -> &mut Self {
        self.int(v.len() as i32);
        for s in v {
            self.string(s.as_ref());
        }
        self
    }

    /// The bytes, framed: a 4-byte length, then the record.
    pub fn framed(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.bytes.len() + 4);
        out.extend_from_slice(&(self.bytes.len() as i32).to_be_bytes());
        out.extend_from_slice(&self.bytes);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_written_reads_back_and_a_short_frame_says_where() {
        let mut w = Writer::default();
        w.int(-2)
            .long(1 << 40)
            .boolean(true)
            .string("/lock")
            .strings(&["a", "bc"]);
        let framed = w.framed();
        assert_eq!(&framed[..4], &((framed.len() - 4) as i32).to_be_bytes());
        let mut r = Reader::new(&framed[4..]);
        assert_eq!(r.int("xid"), Ok(-2));
        assert_eq!(r.long("zxid"), Ok(1 << 40));
        assert_eq!(r.boolean("watch"), Ok(true));
        assert_eq!(r.string("path").as_deref(), Ok("/lock"));
        assert_eq!(r.strings("children"), Ok(vec!["a".into(), "bc".into()]));
        let err = r.int("version").unwrap_err();
        assert!(err.starts_with("version: wanted 4 bytes"), "{err}");
    }
}
