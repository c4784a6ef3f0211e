//! One client connection: its connect handshake, then requests read and
//! handed to the hub, while a writer sends what the hub queued for it.

use super::super::{lock, State};
use super::hub::Out;
use super::wire::{self, Connect};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::OwnedReadHalf;
use tokio::net::TcpStream;
use tokio::sync::mpsc;

/// `jute.maxbuffer`'s default (1 MiB) and some: a longer frame is a
/// client that does not speak the protocol.
const MAX_FRAME: usize = 4 << 20;

async fn frame(r: &mut OwnedReadHalf) -> Option<Vec<u8>> {
    let len = r.read_i32().await.ok()?;
    body(r, len).await
}

async fn body(r: &mut OwnedReadHalf, len: i32) -> Option<Vec<u8>> {
    let len = usize::try_from(len).ok().filter(|&n| n <= MAX_FRAME)?;
    let mut body = vec![0u8; len];
    r.read_exact(&mut body).await.ok()?;
    Some(body)
}

/// The four-letter words the tests and `scripts/` ask a server (sent as
/// the connection's first four bytes instead of a frame length).
fn four_letter(first: i32) -> Option<&'static str> {
    ["mntr", "ruok", "srvr"]
        .into_iter()
        .find(|w| i32::from_be_bytes(w.as_bytes().try_into().unwrap_or([0; 4])) == first)
}

pub async fn serve(stream: TcpStream, state: Arc<Mutex<State>>) {
    let (mut reader, mut writer) = stream.into_split();
    let (tx, mut rx) = mpsc::unbounded_channel();
    let conn = lock(&state).zk.hub.conn(tx);
    tokio::spawn(async move {
        while let Some(out) = rx.recv().await {
            match out {
                Out::Frame(bytes) => {
                    if writer.write_all(&bytes).await.is_err() {
                        break;
                    }
                }
                Out::Hold(d) => tokio::time::sleep(d).await,
                Out::Close => break,
            }
        }
        let _ = writer.shutdown().await;
    });
    let Ok(len) = reader.read_i32().await else {
        return;
    };
    if let Some(word) = four_letter(len) {
        let answer = lock(&state).zk.hub.four_letter(word);
        let _ = conn.tx.send(Out::Frame(answer.into_bytes()));
        let _ = conn.tx.send(Out::Close);
        return;
    }
    let Some(first) = body(&mut reader, len).await else {
        return;
    };
    let Ok(connect) = Connect::read(&first) else {
        let _ = conn.tx.send(Out::Close);
        return;
    };
    let Some(from) = super::connect(&mut lock(&state), &connect, &conn, Instant::now()) else {
        return;
    };
    loop {
        let next = tokio::select! {
            f = frame(&mut reader) => f,
            _ = conn.closed.notified() => None,
        };
        let Some(body) = next else {
            break;
        };
        let now = Instant::now();
        let mut s = lock(&state);
        match wire::read_request(&body) {
            Ok((xid, kind, request)) => super::request(&mut s, from, (xid, kind), request, now),
            Err(why) => {
                let xid = body
                    .get(..4)
                    .map(|b| i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
                    .unwrap_or(0);
                s.zk.hub.unreadable(from, xid, &why, now);
                break;
            }
        }
    }
    lock(&state).zk.hub.disconnected(from);
}
