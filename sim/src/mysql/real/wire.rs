//! A statement on the wire to a real MariaDB, and its answer read back as
//! the model's [`Reply`]: what `locksmith real --mysql` sends, on the
//! table layout the model and the conformance test use.

use locksmith_model::mysql::{MysqlError, Reply, RowView, SetVersion, Statement};
use mysql::prelude::Queryable;
use mysql::{Conn, Opts, OptsBuilder};

/// The lock table (`locksmith_model::mysql::statement`'s layout) as `table`.
pub fn create_table(table: &str) -> String {
    format!(
        "CREATE TABLE {table} (\
         id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, \
         name VARCHAR(64) NOT NULL, \
         status INT NOT NULL DEFAULT 0, \
         version INT NOT NULL DEFAULT 0, \
         UNIQUE KEY name (name)) ENGINE=InnoDB"
    )
}

/// Connection options for `url` (mysql://user[:password]@host:port/db),
/// over TCP, with `CLIENT_FOUND_ROWS` if asked (Connector/J sets it).
pub fn opts(url: &str, found_rows: bool) -> Result<Opts, String> {
    let opts = Opts::from_url(url).map_err(|e| format!("{url:?}: {e}"))?;
    let mut b = OptsBuilder::from_opts(opts).prefer_socket(false);
    if found_rows {
        b = b.additional_capabilities(mysql::consts::CapabilityFlags::CLIENT_FOUND_ROWS);
    }
    Ok(b.into())
}

/// Runs `stmt` on `table` and reads the answer as the model's reply.
/// `Err`: the connection failed, or the server answered an error the
/// model has no reply for (its code and text).
pub fn execute(c: &mut Conn, table: &str, stmt: &Statement) -> Result<Reply, String> {
    let sql = stmt.sql_in(table);
    let result = match stmt {
        Statement::Select { .. } | Statement::SelectForUpdate { .. } => {
            c.query::<(u64, i64, i64), _>(&sql).map(|rows| {
                Reply::Rows(rows.first().map(|&(id, status, version)| RowView {
                    id,
                    status,
                    version,
                }))
            })
        }
        _ => c.query_drop(&sql).map(|()| Reply::Ok {
            affected: c.affected_rows(),
            // The id an INSERT was given, or the version LAST_INSERT_ID(…)
            // set: the only statements whose OK packet carries one.
            insert_id: matches!(
                stmt,
                Statement::Insert { .. }
                    | Statement::Update {
                        set_version: SetVersion::Token,
                        ..
                    }
            )
            .then(|| c.last_insert_id()),
        }),
    };
    match result {
        Ok(reply) => Ok(reply),
        Err(mysql::Error::MySqlError(e)) => match (e.code, stmt.name()) {
            (1062, Some(name)) => Ok(Reply::Err(MysqlError::Duplicate(name.clone()))),
            (1205, _) => Ok(Reply::Err(MysqlError::LockWaitTimeout)),
            (1213, _) => Ok(Reply::Err(MysqlError::Deadlock)),
            _ => Err(format!("{sql}: ERROR {}: {}", e.code, e.message)),
        },
        Err(e) => Err(format!("{sql}: {e}")),
    }
}
