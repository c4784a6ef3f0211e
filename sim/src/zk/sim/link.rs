//! One direction of one simulated connection: a queue of packets, each with
//! the simulated instant it arrives.
//!
//! FIFO (TCP) by default: a packet never arrives before the one sent ahead
//! of it on the same link, so latency varies per packet but order within a
//! session holds and order *across* sessions is free. With
//! `reorder_within_session` the arrival times are independent (unsafe: it
//! breaks ZooKeeper's per-session FIFO). A clogged link (partition) holds
//! its packets until it is unclogged. Receivers sleep in madsim time until
//! the head packet is due, so delivery follows the simulated clock.

use std::collections::VecDeque;
use std::task::Waker;

#[derive(Debug)]
pub struct Link<T> {
    /// (arrival ns, send order, packet), sorted by arrival then send order
    /// (with FIFO every packet goes to the back).
    queue: VecDeque<(u64, u64, T)>,
    sent: u64,
    last_at: u64,
    pub fifo: bool,
    pub clogged: bool,
    /// The receiving task, when it sleeps on an empty or clogged link.
    pub waker: Option<Waker>,
    /// The arrival a wake-up of the parked receiver is armed for.
    armed: Option<u64>,
}

/// What a receiver should do next.
pub enum Next<T> {
    Packet(T),
    /// Sleep until this instant (ns), then look again.
    SleepUntil(u64),
    /// Nothing to do until woken (empty or clogged).
    Park,
}

impl<T> Link<T> {
    pub fn new(fifo: bool) -> Self {
        Link {
            queue: VecDeque::new(),
            sent: 0,
            last_at: 0,
            fifo,
            clogged: false,
            waker: None,
            armed: None,
        }
    }

    /// Queues `packet` to arrive at `at` (or later, to keep FIFO).
    pub fn send(&mut self, mut at: u64, packet: T) {
        if self.fifo {
            at = at.max(self.last_at);
            self.last_at = at;
        }
        self.sent += 1;
        let seq = self.sent;
        match self.queue.back() {
            Some(&(last, _, _)) if last > at => {
                let i = self.queue.partition_point(|&(a, _, _)| a <= at);
                self.queue.insert(i, (at, seq, packet));
            }
            _ => self.queue.push_back((at, seq, packet)),
        }
        if self.clogged {
            return; // unclog() wakes the receiver
        }
        // A parked receiver is woken when the packet arrives, not now.
        if let Some(w) = &self.waker {
            if self.armed.is_none_or(|armed| at < armed) {
                super::clock::wake_at(at, w);
                self.armed = Some(at);
            }
        }
    }

    /// The next packet due at `now`, or how long to wait.
    pub fn next(&mut self, now: u64) -> Next<T> {
        // The receiver is running: it parks again (re-storing its waker)
        // only if there is nothing to do.
        self.waker = None;
        self.armed = None;
        if self.clogged {
            return Next::Park;
        }
        match self.queue.front() {
            None => Next::Park,
            Some(&(at, _, _)) if at > now => Next::SleepUntil(at),
            Some(_) => match self.queue.pop_front() {
                Some((_, _, p)) => Next::Packet(p),
                None => Next::Park,
            },
        }
    }

    /// Drops every packet in flight (a broken connection); returns them.
    pub fn drain(&mut self) -> Vec<T> {
        std::mem::take(&mut self.queue)
            .into_iter()
            .map(|(_, _, p)| p)
            .collect()
    }

    /// Drops the packets for which `keep` is false.
    pub fn retain(&mut self, mut keep: impl FnMut(&T) -> bool) -> usize {
        let before = self.queue.len();
        self.queue.retain(|(_, _, p)| keep(p));
        before - self.queue.len()
    }

    pub fn clog(&mut self) {
        self.clogged = true;
    }

    pub fn unclog(&mut self) {
        self.clogged = false;
        if let Some(w) = self.waker.take() {
            w.wake();
        }
    }

    /// When the head packet is due, if any (and the link is not clogged).
    pub fn next_due(&self) -> Option<u64> {
        if self.clogged {
            return None;
        }
        self.queue.front().map(|&(at, _, _)| at)
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }
}
