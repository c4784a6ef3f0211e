//! What every backend's comparison matrix shares, below the backends'
//! folders: how a backend declares its matrix ([`backend`]: its rows and
//! columns ([`axes`]), cell run, cost series, confirmed record, pages), a
//! judged cell ([`cell`]), a checker's report made a cell ([`checked`]),
//! a cell's scenario file ([`cell_file`]), a command backend's cell run
//! ([`command`]) and pages ([`command_pages`]), what a cell and a matrix
//! read as in Markdown and HTML ([`cell_lines`], [`cell_markdown`],
//! [`cell_html`], [`tables`]), cost series and their charts ([`costs`],
//! [`charts`]) and the confirmed marks ([`confirmed`]). Each backend's
//! registry (`<backend>/compare/`) is written on these; the report
//! (`crate::compare`) runs and draws them.

pub mod axes;
pub mod backend;
pub mod cell;
pub mod cell_file;
pub mod cell_html;
pub mod cell_lines;
pub mod cell_markdown;
pub mod charts;
pub mod checked;
pub mod command;
pub mod command_pages;
pub mod confirmed;
pub mod costs;
pub mod fault_table;
pub mod tables;
