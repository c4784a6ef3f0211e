//! `locksmith`: find the bugs in distributed lock recipes. See `--help`.

fn main() {
    std::process::exit(locksmith::cli::run());
}
