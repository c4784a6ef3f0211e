//! `locksmith real --mysql`: the database locks of sources 002 and 003
//! against a real MariaDB (or MySQL), the same sans-IO machines the checker
//! explores (`model/src/mysql/recipes/`), one client per thread on its own
//! connection ([`crate::real::threads`]).
//!
//! The run's table is its own, `locksmith_<seed>_<connection id>` in the
//! URL's database, laid out as the model's `locks` table
//! ([`wire::create_table`]): refused if it exists, created with the
//! recipe's lock row if the recipe expects one (and the scenario does not
//! say it is missing), and dropped at the end. Nothing else on the server
//! is read or written. The sessions keep the server's own
//! `innodb_lock_wait_timeout`; `CLIENT_FOUND_ROWS` is set when the
//! scenario says the connections set it (`[mysql] found_rows`).
//!
//! What it judges is [`crate::real::threads`]'s: mutual exclusion by belief and
//! a stall (and with fencing the resource's properties). No fault is
//! injected: the checker's faults (a crash, a dropped connection) are the
//! checker's; a run shows what the recipe does with none, with `FOR
//! UPDATE` on a missing row (`mysql-for-update-missing-row.toml`) both
//! clients proceeding, and with the seeds' cleanup job ([`cleanup`], the
//! scenario's `cleanup_after` or `--cleanup-ms`) what it does to a holder
//! slower than its timeout.

pub mod cleanup;
pub mod command;
pub mod wire;

use crate::real::threads::{self, Plan, Stepped, Stepper, Tally};
use locksmith_model::mysql::recipes::{lock_name, Locals, MysqlRecipe};
use locksmith_model::mysql::{Reply, Statement};
use mysql::prelude::Queryable;
use mysql::Conn;

/// A real MariaDB run, as the flags and the scenario ask for it.
#[derive(Clone, Debug)]
pub struct MysqlRealConfig {
    pub recipe: MysqlRecipe,
    /// mysql://user[:password]@host:port/database
    pub url: String,
    /// Every connection sets `CLIENT_FOUND_ROWS`.
    pub found_rows: bool,
    /// The recipe's lock row is inserted before the clients start.
    pub lock_row: bool,
    /// The seeds' cleanup job frees a lock row taken this long
    /// ([`cleanup`]); `None`: no job.
    pub cleanup_after: Option<std::time::Duration>,
    pub plan: Plan,
}

/// What a run saw.
#[derive(Clone, Debug)]
pub struct MysqlRealReport {
    pub run: Tally,
    /// The run's own table.
    pub table: String,
    /// Whether the table was dropped at the end, or why it could not be.
    pub cleanup: Result<(), String>,
    /// The rows the cleanup job freed (`None`: no job ran).
    pub job_freed: Option<u64>,
}

fn connect(url: &str, found_rows: bool) -> Result<Conn, String> {
    Conn::new(wire::opts(url, found_rows).map_err(|e| format!("--mysql {e}"))?).map_err(|e| {
        format!("cannot connect to MariaDB at {url}: {e} (`scripts/mariadb.sh start` runs one)")
    })
}

/// Runs the recipe's clients against the server for the configured time.
/// `Err` only when the run could not start (no server, no database in the
/// URL, the table taken) or a connection failed.
pub fn run(cfg: &MysqlRealConfig) -> Result<MysqlRealReport, String> {
    let mut admin = connect(&cfg.url, false)?;
    let server = |e: mysql::Error| format!("MariaDB at {}: {e}", cfg.url);
    let database: Option<String> = admin
        .query_first("SELECT DATABASE()")
        .map_err(server)?
        .flatten();
    if database.is_none() {
        return Err(format!(
            "--mysql {}: the URL names no database (mysql://USER@HOST:PORT/DATABASE)",
            cfg.url
        ));
    }
    let table = format!("locksmith_{}_{}", cfg.plan.seed, admin.connection_id());
    let taken: Option<u64> = admin
        .exec_first(
            "SELECT COUNT(*) FROM information_schema.TABLES \
             WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?",
            (&table,),
        )
        .map_err(server)?;
    if taken.unwrap_or(0) != 0 {
        return Err(format!(
            "the table {table} already exists on {}: refusing to touch it",
            cfg.url
        ));
    }
    admin
        .query_drop(wire::create_table(&table))
        .map_err(server)?;
    let ran = start(cfg, &table, &mut admin);
    let cleanup = admin
        .query_drop(format!("DROP TABLE {table}"))
        .map_err(|e| e.to_string());
    let (run, job_freed) = ran?;
    Ok(MysqlRealReport {
        run,
        table,
        cleanup,
        job_freed,
    })
}

/// The lock row, the clients' connections and the cleanup job, the run:
/// what it saw, and the rows the job freed.
fn start(
    cfg: &MysqlRealConfig,
    table: &str,
    admin: &mut Conn,
) -> Result<(Tally, Option<u64>), String> {
    if let (true, Some(status)) = (cfg.lock_row, cfg.recipe.lock_row()) {
        let row = Statement::Insert {
            name: lock_name(),
            status,
        };
        wire::execute(admin, table, &row)?;
    }
    let steppers = (0..cfg.plan.clients)
        .map(|_| {
            Ok(MysqlStepper {
                recipe: cfg.recipe,
                locals: cfg.recipe.start(),
                reply: None,
                read: None,
                conn: connect(&cfg.url, cfg.found_rows)?,
                table: table.to_string(),
                fenced: cfg.plan.fencing,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let job = match cfg.cleanup_after {
        Some(after) => cleanup::Job::start(cfg.recipe, connect(&cfg.url, false)?, table, after),
        None => None,
    };
    let tally = threads::run(&cfg.plan, steppers);
    let freed = job.map(cleanup::Job::stop).transpose()?;
    Ok((tally?, freed))
}

/// One client's recipe machine on its own connection.
struct MysqlStepper {
    recipe: MysqlRecipe,
    locals: Locals,
    reply: Option<Reply>,
    /// The reply the last step read (what an exception was about).
    read: Option<Reply>,
    conn: Conn,
    table: String,
    /// The recipe's fenced variant: `lock()` returns with a token.
    fenced: bool,
}

impl Stepper for MysqlStepper {
    type Command = Statement;

    fn step(&mut self) -> Stepped<Statement> {
        self.read = self.reply.take();
        let out = self
            .recipe
            .step(&mut self.locals, self.read.as_ref(), self.fenced);
        Stepped {
            kind: out.kind,
            send: out.send,
            sleep: out.sleep,
        }
    }

    fn cause(&self) -> Option<String> {
        self.read.as_ref().map(Reply::to_string)
    }

    fn exchange(&mut self, stmt: Statement) -> Result<(), String> {
        self.reply = Some(wire::execute(&mut self.conn, &self.table, &stmt)?);
        Ok(())
    }

    fn restart(&mut self) {
        self.locals = self.recipe.start();
    }

    /// The token came with the reply `lock()` returned on: the INSERT's
    /// id, or the version `LAST_INSERT_ID(…)` set.
    fn token(&mut self) -> Result<Option<u64>, String> {
        Ok(MysqlRecipe::token(self.read.as_ref()).and_then(|t| u64::try_from(t).ok()))
    }
}
