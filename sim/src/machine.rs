//! What the machine gives a run: its cores (the default number of worker
//! threads) and the process's peak memory (what a report states).

/// The threads a command uses by default: one per core.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// The process's peak resident memory (Linux `VmHWM`), if it can be read.
pub fn peak_memory_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}
