//! The seeds' cleanup job against a real server (source 002, line 25: "做一个
//! 定时任务去定时清理" — a scheduled task that clears lock rows that have
//! been there too long), as the checker and the simulator have it: with a
//! connection of its own, it frees the lock row once it has seen the row
//! taken, unchanged, for `after`. It polls the row every millisecond with a
//! plain (non-locking) `SELECT`, so it never waits on a holder's lock, and
//! frees only the row it timed: the unique key's by its id (`DELETE … AND
//! id = ?`), the status row by its status and version (`UPDATE … SET status
//! = -1 … AND status = 1 AND version = ?`). A row lock (`FOR UPDATE`) has
//! no row to clean: no job runs.

use super::wire;
use locksmith_model::mysql::recipes::{lock_name, status_cas, MysqlRecipe};
use locksmith_model::mysql::{Reply, RowView, Statement};
use mysql::prelude::Queryable;
use mysql::Conn;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The job's thread, until [`Job::stop`].
pub struct Job {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<Result<u64, String>>,
}

impl Job {
    /// Starts the job for `recipe`'s lock row in `table` (`None`: the
    /// recipe's lock has no row to clean).
    pub fn start(recipe: MysqlRecipe, mut conn: Conn, table: &str, after: Duration) -> Option<Job> {
        recipe.cleanup_statement()?;
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let table = table.to_string();
        let thread = std::thread::spawn(move || {
            let mut freed = 0;
            // The taken row the job is timing, and since when.
            let mut timing: Option<(RowView, Instant)> = None;
            while !flag.load(Ordering::Relaxed) {
                let select = Statement::Select { name: lock_name() };
                let row = match wire::execute(&mut conn, &table, &select)? {
                    Reply::Rows(Some(r)) if taken(recipe, &r) => Some(r),
                    _ => None,
                };
                timing = match (row, timing) {
                    (Some(r), Some((t, since))) if r == t => Some((t, since)),
                    (Some(r), _) => Some((r, Instant::now())),
                    (None, _) => None,
                };
                if let Some((r, since)) = timing {
                    if since.elapsed() >= after {
                        conn.query_drop(free(recipe, &table, &r))
                            .map_err(|e| format!("the cleanup job: {e}"))?;
                        freed += conn.affected_rows();
                        timing = None;
                    }
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            Ok(freed)
        });
        Some(Job { stop, thread })
    }

    /// Stops the job: the rows it freed, or why it failed.
    pub fn stop(self) -> Result<u64, String> {
        self.stop.store(true, Ordering::Relaxed);
        self.thread
            .join()
            .map_err(|_| "the cleanup job's thread panicked".to_string())?
    }
}

fn taken(recipe: MysqlRecipe, r: &RowView) -> bool {
    match recipe {
        MysqlRecipe::StatusCas | MysqlRecipe::StatusCasUnguarded => r.status == status_cas::TAKEN,
        MysqlRecipe::UniqueKey | MysqlRecipe::UniqueKeyTxn | MysqlRecipe::ForUpdate => true,
    }
}

/// The statement that frees exactly the row the job timed.
fn free(recipe: MysqlRecipe, table: &str, r: &RowView) -> String {
    let name = lock_name();
    match recipe {
        MysqlRecipe::StatusCas | MysqlRecipe::StatusCasUnguarded => format!(
            "UPDATE {table} SET status = {} WHERE name = '{name}' AND status = {} AND version = {}",
            status_cas::FREE,
            status_cas::TAKEN,
            r.version
        ),
        MysqlRecipe::UniqueKey | MysqlRecipe::UniqueKeyTxn | MysqlRecipe::ForUpdate => {
            format!(
                "DELETE FROM {table} WHERE name = '{name}' AND id = {}",
                r.id
            )
        }
    }
}
